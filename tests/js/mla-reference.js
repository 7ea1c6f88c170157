// Multi-head latent attention written out in doubles (DeepSeek-V2 without the query
// compression), for the tests of createAttention({ attention: 'mla' }) and its backward.

// RoPE as the core's rope kind: pairs (2i, 2i+1) turned by t * 10000^(-2i / dim).
function rope(vector, t) {
  const dim = vector.length;
  const out = [...vector];
  for (let i = 0; 2 * i + 1 < dim; i += 1) {
    const angle = t * 10000 ** ((-2 * i) / dim);
    const [x, y] = [vector[2 * i], vector[2 * i + 1]];
    out[2 * i] = x * Math.cos(angle) - y * Math.sin(angle);
    out[2 * i + 1] = x * Math.sin(angle) + y * Math.cos(angle);
  }
  return out;
}

// Row `row` of x (rows x n, row-major) times columns [from, from + width) of w (n x cols).
export function rowTimes(x, row, n, w, cols, from, width) {
  const out = new Array(width).fill(0);
  for (let j = 0; j < width; j += 1) for (let k = 0; k < n; k += 1) out[j] += x[row * n + k] * w[k * cols + from + j];
  return out;
}
const dot = (a, b) => a.reduce((sum, v, i) => sum + v * b[i], 0);

// DeepSeek-V2's attention (arXiv 2405.04434, eqs. 9-19, without the query compression), in doubles.
export function referenceMla(config, w, x) {
  const { batch: B, tokens: T, dModel: D, heads: H, headDim: dh, kvLatent: dc, ropeDim: dr, causal } = config;
  const C = H * dh;
  const y = new Float64Array(B * T * D);
  for (let b = 0; b < B; b += 1) {
    const rows = Array.from({ length: T }, (_, t) => b * T + t);
    const c = rows.map((r) => rowTimes(x, r, D, w.wDkv, dc, 0, dc)); // the latent
    const kr = rows.map((r, t) => rope(rowTimes(x, r, D, w.wKr, dr, 0, dr), t)); // shared RoPE key
    const concat = rows.map(() => new Array(C).fill(0));
    for (let h = 0; h < H; h += 1) {
      const q = rows.map((r) => rowTimes(x, r, D, w.wq, C, h * dh, dh));
      const qr = rows.map((r, t) => rope(rowTimes(x, r, D, w.wQr, H * dr, h * dr, dr), t));
      const k = c.map((_, t) => rowTimes(c.flat(), t, dc, w.wUk, C, h * dh, dh)); // up-projections
      const v = c.map((_, t) => rowTimes(c.flat(), t, dc, w.wUv, C, h * dh, dh));
      for (let i = 0; i < T; i += 1) {
        const visible = causal ? i + 1 : T;
        const s = Array.from({ length: visible }, (_, j) => (dot(q[i], k[j]) + dot(qr[i], kr[j])) / Math.sqrt(dh + dr));
        const top = Math.max(...s);
        const e = s.map((v0) => Math.exp(v0 - top));
        const sum = e.reduce((a, v0) => a + v0, 0);
        for (let j = 0; j < visible; j += 1)
          for (let d = 0; d < dh; d += 1) concat[i][h * dh + d] += (e[j] / sum) * v[j][d];
      }
    }
    for (let t = 0; t < T; t += 1) {
      const out = rowTimes(concat.flat(), t, C, w.wOut, D, 0, D);
      y.set(out, (b * T + t) * D);
    }
  }
  return y;
}
