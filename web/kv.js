// Decoding with a KV cache (layer.decode) and the cache sizes of published configurations
// (Headwise.cacheBytes, cachePresets), over the core's kv bindings (wasm/bindings/kv_bindings.cpp).
import { deepFreeze, describe, floatArrayArgument, optionsArgument } from './arguments.js';
import { HeadwiseError } from './errors.js';

/** The core's cache calls of each layer kind: multi-head (kv_bindings.cpp), latent (latent_bindings.cpp). */
export const CACHE_CALLS = Object.freeze({
  mha: Object.freeze({
    prepare: 'prepareDecode',
    view: 'decodeView',
    step: 'decodeStep',
    state: 'cacheState',
    reset: 'resetCache',
  }),
  mla: Object.freeze({
    prepare: 'latentPrepareDecode',
    view: 'latentDecodeView',
    step: 'latentDecodeStep',
    state: 'latentCacheState',
    reset: 'latentResetCache',
  }),
});

/**
 * One causal decoding step of the layer `handle` (its kind's calls, CACHE_CALLS): token (batch,
 * dModel), the new position of every sequence, checked into a private copy before the module is
 * touched; returns its output (batch, dModel), a copy.
 */
export function decodeOn(core, handle, config, token, calls = CACHE_CALLS.mha) {
  const { batch, dModel } = config;
  const copy = floatArrayArgument('token', token, batch * dModel, [batch, dModel]);
  if (!core.call(calls.prepare, handle)) throw new HeadwiseError(core.call('lastError'));
  core.call(calls.view, handle, 0).set(copy);
  if (!core.call(calls.step, handle)) throw new HeadwiseError(core.call('lastError'));
  return core.call(calls.view, handle, 1).slice();
}

/** { length, capacity, bytes }: positions cached, the most the cache holds (tokens), its bytes. */
export function cacheStateOn(core, handle, calls = CACHE_CALLS.mha) {
  return Object.freeze(core.call(calls.state, handle));
}

const CACHE_KEYS = [
  'layers',
  'heads',
  'kvHeads',
  'headDim',
  'kvLatent',
  'ropeDim',
  'tokens',
  'bytesPerNumber',
  'attention',
];

let presets = null;
/**
 * The core's presets: [{ name, label, source, layers, heads, kvHeads, headDim, kvLatent, ropeDim,
 * tokens, bytesPerNumber }].
 */
export function cachePresetsOn(core) {
  if (presets === null) {
    const list = core.call('cachePresets');
    if (list === null) throw new HeadwiseError(core.call('lastError'));
    presets = deepFreeze(list);
  }
  return presets;
}

/**
 * The KV cache of a model per token and per sequence, computed by the core from its attention
 * shape without allocating: a preset's name or { layers, heads, kvHeads, headDim, kvLatent,
 * ropeDim, tokens, bytesPerNumber, attention } (attention 'mla' needs kvLatent).
 */
export function cacheBytesOn(core, config) {
  let c = config;
  if (typeof config === 'string') {
    c = cachePresetsOn(core).find((p) => p.name === config);
    if (!c) {
      const names = cachePresetsOn(core).map((p) => p.name);
      throw new RangeError(`unknown preset ${describe(config)} (known: ${names.join(', ')})`);
    }
  } else {
    c = optionsArgument('cacheBytes', config, CACHE_KEYS);
  }
  const number = (name, fallback) => {
    const value = c[name] ?? fallback;
    if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
    if (!Number.isFinite(value)) throw new RangeError(`${name} must be finite, got ${describe(value)}`);
    return value;
  };
  const attention = c.attention ?? (number('kvLatent', 0) > 0 ? 'mla' : 'mha');
  if (attention !== 'mha' && attention !== 'mla') {
    throw new RangeError(`attention must be "mha" or "mla", got ${describe(attention)}`);
  }
  if (attention === 'mla' && !(number('kvLatent', 0) > 0)) {
    throw new RangeError('attention "mla" needs kvLatent (the latent width, at least 1)');
  }
  const heads = number('heads', 1);
  const sizes = core.call(
    'cacheSizes',
    number('layers', 1),
    heads,
    number('kvHeads', heads),
    number('headDim', 64),
    attention === 'mla' ? number('kvLatent', 0) : 0,
    attention === 'mla' ? number('ropeDim', 0) : 0,
    number('tokens', 1),
    number('bytesPerNumber', 2),
  );
  if (sizes === null) throw new HeadwiseError(core.call('lastError'));
  return Object.freeze(sizes);
}
