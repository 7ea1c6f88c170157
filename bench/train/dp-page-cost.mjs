// The calling thread's share of one data-parallel step (web/pool/data-parallel.js) for the 2-layer
// induction model, in Node: the parameters copied out (and once more for a second worker), two
// slice gradients summed in order, the Adam step, the batch state read and set. Usage:
//   node bench/train/dp-page-cost.mjs [repeats]
import { loadavg } from 'node:os';
import { loadHeadwise } from '../../web/headwise.js';
import { sumSlices } from '../../web/pool/data-parallel.js';

const repeats = Number(process.argv[2] ?? 200);
const hw = await loadHeadwise();
const options = { task: 'induction', layers: 2, heads: 4, dModel: 64, mlpWidth: 0, evalSize: 64, batch: 32, seed: 0 };
const t = hw.createTrainer(options);
const a = t.sliceGradients(0, 16);
const b = t.sliceGradients(16, 32);
const times = [];
for (let i = 0; i < repeats; i += 1) {
  const slices = [{ ...a, gradient: a.gradient.slice() }, b]; // the copy stands in for the transfer
  const s = performance.now();
  const parameters = t.parameterBuffer();
  parameters.slice();
  const state = t.batchState;
  const sum = sumSlices(slices);
  t.applyGradients(sum.gradient, sum.lossSum / sum.counted);
  t.batchState = state;
  times.push(performance.now() - s);
}
times.sort((x, y) => x - y);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
console.log(
  `${t.parameterCount} parameters: the calling thread's work per step, median ${at(0.5)} ms, p90 ${at(0.9)} ms ` +
    `(${repeats} repeats; load ${loadavg()[0].toFixed(2)})`,
);
t.dispose();
