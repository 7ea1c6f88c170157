// An independent double-precision multi-head attention in plain loops, for the tests only.
// Weights: wq, wk, wv (d, C) and wOut (C, d), row-major; optional biases.
// positions (optional, in doubles): rotate(t, vector) turns a head's q or k to position t in
// place (RoPE), bias(h, i, j) is added to head h's scaled score of query i on key j (ALiBi).

export function referenceMha({ batch: B, tokens: T, dModel: D, heads: H, headDim: hd, causal }, w, x, positions = {}) {
  const C = H * hd;
  const qh = new Float64Array(B * H * T * hd);
  const kh = new Float64Array(B * H * T * hd);
  const vh = new Float64Array(B * H * T * hd);
  const scores = new Float64Array(B * H * T * T);
  const attention = new Float64Array(B * H * T * T);
  const context = new Float64Array(B * H * T * hd);
  const concat = new Float64Array(B * T * C);
  const output = new Float64Array(B * T * D);
  const at = (b, h, t, e) => ((b * H + h) * T + t) * hd + e;
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < T; t++) {
        for (let e = 0; e < hd; e++) {
          const col = h * hd + e;
          let q = w.bq ? w.bq[col] : 0,
            k = w.bk ? w.bk[col] : 0,
            v = w.bv ? w.bv[col] : 0;
          for (let i = 0; i < D; i++) {
            const xi = x[(b * T + t) * D + i];
            q += xi * w.wq[i * C + col];
            k += xi * w.wk[i * C + col];
            v += xi * w.wv[i * C + col];
          }
          qh[at(b, h, t, e)] = q;
          kh[at(b, h, t, e)] = k;
          vh[at(b, h, t, e)] = v;
        }
        if (positions.rotate) {
          positions.rotate(t, qh.subarray(at(b, h, t, 0), at(b, h, t, hd)));
          positions.rotate(t, kh.subarray(at(b, h, t, 0), at(b, h, t, hd)));
        }
      }
      for (let i = 0; i < T; i++) {
        const row = ((b * H + h) * T + i) * T;
        let max = -Infinity;
        for (let j = 0; j < T; j++) {
          if (causal && j > i) {
            scores[row + j] = -Infinity;
            continue;
          }
          let dot = 0;
          for (let e = 0; e < hd; e++) dot += qh[at(b, h, i, e)] * kh[at(b, h, j, e)];
          scores[row + j] = dot / Math.sqrt(hd) + (positions.bias ? positions.bias(h, i, j) : 0);
          max = Math.max(max, scores[row + j]);
        }
        let sum = 0;
        for (let j = 0; j < T; j++) {
          attention[row + j] = scores[row + j] === -Infinity ? 0 : Math.exp(scores[row + j] - max);
          sum += attention[row + j];
        }
        for (let j = 0; j < T; j++) attention[row + j] /= sum;
        for (let e = 0; e < hd; e++) {
          let c = 0;
          for (let j = 0; j < T; j++) c += attention[row + j] * vh[at(b, h, j, e)];
          context[at(b, h, i, e)] = c;
          concat[(b * T + i) * C + h * hd + e] = c;
        }
      }
    }
  }
  for (let r = 0; r < B * T; r++) {
    for (let o = 0; o < D; o++) {
      let y = w.bOut ? w.bOut[o] : 0;
      for (let c = 0; c < C; c++) y += concat[r * C + c] * w.wOut[c * D + o];
      output[r * D + o] = y;
    }
  }
  return { q: qh, k: kh, v: vh, scores, attention, context, concat, output };
}

// |actual - expected| <= atol + rtol * |expected| element-wise; infinities must match exactly.
// Returns the worst difference and a description of the first failure (or null).
export function compare(actual, expected, atol = 1e-5, rtol = 1e-5) {
  if (actual.length !== expected.length) {
    return { maxDiff: Infinity, failure: `length ${actual.length} != ${expected.length}` };
  }
  let maxDiff = 0;
  let failure = null;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i],
      e = expected[i];
    if (!Number.isFinite(e) || !Number.isFinite(a)) {
      if (a !== e && !failure) failure = `at ${i}: got ${a}, expected ${e}`;
      continue;
    }
    const diff = Math.abs(a - e);
    maxDiff = Math.max(maxDiff, diff);
    if (!(diff <= atol + rtol * Math.abs(e)) && !failure) {
      failure = `at ${i}: got ${a}, expected ${e} (|diff| ${diff}, atol ${atol}, rtol ${rtol})`;
    }
  }
  return { maxDiff, failure };
}
