// Plain JavaScript on Float32Array: the textbook fused computation, loops ordered for rows.
function matmul(a, b, m, k, n) {
  // (m x k) @ (k x n)
  const c = new Float32Array(m * n);
  for (let i = 0; i < m; ++i) {
    for (let p = 0; p < k; ++p) {
      const av = a[i * k + p],
        bo = p * n,
        co = i * n;
      for (let j = 0; j < n; ++j) c[co + j] += av * b[bo + j];
    }
  }
  return c;
}

export function forward(c, { x, wq, wk, wv, wOut }) {
  const { batch: B, tokens: T, dModel: D, heads: H, headDim: hd } = c;
  const C = H * hd,
    rows = B * T,
    scale = 1 / Math.sqrt(hd);
  const q = matmul(x, wq, rows, D, C),
    k = matmul(x, wk, rows, D, C),
    v = matmul(x, wv, rows, D, C);
  const concat = new Float32Array(rows * C),
    w = new Float32Array(T);
  for (let b = 0; b < B; ++b) {
    for (let h = 0; h < H; ++h) {
      for (let i = 0; i < T; ++i) {
        const qo = (b * T + i) * C + h * hd,
          visible = c.causal ? i + 1 : T;
        let max = -Infinity;
        for (let j = 0; j < visible; ++j) {
          const ko = (b * T + j) * C + h * hd;
          let s = 0;
          for (let d = 0; d < hd; ++d) s += q[qo + d] * k[ko + d];
          w[j] = s * scale;
          if (w[j] > max) max = w[j];
        }
        let sum = 0;
        for (let j = 0; j < visible; ++j) sum += w[j] = Math.exp(w[j] - max);
        for (let j = 0; j < visible; ++j) {
          const p = w[j] / sum,
            vo = (b * T + j) * C + h * hd;
          for (let d = 0; d < hd; ++d) concat[qo + d] += p * v[vo + d];
        }
      }
    }
  }
  return matmul(concat, wOut, rows, C, D);
}

export async function prepare(c, data) {
  let output;
  return {
    run() {
      output = forward(c, data);
    },
    output: () => output,
  };
}
