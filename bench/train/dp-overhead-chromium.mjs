// The data-parallel step's cost outside the workers' arithmetic, in Debian's Chromium: ms per step
// of the verb-and-noun model (createTrainer defaults: 0.4 ms of arithmetic a step) trained by the
// calling thread (Trainer.step()), by the data-parallel trainer over 1 and over 2 workers of a pool,
// and the 2-layer induction model's slice of 16 sequences (what each of 2 workers computes per step)
// against its whole step, in a Worker. What dp:2 costs beyond half a step is the hand-offs (page ->
// workers -> page) and the page's share. Usage: node bench/train/dp-overhead-chromium.mjs [steps]
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../tests/browser/chromium.js';
import { serveDir } from '../../tests/browser/static-server.js';

const steps = Number(process.argv[2] ?? 300);
const root = fileURLToPath(new URL('../..', import.meta.url));
const server = await serveDir(root);
const browser = await launchChromium();
const page = await browser.newPage();
await page.goto(`${server.url}tests/browser/pool-page.html`);
const INDUCTION = { task: 'induction', layers: 2, heads: 4, dModel: 64, mlpWidth: 0, evalSize: 16, seed: 0 };
const seen = await page.evaluate(
  async ({ base, steps, induction }) => {
    const { createPool, loadHeadwise } = await import(`${base}web/headwise.js`);
    const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
    const perStep = async (t) => {
      for (let i = 0; i < 20; i += 1) await t.step();
      const times = [];
      for (let i = 0; i < steps; i += 1) {
        const s = performance.now();
        await t.step();
        times.push(performance.now() - s);
      }
      return median(times);
    };
    const hw = await loadHeadwise();
    const out = { page: await perStep(hw.createTrainer({})) };
    const pool = await createPool({ size: 2 });
    out['dp:1'] = await perStep(pool.createTrainer({}, { workers: 1 }));
    out['dp:2'] = await perStep(pool.createTrainer({}, { workers: 2 }));
    pool.dispose();
    // The 2-layer induction model in a Worker: its whole step and the slice of 16 of its 32 sequences.
    const source = `
      import { loadHeadwise } from '${base}web/headwise.js';
      const hw = await loadHeadwise();
      const t = hw.createTrainer(${JSON.stringify(induction)});
      const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
      const whole = [], half = [];
      for (let i = 0; i < 20; i += 1) t.step();
      for (let i = 0; i < 100; i += 1) {
        let s = performance.now(); t.step(); whole.push(performance.now() - s);
        const state = t.batchState;
        s = performance.now(); t.sliceGradients(0, 16); half.push(performance.now() - s);
        t.batchState = state;
      }
      postMessage({ whole: median(whole), half: median(half) });`;
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    const w = new Worker(url, { type: 'module' });
    Object.assign(out, await new Promise((resolve) => (w.onmessage = ({ data }) => resolve(data))));
    w.terminate();
    return out;
  },
  { base: server.url, steps, induction: INDUCTION },
);
await browser.close();
server.close();
const ms = (v) => `${v.toFixed(2)} ms`;
console.log(`${cpus()[0].model}, ${cpus().length} cores; load ${loadavg()[0].toFixed(2)}; median of ${steps} steps`);
console.log(`verb-noun step: on the page ${ms(seen.page)}, dp:1 ${ms(seen['dp:1'])}, dp:2 ${ms(seen['dp:2'])}`);
console.log(`induction, 2 layers, in a Worker: whole step ${ms(seen.whole)}, slice of 16 sequences ${ms(seen.half)}`);
