// Training step time of the wasm trainer in Node (forward + backward + Adam on a fresh batch of
// 32, width 32), at 1, 2 and 4 heads: median over rounds of 200 single-step calls, after 300
// warm-up steps (V8 swaps in optimised wasm only at a function's next call). Then, per heads,
// the training time to 95% held-out accuracy (evaluated every 25 steps, evaluation not counted).
// Usage: node bench/train-ours.mjs [rounds] [seed]  (ours alone; bench/train.mjs times the peers beside it)
import { loadHeadwise } from '../web/headwise.js';

const rounds = Number(process.argv[2] ?? 15);
const seed = Number(process.argv[3] ?? 2);
const hw = await loadHeadwise();
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

console.log(
  `# node bench/train-ours.mjs ${rounds} ${seed}  (Node ${process.version}, wasm SIMD128 via ${hw.simdArch})`,
);
console.log('heads | step median ms | min | max | steps to 95% | train seconds to 95% | held-out accuracy at stop');
for (const heads of [1, 2, 4]) {
  const t = hw.createTrainer({ heads, seed: 1, evalSize: 1 });
  for (let i = 0; i < 300; i += 1) t.step();
  const ms = [];
  for (let r = 0; r < rounds; r += 1) {
    const start = performance.now();
    for (let i = 0; i < 200; i += 1) t.step();
    ms.push((performance.now() - start) / 200);
  }
  t.dispose();
  const run = hw.createTrainer({ heads, seed });
  let trainMs = 0;
  let reached = null;
  for (let step = 25; step <= 1500 && reached === null; step += 25) {
    const start = performance.now();
    for (let i = 0; i < 25; i += 1) run.step();
    trainMs += performance.now() - start;
    if (run.evaluate().accuracy >= 0.95) reached = step;
  }
  const final = run.evaluate().accuracy;
  run.dispose();
  console.log(
    `${heads} | ${median(ms).toFixed(3)} | ${Math.min(...ms).toFixed(3)} | ${Math.max(...ms).toFixed(3)} | ` +
      `${reached ?? 'not by 1500'} | ${reached ? (trainMs / 1000).toFixed(2) : '-'} | ${final.toFixed(4)}`,
  );
}
