// CPU time of one training step of the story models (docs/story.md, "Where the step's time goes"):
// the wasm trainer in Node, one thread, 1 layer of 4 heads, 1 layer of 1 head and 2 layers of 4
// heads at width 64; 10 calls of step(2) per sample after a warm-up, process CPU time, median of 5,
// with the trainer's own multiply-add count and the GFLOP/s it makes.
//   node bench/train/story-step.mjs
import { cpus, loadavg } from 'node:os';
import { loadHeadwise } from '../../web/headwise.js';

const hw = await loadHeadwise();
const CALLS = 10;
for (const [layers, heads] of [
  [1, 4],
  [1, 1],
  [2, 4],
]) {
  const t = hw.createTrainer({ task: 'story', layers, heads, dModel: 64, mlpWidth: 0, seed: 1 });
  for (let i = 0; i < CALLS; i += 1) t.step(2);
  const samples = [];
  for (let r = 0; r < 5; r += 1) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < CALLS; i += 1) t.step(2);
    const c = process.cpuUsage(c0);
    samples.push((c.user + c.system) / 1000 / (2 * CALLS));
  }
  samples.sort((a, b) => a - b);
  const ms = samples[2];
  // The trainer refuses a call over its limit saying how many multiply-adds it would take.
  let macs = NaN;
  try {
    t.step(1_000_000);
  } catch (e) {
    macs = Number(/take (\d+) multiply-adds/.exec(e.message)?.[1]) / 1_000_000;
  }
  console.log(
    `story, ${layers} layer(s) of ${heads} head(s): ${ms.toFixed(1)} ms CPU a step (${samples
      .map((v) => v.toFixed(1))
      .join(', ')}), ${(macs / 1e6).toFixed(1)} M multiply-adds, ${((2 * macs) / ms / 1e6).toFixed(1)} GFLOP/s`,
  );
  t.dispose();
}
console.log(`${cpus()[0].model}, ${cpus().length} cores, load ${loadavg()[0].toFixed(2)}`);
