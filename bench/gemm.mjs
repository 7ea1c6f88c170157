// GEMM GFLOP/s in wasm SIMD128 under Node: the packed and the direct path of the forward product
// C = A B, then the backward's forms through the chosen path (A or B transposed, accumulating).
// Usage: node bench/gemm.mjs [--forward] [M K N ...]   (bench/build-kernels.sh first)
// KERNELS=other/kernels.cjs times another build (e.g. an older commit's) with the same harness;
// --forward times only the forward rows, which every build has.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const createKernels = require(process.env.KERNELS ? path.resolve(process.env.KERNELS) : './build/kernels.cjs');

// bench_gemm's path argument (bench/wasm/kernel_bench.cpp): low bits the path, then flags.
const FORWARD = [
  [1, 'packed'],
  [2, 'direct'],
];
const BACKWARD = [
  [4, 'AtB'],
  [8, 'ABt'],
  [12, 'AtBt'],
  [16, 'AB+C'],
  [4 | 16, 'AtB+C'],
];

// backward: also time the backward's forms (off for callers that tabulate the forward only).
export async function benchGemm(shapes, { reps = 7, backward = false } = {}) {
  const k = await createKernels();
  const rows = [];
  const forms = backward ? [...FORWARD, ...BACKWARD] : FORWARD;
  for (const [M, K, N] of shapes) {
    const a = k._malloc(M * K * 4),
      b = k._malloc(K * N * 4),
      c = k._malloc(M * N * 4);
    for (let i = 0; i < M * K; ++i) k.HEAPF32[(a >> 2) + i] = Math.sin(i);
    for (let i = 0; i < K * N; ++i) k.HEAPF32[(b >> 2) + i] = Math.cos(i);
    for (let i = 0; i < M * N; ++i) k.HEAPF32[(c >> 2) + i] = 0;
    for (const [flags, name] of forms) {
      for (let w = 0; w < 3; ++w) k._bench_gemm(flags, M, N, K, a, b, c); // V8 tiers up on later calls
      const times = [];
      for (let r = 0; r < reps; ++r) {
        const t0 = performance.now();
        k._bench_gemm(flags, M, N, K, a, b, c);
        times.push(performance.now() - t0);
      }
      times.sort((x, y) => x - y);
      const median = times[times.length >> 1];
      rows.push({
        shape: `${M}x${K}x${N}`,
        path: name,
        medianMs: median,
        min: times[0],
        max: times.at(-1),
        gflops: (2 * M * N * K) / (median * 1e6),
      });
    }
    k._free(a);
    k._free(b);
    k._free(c);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const forwardOnly = process.argv.includes('--forward');
  const args = process.argv
    .slice(2)
    .filter((s) => s !== '--forward')
    .map(Number);
  const shapes = [];
  for (let i = 0; i + 2 < args.length; i += 3) shapes.push(args.slice(i, i + 3));
  if (!shapes.length) shapes.push([1024, 768, 2304], [1024, 768, 768], [128, 768, 2304]);
  for (const r of await benchGemm(shapes, { backward: !forwardOnly })) {
    console.log(
      `${r.shape.padEnd(16)} ${r.path.padEnd(7)} ${r.medianMs.toFixed(2)} ms ` +
        `(${r.min.toFixed(2)}-${r.max.toFixed(2)})  ${r.gflops.toFixed(1)} GFLOP/s`,
    );
  }
}
