// Trains headwise's induction model (wasm) from given initial weights (getWeights() JSON, e.g.
// bench/train/torch_induction.py --dump-init) on the batches of SEED, and prints every 250 steps
// the held-out repeat loss, the best induction score (last block) and the best previous-token
// score (first block). Usage: node bench/train/induction-from-weights.mjs LAYERS SEED WEIGHTS.json
import { readFileSync } from 'node:fs';
import { loadHeadwise } from '../../web/headwise.js';

const [layers, seed, file] = process.argv.slice(2);
const hw = await loadHeadwise();
const options = { task: 'induction', layers: Number(layers), heads: 4, dModel: 64, mlpWidth: 0, evalSize: 512 };
const trainer = hw.createTrainer({ ...options, seed: Number(seed) });
trainer.setWeights(JSON.parse(readFileSync(file, 'utf8')));
for (let step = 1; step <= 2000; step += 1) {
  trainer.step();
  if (step % 250) continue;
  const repeat = trainer.evaluate().groups.repeat.loss;
  const roles = trainer.roleScores();
  const best = (heads, key) => Math.max(...heads.map((h) => h[key])).toFixed(3);
  const induction = best(roles.at(-1), 'induction');
  const prev = best(roles[0], 'previousToken');
  const named = roles[0].map((h) => h.role).join(', ');
  console.log(
    `${layers} ${seed} ${step} | repeat ${repeat.toFixed(3)} | induction ${induction} prev ${prev} | L1 ${named}`,
  );
}
