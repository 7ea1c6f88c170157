// GFLOP/s of the small products of the 2-layer induction training step (d_model 64, 4 heads of
// 16, T = 64 tokens, 32 sequences: rows 2048), each form the step uses, on the packed and the
// direct path and as gemm_f32 chooses, in wasm SIMD128 under Node (process CPU time); the large forward product of
// bench/gemm.mjs as the ceiling, in the same sitting. Paired: the paths of one form take turns.
// Usage: node bench/gemm-small.mjs   (bench/build-kernels.sh first)
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';

const require = createRequire(import.meta.url);
const k = await require('./build/kernels.cjs')();
const PATHS = [
  [0, 'chosen'],
  [1, 'packed'],
  [2, 'direct'],
];
const FORMS = [
  [0, 'AB'],
  [8, 'ABt'],
  [4, 'AtB'],
  [16, 'AB+C'],
  [4 | 16, 'AtB+C'],
];
// M K N: the projections (rows x 64 x 64), their weight gradients (64 x rows x 64), one head's
// scores (64 x 16 x 64) and context (64 x 64 x 16).
const SHAPES = [
  [2048, 64, 64],
  [64, 2048, 64],
  [64, 16, 64],
  [64, 64, 16],
  [2048, 64, 16],
  [2048, 16, 16],
];
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];

// CPU time, not wall: on a shared machine a thread is preempted for whole time slices, and the CPU
// time of this single-threaded process is what the product itself took.
function timeIt(flags, M, K, N, a, b, c, count) {
  const t0 = process.cpuUsage();
  k._bench_gemm_many(flags, count, M, N, K, a, b, c);
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / 1000;
}

function bench(M, K, N, forms, paths) {
  const a = k._malloc(M * K * 4),
    b = k._malloc(K * N * 4),
    c = k._malloc(M * N * 4);
  for (let i = 0; i < M * K; ++i) k.HEAPF32[(a >> 2) + i] = Math.sin(i);
  for (let i = 0; i < K * N; ++i) k.HEAPF32[(b >> 2) + i] = Math.cos(i);
  for (let i = 0; i < M * N; ++i) k.HEAPF32[(c >> 2) + i] = 0;
  const count = Math.max(1, Math.round(2e7 / (M * N * K))); // ~20 ms a sample at 2 GFLOP/s
  const rows = [];
  for (const [form, formName] of forms) {
    const sides = paths.map(([p, name]) => ({ flags: form | p, name, times: [] }));
    for (const s of sides) for (let w = 0; w < 5; ++w) timeIt(s.flags, M, K, N, a, b, c, count);
    for (let r = 0; r < 11; ++r)
      for (let i = 0; i < sides.length; ++i) {
        const s = sides[(r + i) % sides.length];
        s.times.push(timeIt(s.flags, M, K, N, a, b, c, count) / count);
      }
    const line = sides.map((s) => `${s.name} ${((2 * M * N * K) / (median(s.times) * 1e6)).toFixed(1)}`);
    rows.push(`| ${M}x${K}x${N} | ${formName} | ${line.join(' | ')} |`);
  }
  k._free(a);
  k._free(b);
  k._free(c);
  return rows;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`${cpus()[0].model}, Node ${process.version}; load at start ${load()}`);
const ceiling = () => bench(1024, 768, 2304, [[0, 'AB']], [[1, 'packed']])[0];
console.log(`ceiling at start: ${ceiling()}`);
console.log('| M x K x N | form | GFLOP/s: chosen | packed | direct |');
console.log('|---|---|---:|---:|---:|');
for (const [M, K, N] of SHAPES) for (const row of bench(M, K, N, FORMS, PATHS)) console.log(row);
console.log(`ceiling at end: ${ceiling()}; load at end ${load()}`);
