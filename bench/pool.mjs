// The pool benchmark in Node (part of `npm run bench`; alone: `node bench/pool.mjs`, after
// bash scripts/build-wasm.sh, bash bench/build-kernels.sh and `cd bench && npm ci`): our pool against
// onnxruntime-web with as many threads and against our single instance, paired, on the GPT-2 shapes
// and the 4000-heads point; then the crossover sweep; the SIMD128 GEMM ceiling before and after;
// then the training step of both Learn models with the pool (bench/pool-train.mjs); then the same
// forward cases in Chromium (bench/pool-browser.mjs) unless --node-only.
// POOL_SIZE=2 (default: the machine's cores, at most 8), POOL_CASES=gpt2-T128,gpt2-T256 runs only those.
import { spawnSync } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { createPool, loadHeadwise } from '../web/headwise.js';
import { benchGemm } from './gemm.mjs';
import { benchCase, caseTables, crossover, crossoverTable, POOL_CASES } from './pool-sides.mjs';
import { benchTraining, trainingTable } from './pool-train.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const only = process.env.POOL_CASES?.split(',');
const size = process.env.POOL_SIZE ? Number(process.env.POOL_SIZE) : undefined;
const lines = [];
const say = (s = '') => {
  console.log(s);
  lines.push(s);
};
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const gemmCeiling = async () => {
  const [packed] = await benchGemm([[1024, 768, 2304]]);
  return `${packed.gflops.toFixed(1)} GFLOP/s (1024x768x2304 packed, median ${packed.medianMs.toFixed(1)} ms)`;
};

const hw = await loadHeadwise();
const pool = await createPool(size ? { size } : undefined);
if (pool.fallbackReason) throw new Error(`the pool fell back: ${pool.fallbackReason}`);
say(`## Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`);
say(`${cpus()[0].model}, ${cpus().length} cores (shared); load average at start ${load()}`);
say(`pool: ${pool.size} workers (worker_threads); onnxruntime-web ${ort.env.versions?.web} with ${pool.size} threads`);
say(`SIMD128 GEMM ceiling (bench/gemm.mjs, one thread) at start: ${await gemmCeiling()}`);
say('paired: the sides take turns sample by sample in this process; ratio = side time / pool time, median per round');

const results = [];
for (const c of POOL_CASES.filter((k) => !only || only.includes(k.name))) {
  results.push(
    await benchCase({ hw, pool, ort, ortThreads: pool.size, ortLabel: `onnxruntime-web (${pool.size} threads)` }, c),
  );
  console.log(caseTables(results.slice(-1)).join('\n'));
}
lines.push(...caseTables(results));
say();
say('### crossover: pool against single (parallel "always" vs the synchronous forward)');
const cross = await crossover({ hw, pool });
for (const l of crossoverTable(cross)) say(l);
say();
say('### training: one instance against data-parallel over the pool (paired, ms per step)');
for (const l of trainingTable(await benchTraining(hw, pool))) say(l);
say();
say(`SIMD128 GEMM ceiling at end: ${await gemmCeiling()}; load average at end ${load()}`);
pool.dispose();

mkdirSync(`${here}build`, { recursive: true });
writeFileSync(`${here}build/pool-node.md`, `${lines.join('\n')}\n`);
console.log('(saved to bench/build/pool-node.md)');

if (!process.argv.includes('--node-only')) {
  const r = spawnSync(process.execPath, [`${here}pool-browser.mjs`], { stdio: 'inherit', env: process.env });
  if (r.status !== 0) process.exitCode = r.status ?? 1;
}
