// The forward split by heads. Part p owns heads [h0, h1): its q, k, v come from columns
// [h0*hd, h1*hd) of Wq, Wk, Wv (and bq, bk, bv), its context meets rows [h0*hd, h1*hd) of W_out,
// and its output is that block's share of concat @ W_out. The shares are summed in part order and
// b_out is added once, at the end.

/** Contiguous, balanced head ranges for `parts` instances (never more parts than heads). */
export function headRanges(heads, parts) {
  const n = Math.max(1, Math.min(parts, heads));
  return Array.from({ length: n }, (_, p) => [Math.floor((p * heads) / n), Math.floor(((p + 1) * heads) / n)]);
}

// Columns [c0, c1) of a row-major (rows, width) matrix.
function columns(matrix, rows, width, c0, c1) {
  const out = new Float32Array(rows * (c1 - c0));
  for (let r = 0; r < rows; r += 1) out.set(matrix.subarray(r * width + c0, r * width + c1), r * (c1 - c0));
  return out;
}

/** A part's layer configuration: the same layer with heads h1 - h0 of the same headDim. */
export function partConfig(config, [h0, h1]) {
  const { batch, tokens, dModel, headDim, causal, bias } = config;
  return { batch, tokens, dModel, heads: h1 - h0, headDim, causal, bias };
}

/** A part's weights from the whole layer's (getWeights()); b_out stays with the pool (zeros here). */
export function partWeights(weights, config, [h0, h1]) {
  const { dModel: D, headDim: hd, concatWidth: C } = config;
  const [c0, c1] = [h0 * hd, h1 * hd];
  const part = {
    wq: columns(weights.wq, D, C, c0, c1),
    wk: columns(weights.wk, D, C, c0, c1),
    wv: columns(weights.wv, D, C, c0, c1),
    wOut: weights.wOut.slice(c0 * D, c1 * D),
  };
  if (config.bias) {
    Object.assign(part, {
      bq: weights.bq.slice(c0, c1),
      bk: weights.bk.slice(c0, c1),
      bv: weights.bv.slice(c0, c1),
      bOut: new Float32Array(D),
    });
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
