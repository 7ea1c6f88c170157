// The forward split by heads. Part p owns heads [h0, h1): its q, k, v come from columns
// [h0*hd, h1*hd) of Wq, Wk, Wv (and bq, bk, bv), its context meets rows [h0*hd, h1*hd) of W_out,
// and its output is that block's share of concat @ W_out. The shares are summed in part order and
// b_out is added once, at the end. A part is the whole layer's configuration (every option, so
// its positions too) with its head range (headOffset, totalHeads: ALiBi's slopes depend on a
// head's index among all heads); its weights are cut from the whole layer's along the axis the
// core's tensor table names C (heads x headDim), and the rest (a learned position table) is whole.

/**
 * Contiguous, balanced head ranges for `parts` instances (never more parts than heads). With
 * shared keys and values (kvHeads < heads) the ranges follow the K/V groups: a part owns whole
 * groups, so each of its query heads finds its K/V head in the part.
 */
export function headRanges(heads, parts, kvHeads = heads) {
  const group = heads / kvHeads;
  const n = Math.max(1, Math.min(parts, kvHeads));
  return Array.from({ length: n }, (_, p) => [
    Math.floor((p * kvHeads) / n) * group,
    Math.floor(((p + 1) * kvHeads) / n) * group,
  ]);
}

// [c0, c1) of axis `axis` of a row-major array of `sizes`.
function cut(values, sizes, axis, c0, c1) {
  const inner = sizes.slice(axis + 1).reduce((a, b) => a * b, 1);
  const outer = sizes.slice(0, axis).reduce((a, b) => a * b, 1);
  const [from, width] = [c0 * inner, (c1 - c0) * inner];
  const out = new Float32Array(outer * width);
  for (let o = 0; o < outer; o += 1) {
    const start = o * sizes[axis] * inner + from;
    out.set(values.subarray(start, start + width), o * width);
  }
  return out;
}

/**
 * A part's layer configuration: the whole layer's options (config as MultiHeadAttention.config
 * has them, derived concatWidth left out) with heads h1 - h0 placed at h0 among all the heads.
 */
export function partConfig(config, [h0, h1]) {
  const { concatWidth, heads, headOffset = 0, totalHeads = 0, kvHeads, ...options } = config;
  const part = { ...options, heads: h1 - h0, headOffset: headOffset + h0, totalHeads: totalHeads || heads };
  if (kvHeads !== undefined) part.kvHeads = ((h1 - h0) * kvHeads) / heads; // its whole K/V groups
  return Object.fromEntries(Object.entries(part).filter(([, value]) => value !== undefined));
}

/**
 * A part's weights from the whole layer's (getWeights()): `rows` maps a name to the core's tensor
 * row ({ role, shape } in dimension symbols). A tensor with a C axis gets the part's slice of it;
 * a bias without one (b_out, added after the parts are summed) stays with the pool (zeros here);
 * anything else (the learned position table) goes whole.
 */
export function partWeights(weights, rows, config, [h0, h1]) {
  const { batch: B, tokens: T, dModel: D, heads: H, headDim: hd, concatWidth: C } = config;
  // The K/V tensors (Ckv = kvHeads x hd) are cut at the part's K/V heads: its query heads' groups.
  const group = H / (config.kvHeads ?? H);
  const symbols = { B, T, D, H, hd, C, Ckv: C / group };
  const ranges = { C: [h0 * hd, h1 * hd], Ckv: [(h0 / group) * hd, (h1 / group) * hd] };
  const part = {};
  for (const [name, values] of Object.entries(weights)) {
    const { role, shape } = rows.get(name);
    const axis = shape.findIndex((s) => s === 'C' || s === 'Ckv');
    if (axis >= 0)
      part[name] = cut(
        values,
        shape.map((s) => symbols[s]),
        axis,
        ...ranges[shape[axis]],
      );
    else part[name] = role === 'bias' ? new Float32Array(values.length) : values.slice();
  }
  return part;
}

/** The parts' outputs summed in order, then b_out (or nothing) added: a new array. */
export function sumParts(outputs, bOut) {
  const sum = outputs[0].slice();
  for (let p = 1; p < outputs.length; p += 1) {
    const part = outputs[p];
    for (let i = 0; i < sum.length; i += 1) sum[i] += part[i];
  }
  if (bOut) {
    const D = bOut.length;
    for (let i = 0; i < sum.length; i += D) for (let j = 0; j < D; j += 1) sum[i + j] += bOut[j];
  }
  return sum;
}

/** Multiply-adds x 2 of the projections, QK^T and PV (the causal half when causal), and W_out. */
export function flopsOf({ batch: B, tokens: T, dModel: D, heads: H, headDim: hd, causal }) {
  const C = H * hd;
  const pairs = causal ? (T * (T + 1)) / 2 : T * T;
  return 2 * B * T * D * C * 3 + 2 * 2 * B * H * hd * pairs + 2 * B * T * C * D;
}
