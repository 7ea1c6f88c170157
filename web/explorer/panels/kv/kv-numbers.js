// Sharing keys and values: the panel's numbers, every one computed by the module through the public
// API on the lecture's sentence. A multi-head layer (KV_HEADS query heads) and, from its weights, a
// layer whose query heads share kvHeads K/V heads: Wq, Wout and their biases as they are, each group's
// K and V projections mean-pooled (Ainslie et al. 2023, arXiv 2305.13245, the conversion of a
// multi-head checkpoint to GQA). With kvHeads = heads the pooling is the identity, so the two layers
// must agree bit for bit; with fewer K/V heads the output moves, by what is printed. Then the shared
// layer decodes the sentence one token at a time (its KV cache growing) against its causal forward
// pass, and the presets' cache per token comes from hw.cacheBytes. Beside it, multi-head latent
// attention (latentNumbers) on the same sentence: its two forms and its cache as the core gave them.
import { tokenize } from '../../lecture/tokenizer.js';
import { embedTokens } from '../../lecture/token-embeddings.js';
import { DEFAULT_SENTENCE } from '../../lecture/presets.js';
import { largestAbs, maxAbsDiff } from '../../arrays.js';

export const KV_SENTENCE = DEFAULT_SENTENCE;
/** Query heads of the panel's layer: 8, so that 8, 4, 2 and 1 K/V heads divide them. */
export const KV_HEADS = 8;
export const KV_WIDTH = 32;
// Word vectors scaled so that the maps are not near uniform (as word order's numbers do).
export const KV_INPUT_SCALE = 4;

/** The K/V head counts a layer of `heads` query heads offers: its divisors, largest first. */
export const kvChoices = (heads = KV_HEADS) =>
  Array.from({ length: heads }, (_, i) => heads - i).filter((k) => heads % k === 0);

/**
 * Mean-pools the K/V heads of a (rows, heads * headDim) row-major matrix (or a bias, rows 1) into
 * kvHeads heads: K/V head g is the mean of query heads g*group .. (g+1)*group - 1. With kvHeads =
 * heads it returns the same numbers (a copy).
 */
export function poolHeads(matrix, rows, heads, headDim, kvHeads) {
  const group = heads / kvHeads;
  const out = new Float32Array(rows * kvHeads * headDim);
  for (let r = 0; r < rows; r += 1)
    for (let g = 0; g < kvHeads; g += 1)
      for (let d = 0; d < headDim; d += 1) {
        let s = 0;
        for (let m = 0; m < group; m += 1) s += matrix[r * heads * headDim + (g * group + m) * headDim + d];
        out[r * kvHeads * headDim + g * headDim + d] = group === 1 ? s : s / group;
      }
  return out;
}

/** The shared layer's weights made from the multi-head layer's: K and V pooled per group. */
export function sharedWeights(weights, { dModel, heads, kvHeads }) {
  const hd = dModel / heads;
  const out = { wq: weights.wq, wOut: weights.wOut };
  out.wk = poolHeads(weights.wk, dModel, heads, hd, kvHeads);
  out.wv = poolHeads(weights.wv, dModel, heads, hd, kvHeads);
  for (const name of ['bq', 'bOut']) if (weights[name]) out[name] = weights[name];
  for (const name of ['bk', 'bv']) if (weights[name]) out[name] = poolHeads(weights[name], 1, heads, hd, kvHeads);
  return out;
}

/**
 * Everything the panel draws, for kvHeads K/V heads of KV_HEADS: { tokens, config, kvHeads,
 * kvHeadOf, attention (H, T, T), mha: { attention, output }, output, equal: { maxDiff } (kvHeads =
 * heads against multi-head), moved: { maxDiff, scale }, cache: [{ token, length, capacity, allocated,
 * bytes, mhaBytes }] (bytes: the filled positions' share of the allocated cache),
 * decode: { maxDiff, scale }, presets: [{ name, label, source, bars: [{ name, bytes }] }] }.
 */
export function kvNumbers({ hw, withLayer }, { seed, kvHeads }) {
  const { tokens, x } = panelInput(hw);
  const T = tokens.length;
  const dModel = KV_WIDTH;
  const heads = KV_HEADS;
  const config = { batch: 1, tokens: T, dModel, heads, causal: true, seed };
  // Decodes x one token at a time; the cache after each step and the outputs, stacked.
  const decodeAll = (layer) => {
    layer.resetCache();
    const out = new Float32Array(T * dModel);
    const cache = [];
    for (let t = 0; t < T; t += 1) {
      out.set(layer.decode(x.subarray(t * dModel, (t + 1) * dModel)), t * dModel);
      cache.push(layer.cache);
    }
    return { out, cache };
  };
  return withLayer(config, (mha) => {
    const base = mha.forward(x, { intermediates: true });
    const mhaDecoded = decodeAll(mha);
    const weights = mha.getWeights();
    const run = (k) =>
      withLayer({ ...config, kvHeads: k }, (layer) => {
        layer.setWeights(sharedWeights(weights, { dModel, heads, kvHeads: k }));
        const result = layer.forward(x, { intermediates: true });
        return { result, decoded: k === kvHeads ? decodeAll(layer) : null };
      });
    const shared = run(kvHeads);
    const all = kvHeads === heads ? shared : run(heads);
    const output = shared.result.output;
    const { out, cache } = shared.decoded;
    return {
      sentence: KV_SENTENCE,
      tokens,
      config: { ...config, kvHeads },
      kvHeads,
      inputScale: KV_INPUT_SCALE,
      input: x,
      kvHeadOf: Array.from(shared.result.kvHeadOf),
      attention: shared.result.attention,
      output,
      mha: { attention: base.attention, output: base.output },
      equal: { maxDiff: maxAbsDiff(all.result.output, base.output) },
      moved: { maxDiff: maxAbsDiff(output, base.output), scale: largestAbs(base.output) },
      // The core allocates the cache for the layer's `tokens` positions at the first step
      // (layer.cache.bytes); the positions filled so far hold length / capacity of it.
      cache: cache.map((c, t) => {
        const m = mhaDecoded.cache[t];
        return {
          token: tokens[t],
          length: c.length,
          capacity: c.capacity,
          allocated: c.bytes,
          bytes: (c.length * c.bytes) / c.capacity,
          mhaBytes: (m.length * m.bytes) / m.capacity,
        };
      }),
      decode: { maxDiff: maxAbsDiff(out, output), scale: largestAbs(output) },
      presets: presetBars(hw),
    };
  });
}

// The lecture's sentence as the panel's layers read it: its tokens' vectors, scaled.
function panelInput(hw) {
  const { tokens } = tokenize(KV_SENTENCE);
  return { tokens, x: embedTokens(hw, tokens, KV_WIDTH).map((v) => v * KV_INPUT_SCALE) };
}

/** The latent layer beside the panel's: KV_HEADS heads, a latent of 8 and a RoPE key of 2 a position. */
export const MLA_LATENT = 8;
export const MLA_ROPE = 2;

/**
 * Multi-head latent attention (DeepSeek-V2) on the sentence, at the panel's width and heads: its
 * explicit and absorbed forms (forms: { maxDiff, scale }), its decode steps against its forward
 * pass (decode: { maxDiff }), and its cache per token against multi-head's K and V (perToken:
 * { numbers, bytes, mhaNumbers, mhaBytes }, float32; bytes from the layer's own cache), and the
 * cache after each step (cache: [bytes], the filled share of the allocated cache).
 */
export function latentNumbers({ hw, withLayer }, { seed }) {
  const { tokens, x } = panelInput(hw);
  const T = tokens.length;
  const config = {
    batch: 1,
    tokens: T,
    dModel: KV_WIDTH,
    heads: KV_HEADS,
    seed,
    attention: 'mla',
    kvLatent: MLA_LATENT,
    ropeDim: MLA_ROPE,
  };
  return withLayer(config, (layer) => {
    const explicit = layer.forward(x);
    const absorbed = layer.forward(x, { form: 'absorbed' });
    const decoded = new Float32Array(T * KV_WIDTH);
    const cache = [];
    for (let t = 0; t < T; t += 1) {
      decoded.set(layer.decode(x.subarray(t * KV_WIDTH, (t + 1) * KV_WIDTH)), t * KV_WIDTH);
      const c = layer.cache;
      cache.push((c.length * c.bytes) / c.capacity);
    }
    const sizes = hw.cacheBytes({
      heads: KV_HEADS,
      headDim: KV_WIDTH / KV_HEADS,
      attention: 'mla',
      kvLatent: MLA_LATENT,
      ropeDim: MLA_ROPE,
      bytesPerNumber: 4,
    });
    return {
      config,
      forms: { maxDiff: maxAbsDiff(explicit, absorbed), scale: largestAbs(explicit) },
      decode: { maxDiff: maxAbsDiff(decoded, explicit) },
      perToken: {
        numbers: sizes.numbersPerTokenPerLayer,
        bytes: layer.cache.bytes / T,
        mhaNumbers: sizes.mhaNumbersPerTokenPerLayer,
        mhaBytes: sizes.mhaBytesPerToken,
      },
      cache,
    };
  });
}

/**
 * The presets' KV cache per token, from hw.cacheBytes: each model's own (grouped, or the latent)
 * and, where it differs, the same model with every head keeping its own K and V.
 */
export function presetBars(hw) {
  return hw.cachePresets().map((p) => {
    const sizes = hw.cacheBytes(p.name);
    const own = p.kvLatent > 0 ? `latent ${p.kvLatent} + ${p.ropeDim}` : `${p.kvHeads} K/V heads`;
    const bars = [{ name: own, bytes: sizes.bytesPerToken }];
    if (sizes.mhaBytesPerToken !== sizes.bytesPerToken)
      bars.push({ name: `${p.heads} K/V heads (MHA)`, bytes: sizes.mhaBytesPerToken, mha: true });
    return { name: p.name, label: p.label, source: p.source, bars };
  });
}
