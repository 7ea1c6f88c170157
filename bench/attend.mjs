// Tiled attention alone in wasm SIMD128 under Node: GFLOP/s of the causal T x T work.
// Usage: node bench/attend.mjs [T ...]   (bench/build-kernels.sh first)
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const createKernels = require('./build/kernels.cjs');

export async function benchAttend(tokensList, { heads = 12, headDim = 64, reps = 5 } = {}) {
  const k = await createKernels();
  const rows = [];
  for (const T of tokensList) {
    const n = heads * T * headDim;
    const [q, kk, v, ctx] = [0, 1, 2, 3].map(() => k._malloc(n * 4));
    const scratch = k._malloc(k._bench_head_scratch_floats(T, headDim) * 4);
    for (const p of [q, kk, v]) for (let i = 0; i < n; ++i) k.HEAPF32[(p >> 2) + i] = Math.sin(i * 0.37 + p);
    for (let w = 0; w < 10; ++w) k._bench_attend(heads, T, headDim, 1, q, kk, v, scratch, ctx);
    const times = [];
    for (let r = 0; r < reps; ++r) {
      const t0 = performance.now();
      k._bench_attend(heads, T, headDim, 1, q, kk, v, scratch, ctx);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const median = times[times.length >> 1];
    const flops = (2 * 2 * heads * headDim * (T * (T + 1))) / 2; // QK^T and PV, causal half
    rows.push({ T, medianMs: median, min: times[0], max: times.at(-1), gflops: flops / (median * 1e6) });
    for (const p of [q, kk, v, ctx, scratch]) k._free(p);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const list = process.argv.slice(2).map(Number);
  for (const r of await benchAttend(list.length ? list : [128, 1024, 4096])) {
    console.log(
      `T=${r.T}: ${r.medianMs.toFixed(2)} ms (${r.min.toFixed(2)}-${r.max.toFixed(2)})  ` +
        `${r.gflops.toFixed(1)} GFLOP/s`,
    );
  }
}
