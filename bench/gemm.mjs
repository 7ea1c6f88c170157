// GEMM GFLOP/s in wasm SIMD128 under Node: the packed and the direct path at the projection shape.
// Usage: node bench/gemm.mjs [M K N ...]   (bench/build-kernels.sh first)
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const createKernels = require('./build/kernels.cjs');

export async function benchGemm(shapes, { reps = 7 } = {}) {
  const k = await createKernels();
  const rows = [];
  for (const [M, K, N] of shapes) {
    const a = k._malloc(M * K * 4), b = k._malloc(K * N * 4), c = k._malloc(M * N * 4);
    for (let i = 0; i < M * K; ++i) k.HEAPF32[(a >> 2) + i] = Math.sin(i);
    for (let i = 0; i < K * N; ++i) k.HEAPF32[(b >> 2) + i] = Math.cos(i);
    for (const [path, name] of [[1, 'packed'], [2, 'direct']]) {
      for (let w = 0; w < 3; ++w) k._bench_gemm(path, M, N, K, a, b, c);  // V8 tiers up on later calls
      const times = [];
      for (let r = 0; r < reps; ++r) {
        const t0 = performance.now();
        k._bench_gemm(path, M, N, K, a, b, c);
        times.push(performance.now() - t0);
      }
      times.sort((x, y) => x - y);
      const median = times[times.length >> 1];
      rows.push({ shape: `${M}x${K}x${N}`, path: name, medianMs: median, min: times[0],
        max: times.at(-1), gflops: (2 * M * N * K) / (median * 1e6) });
    }
    k._free(a); k._free(b); k._free(c);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2).map(Number);
  const shapes = [];
  for (let i = 0; i + 2 < args.length; i += 3) shapes.push(args.slice(i, i + 3));
  if (!shapes.length) shapes.push([1024, 768, 2304], [1024, 768, 768], [128, 768, 2304]);
  for (const r of await benchGemm(shapes)) {
    console.log(`${r.shape.padEnd(16)} ${r.path.padEnd(7)} ${r.medianMs.toFixed(2)} ms `
      + `(${r.min.toFixed(2)}-${r.max.toFixed(2)})  ${r.gflops.toFixed(1)} GFLOP/s`);
  }
}
