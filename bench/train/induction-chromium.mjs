// Wall time to the phase change of the 2-layer induction model in Debian's Chromium, trained in one
// module Worker (the page's main thread stays free): steps until the held-out repeat loss falls
// below PHASE_LOSS, evaluated every 50 steps. Usage:
//   node bench/train/induction-chromium.mjs [maxSteps] [learningRate]
// Prints ms per step (median of the 50-step slices) and the step and seconds of the phase change.
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../tests/browser/chromium.js';
import { serveDir } from '../../tests/browser/static-server.js';

const maxSteps = Number(process.argv[2] ?? 2000);
const learningRate = Number(process.argv[3] ?? 3e-3);
const PHASE_LOSS = 2.5; // between chance (ln 64 = 4.16) and the trained model's ~1.0
const root = fileURLToPath(new URL('../..', import.meta.url));

const worker = `
import { loadHeadwise } from '/web/headwise.js';
const hw = await loadHeadwise();
const t = hw.createTrainer({ task: 'induction', layers: 2, heads: 4, dModel: 64, mlpWidth: 0,
  evalSize: 512, batch: 32, learningRate: ${learningRate}, seed: 0 });
const start = performance.now();
const slices = [];
let phase = null;
for (let step = 0; step < ${maxSteps}; step += 50) {
  const s = performance.now();
  for (let i = 0; i < 50; i += 1) t.step();
  slices.push((performance.now() - s) / 50);
  const repeat = t.evaluate().groups.repeat.loss;
  postMessage({ step: step + 50, repeat, seconds: (performance.now() - start) / 1000 });
  if (repeat < ${PHASE_LOSS}) { phase = step + 50; break; }
}
slices.sort((a, b) => a - b);
postMessage({ done: true, phase, msPerStep: slices[slices.length >> 1], seconds: (performance.now() - start) / 1000 });
`;

const server = await serveDir(root, { headers: {} });
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}web/embed.html?panel=heads`);
  page.on('console', (m) => console.log(m.text()));
  const load = loadavg()[0].toFixed(2);
  const result = await page.evaluate(
    (source) =>
      new Promise((resolve, reject) => {
        const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
        const w = new Worker(url, { type: 'module' });
        w.onerror = (e) => reject(new Error(e.message));
        w.onmessage = ({ data }) => (data.done ? resolve(data) : console.log(JSON.stringify(data)));
      }),
    worker.replaceAll("'/web/", `'${server.url}web/`),
  );
  console.log(
    `Chromium, 1 worker, lr ${learningRate}: ${result.msPerStep.toFixed(1)} ms/step (median of 50-step slices); ` +
      (result.phase
        ? `repeat loss < ${PHASE_LOSS} at step ${result.phase}, ${result.seconds.toFixed(1)} s`
        : `no phase change in ${maxSteps} steps (${result.seconds.toFixed(1)} s)`) +
      `; load ${load} before, ${loadavg()[0].toFixed(2)} after`,
  );
} finally {
  await browser.close();
  await server.close();
}
