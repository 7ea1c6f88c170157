// What sharing keys and values costs a trained model, measured by headwise's own trainer and shipped
// with the kv panel: the story task (docs/story.md), 1 layer of 4 query heads of 16 (width 64), with
// 4 K/V heads (multi-head), 2 (grouped-query) and 1 (multi-query), the same seeds, data and steps.
// Held-out accuracy per probe at a few steps, and the parameters. Written to
// web/explorer/panels/kv/kv-sharing-results.js; bit for bit reproducible with the same wasm build
// (tests/js/kv-sharing.test.js retrains the first point). Usage: node scripts/make-kv-sharing.mjs
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import prettier from 'prettier';
import { loadHeadwise } from '../web/headwise.js';
import { KV_SHARING_RUN, sharingPoint } from '../web/explorer/panels/kv/kv-sharing.js';

const hw = await loadHeadwise();
const started = performance.now();
const models = [];
for (const kvHeads of KV_SHARING_RUN.kvHeads) {
  const seeds = [];
  for (const seed of KV_SHARING_RUN.seeds) {
    const trainer = hw.createTrainer({ ...KV_SHARING_RUN.options, kvHeads, seed });
    const points = [];
    let done = 0;
    for (const at of KV_SHARING_RUN.steps) {
      while (done < at) done = trainer.step(Math.min(trainer.maxStepsPerCall, at - done)).step;
      points.push(sharingPoint(at, trainer.evaluate()));
    }
    seeds.push({ seed, points });
    console.log(`kvHeads ${kvHeads} seed ${seed}: ${JSON.stringify(points.at(-1))}`);
    if (seed === KV_SHARING_RUN.seeds.at(-1)) models.push({ kvHeads, parameters: trainer.parameterCount, seeds });
    trainer.dispose();
  }
}
const [cpu] = cpus();
const took = ((performance.now() - started) / 1000).toFixed(0);
// Written as the project formats it (scripts/format.sh), so that a run leaves no difference.
const file = 'web/explorer/panels/kv/kv-sharing-results.js';
const source =
  '// Written by `node scripts/make-kv-sharing.mjs` (do not edit): the run is KV_SHARING_RUN (kv-sharing.js).\n' +
  `export default Object.freeze(${JSON.stringify({ models }, null, 1)});\n`;
writeFileSync(file, await prettier.format(source, { ...(await prettier.resolveConfig(file)), filepath: file }));
console.log(`${cpu?.model ?? 'unknown CPU'}, ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}: ${took} s`);
