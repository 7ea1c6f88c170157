// What sharing keys and values costs a trained model: the same task, width and steps with 4 K/V
// heads (multi-head), 2 (grouped-query) and 1 (multi-query) of 4 query heads; parameters and
// held-out accuracy per seed. Usage: [EVAL_SIZE=n] node bench/kv-train.mjs [TASK] [STEPS] [SEEDS]
//   e.g. node bench/kv-train.mjs verb-noun 600 1,2,3
import { cpus, loadavg } from 'node:os';
import { loadHeadwise } from '../web/headwise.js';

const [task = 'verb-noun', stepsArg = '600', seedsArg = '1,2,3'] = process.argv.slice(2);
const steps = Number(stepsArg);
const seeds = seedsArg.split(',').map(Number);
const hw = await loadHeadwise();
const rows = [];
for (const kvHeads of [4, 2, 1]) {
  for (const seed of seeds) {
    const evalSize = process.env.EVAL_SIZE ? { evalSize: Number(process.env.EVAL_SIZE) } : {};
    const trainer = hw.createTrainer({ task, layers: 1, heads: 4, dModel: 32, kvHeads, seed, ...evalSize });
    const chunk = Math.min(steps, trainer.maxStepsPerCall);
    for (let done = 0; done < steps; done += chunk) trainer.step(Math.min(chunk, steps - done));
    const heldOut = trainer.evaluate();
    rows.push({ kvHeads, seed, parameters: trainer.parameterCount, accuracy: heldOut.accuracy, loss: heldOut.loss });
    trainer.dispose();
  }
}
const [cpu] = cpus();
console.log(
  `${cpu?.model ?? 'unknown CPU'}, ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}; ` +
    `task ${task}, ${steps} steps, seeds ${seeds.join(', ')}`,
);
console.log('| K/V heads of 4 | parameters | held-out accuracy per seed | mean | held-out loss (mean) |');
console.log('| --- | --- | --- | --- | --- |');
for (const kvHeads of [4, 2, 1]) {
  const r = rows.filter((row) => row.kvHeads === kvHeads);
  const mean = (key) => r.reduce((a, row) => a + row[key], 0) / r.length;
  console.log(
    `| ${kvHeads} | ${r[0].parameters} | ${r.map((row) => row.accuracy.toFixed(3)).join(', ')} | ` +
      `${mean('accuracy').toFixed(3)} | ${mean('loss').toFixed(3)} |`,
  );
}
