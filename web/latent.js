// createAttention({ attention: 'mla' }): one multi-head latent attention layer (DeepSeek-V2), the
// core's latent operator with its weights (wasm/core/latent_model.hpp, latent_bindings.cpp).
import { deepFreeze, floatArrayArgument, optionsArgument } from './arguments.js';
import { HeadwiseError } from './errors.js';
import { CACHE_CALLS, cacheStateOn, decodeOn } from './kv.js';

const FORMS = ['explicit', 'absorbed'];

/**
 * Keys and values of every head come from one latent of kvLatent numbers per position
 * (c = x wDkv; k_h = c wUk[h], v_h = c wUv[h]); a RoPE key of ropeDim numbers (RoPE(x wKr)) is
 * shared by the heads, their queries' RoPE parts are RoPE(x wQr[h]). The core computes it in two
 * forms, the same function: 'explicit' up-projects every head's keys and values; 'absorbed' folds
 * wUk into the queries and wUv into wOut and attends to the latent itself, as decode() does.
 */
export class LatentAttention {
  #core;
  #handle;
  #registry;
  #rows;

  /** @internal use Headwise.createAttention({ attention: 'mla', kvLatent }) */
  constructor(core, handle, config, registry) {
    this.#core = core;
    this.#handle = handle;
    this.#registry = registry;
    const rows = core.call('latentTensors', handle);
    if (rows === null) throw new HeadwiseError(core.call('lastError'));
    this.#rows = new Map(rows.map((row) => [row.name, row]));
    const headDim = config.headDim ?? config.dModel / config.heads;
    /** The configuration, as a multi-head layer's (headDim and concatWidth filled in). */
    this.config = Object.freeze({ ...config, headDim, concatWidth: config.heads * headDim });
    /**
     * Every tensor's shape: weights (in, out) wDkv, wUk, wUv, wq, wQr, wKr, wOut; input and
     * output (B, T, D), latent (B, T, kvLatent), ropeKey (B, T, ropeDim), attention (B, H, T, T).
     */
    this.shapes = deepFreeze(Object.fromEntries(rows.map((row) => [row.name, row.shape])));
  }

  get disposed() {
    return this.#handle === 0;
  }

  /**
   * The forward pass in one form ('explicit', the default, or 'absorbed'). With intermediates:
   * { output, form, latent, ropeKey, attention } (latent and ropeKey: what decode() caches).
   */
  forward(x, options) {
    const { form = 'explicit', intermediates = false } = optionsArgument('forward', options, ['form', 'intermediates']);
    if (!FORMS.includes(form))
      throw new RangeError(`form must be "explicit" or "absorbed", got ${JSON.stringify(form)}`);
    if (typeof intermediates !== 'boolean') {
      throw new TypeError(`intermediates must be true or false, got ${String(intermediates)}`);
    }
    this.#write([['input', 'x', x]]);
    if (!this.#core.call('latentForward', this.#live(), form === 'absorbed', intermediates)) {
      throw new HeadwiseError(this.#core.call('lastError'));
    }
    const output = this.#read('output');
    if (!intermediates) return output;
    return {
      output,
      form,
      latent: this.#read('latent'),
      ropeKey: this.#read('ropeKey'),
      attention: this.#read('attention'),
    };
  }

  /**
   * The explicit form's backward at the last forward()'s input, with the weights as they are now:
   * dy (batch, tokens, dModel) is the gradient of a loss with respect to the output, and the
   * result { dx, gradients } its gradient with respect to the input (batch, tokens, dModel) and
   * to every weight (gradients: wDkv, wUk, wUv, wq, wQr, wKr, wOut, each its weight's shape).
   * It runs the explicit forward again with attention kept, so forward(x, { intermediates: true })
   * after it is not needed. Weights are not changed.
   */
  backward(dy) {
    const handle = this.#live();
    const size = this.#size('output');
    const copy = floatArrayArgument('dy', dy, size, this.#rows.get('output').shape);
    if (!this.#core.call('latentPrepareBackward', handle)) throw new HeadwiseError(this.#core.call('lastError'));
    const names = this.#weightNames();
    this.#core.call('latentGradientView', handle, names.length + 1).set(copy);
    if (!this.#core.call('latentBackward', handle)) throw new HeadwiseError(this.#core.call('lastError'));
    const gradient = (i, name) =>
      this.#core.call('latentGradientView', handle, i)?.slice() ?? new Float32Array(this.#size(name));
    return {
      dx: gradient(names.length, 'input'),
      gradients: Object.fromEntries(names.map((name, i) => [name, gradient(i, name)])),
    };
  }

  /** Copies of the weights: wDkv, wUk, wUv, wq, wQr, wKr, wOut. */
  getWeights() {
    return Object.fromEntries(this.#weightNames().map((name) => [name, this.#read(name)]));
  }

  /** Replaces any of the weights; all given arrays are checked before any is written. */
  setWeights(weights) {
    if (weights === null || typeof weights !== 'object') {
      throw new TypeError('setWeights expects an object such as { wDkv, wUk, wUv, wq, wQr, wKr, wOut }');
    }
    const names = this.#weightNames();
    const writes = Object.keys(weights).map((name) => {
      if (!names.includes(name)) {
        throw new TypeError(`unknown weight ${JSON.stringify(name)} (this layer has ${names.join(', ')})`);
      }
      return [name, name, weights[name]];
    });
    this.#write(writes);
    this.#core.call('latentWeightsChanged', this.#live());
  }

  /**
   * Causal decoding with the latent cache: token (batch, dModel) is the next position of every
   * sequence; its latent and RoPE key are appended to the cache (kvLatent + ropeDim numbers per
   * position) and its output (batch, dModel) returned, by the absorbed form. N steps give
   * forward() of the N positions with causal: true (within 1e-5 + 1e-5 |ref|).
   */
  decode(token) {
    return decodeOn(this.#core, this.#live(), this.config, token, CACHE_CALLS.mla);
  }

  /** { length, capacity, bytes }: positions in the latent cache, the most it holds, its bytes. */
  get cache() {
    return cacheStateOn(this.#core, this.#live(), CACHE_CALLS.mla);
  }

  /** Frees the cache: the next decode() is position 0 again. */
  resetCache() {
    this.#core.call(CACHE_CALLS.mla.reset, this.#live());
  }

  /** Frees the layer's memory in the module. Calling it twice is harmless. */
  dispose() {
    if (this.#handle === 0) return;
    if (this.#core.stoppedReason === null) this.#core.call('disposeLatent', this.#handle);
    this.#registry.unregister(this);
    this.#handle = 0;
  }

  #weightNames() {
    return [...this.#rows.values()].filter((row) => row.weight).map((row) => row.name);
  }

  #live() {
    if (this.#handle === 0) throw new HeadwiseError('this attention layer was disposed');
    return this.#handle;
  }

  // Views into wasm memory go stale when memory grows: take one, use it at once, never keep it.
  #read(name) {
    return this.#core.call('latentView', this.#live(), this.#rows.get(name).id).slice();
  }

  #size(name) {
    return this.#rows.get(name).shape.reduce((a, b) => a * b, 1);
  }

  // Every argument is checked into a private copy first; only then are the copies written.
  #write(writes) {
    const copies = writes.map(([name, label, value]) => {
      const { id, shape } = this.#rows.get(name);
      return [id, floatArrayArgument(label, value, this.#size(name), shape)];
    });
    for (const [id, copy] of copies) this.#core.call('latentView', this.#live(), id).set(copy);
  }
}
