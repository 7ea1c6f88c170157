// Writes the initial weights of headwise's induction model (options of
// tests/native/induction_experiment.cpp) as getWeights() JSON, for bench/train/torch_induction.py
// --weights, and the first N batch losses of ours. Usage: node bench/train/induction-weights.mjs
// LAYERS SEED OUT.json [N]
import { writeFileSync } from 'node:fs';
import { loadHeadwise } from '../../web/headwise.js';

const [layers, seed, out, n = '0'] = process.argv.slice(2);
const hw = await loadHeadwise();
const options = { task: 'induction', layers: Number(layers), heads: 4, dModel: 64, mlpWidth: 0, evalSize: 512 };
const trainer = hw.createTrainer({ ...options, seed: Number(seed) });
writeFileSync(out, JSON.stringify(trainer.getWeights()));
const losses = [];
for (let i = 0; i < Number(n); i += 1) losses.push(trainer.step().loss);
if (losses.length) console.log(JSON.stringify({ firstLosses: losses }));
