// Wall time to the phase change of the 2-layer induction model in Debian's Chromium: steps until
// the held-out repeat loss (512 sequences, evaluated every 50 steps) falls below PHASE_LOSS.
// Modes:
//   worker   the whole trainer in one module Worker (Trainer.step() there; the page is idle)
//   dp:N     the data-parallel trainer (pool.createTrainer, web/pool/data-parallel.js) over N of
//            a pool's workers: the page keeps the weights and Adam, the workers the batch slices
// Usage:
//   node bench/train/induction-chromium.mjs [maxSteps] [learningRate] [mode ...]
//   node bench/train/induction-chromium.mjs 2000 3e-3 worker dp:1 dp:2
// Prints per mode ms per step (median of the 50-step slices), the step and seconds of the phase
// change, the page's long tasks (> 50 ms), and the load average before and after.
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../tests/browser/chromium.js';
import { serveDir } from '../../tests/browser/static-server.js';

const maxSteps = Number(process.argv[2] ?? 2000);
const learningRate = Number(process.argv[3] ?? 3e-3);
const modes = process.argv.length > 4 ? process.argv.slice(4) : ['worker', 'dp:2'];
const PHASE_LOSS = 2.5; // between chance (ln 64 = 4.16) and the trained model's ~1.0
const root = fileURLToPath(new URL('../..', import.meta.url));
const OPTIONS = {
  task: 'induction',
  layers: 2,
  heads: 4,
  dModel: 64,
  mlpWidth: 0,
  evalSize: 512,
  batch: 32,
  learningRate,
  seed: 0,
};

const worker = `
import { loadHeadwise } from '/web/headwise.js';
const hw = await loadHeadwise();
const t = hw.createTrainer(${JSON.stringify(OPTIONS)});
postMessage({ from: true });
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

// On the page: the data-parallel trainer over `workers` of a pool of max(2, workers) workers.
async function dataParallel({ base, options, workers, maxSteps, phaseLoss }) {
  const { createPool } = await import(`${base}web/headwise.js`);
  const pool = await createPool({ size: Math.max(2, workers) });
  const t = pool.createTrainer(options, { workers });
  const start = performance.now();
  window.trainingFrom = start; // long tasks are counted from here (not the module's compilation)
  const slices = [];
  let phase = null;
  for (let step = 0; step < maxSteps; step += 50) {
    const s = performance.now();
    // 50 steps in calls of at most maxStepsPerCall (the contract's bound on one call's work).
    for (let done = 0; done < 50; done += t.maxStepsPerCall) await t.step(Math.min(t.maxStepsPerCall, 50 - done));
    slices.push((performance.now() - s) / 50);
    const repeat = (await t.evaluate()).groups.repeat.loss;
    console.log(JSON.stringify({ step: step + 50, repeat, seconds: (performance.now() - start) / 1000 }));
    if (repeat < phaseLoss) {
      phase = step + 50;
      break;
    }
  }
  slices.sort((a, b) => a - b);
  const result = {
    phase,
    msPerStep: slices[slices.length >> 1],
    seconds: (performance.now() - start) / 1000,
    instances: t.instances,
    fallbackReason: t.fallbackReason,
  };
  pool.dispose();
  return result;
}

const cpu = execSync("lscpu | grep 'Model name' | sed 's/.*: *//'").toString().trim();
const server = await serveDir(root, { headers: {} });
const browser = await launchChromium();
console.log(
  `${cpu}, ${execSync('nproc').toString().trim()} cores; Chromium ${browser.version()}; ${new Date().toISOString()}`,
);
const rows = [];
try {
  for (const mode of modes) {
    const page = await browser.newPage();
    await page.goto(`${server.url}tests/browser/pool-page.html`);
    page.on('console', (m) => console.log(`  ${mode} ${m.text()}`));
    await page.evaluate(() => {
      window.longTasks = [];
      window.trainingFrom = Infinity;
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries())).observe({ type: 'longtask' });
    });
    const loadBefore = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    let result;
    if (mode === 'worker') {
      result = await page.evaluate(
        (source) =>
          new Promise((resolve, reject) => {
            const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
            const w = new Worker(url, { type: 'module' });
            w.onerror = (e) => reject(new Error(e.message));
            w.onmessage = ({ data }) => {
              if (data.from) window.trainingFrom = performance.now();
              else if (data.done) resolve(data);
              else console.log(JSON.stringify(data));
            };
          }),
        worker.replaceAll("'/web/", `'${server.url}web/`),
      );
    } else {
      const workers = Number(/^dp:(\d+)$/.exec(mode)?.[1]);
      if (!workers) throw new Error(`unknown mode ${mode} (worker or dp:N)`);
      result = await page.evaluate(dataParallel, {
        base: server.url,
        options: OPTIONS,
        workers,
        maxSteps,
        phaseLoss: PHASE_LOSS,
      });
    }
    const longTasks = await page.evaluate(() =>
      window.longTasks.filter((e) => e.startTime >= window.trainingFrom).map((e) => e.duration),
    );
    await page.close();
    const row = {
      mode,
      ...result,
      longTasks: longTasks.length,
      longestTaskMs: Math.round(Math.max(0, ...longTasks)),
      loadBefore,
      loadAfter: loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`\nnode bench/train/induction-chromium.mjs ${maxSteps} ${learningRate} ${modes.join(' ')}`);
console.log(
  '| mode | ms/step (median of 50-step slices) | phase change (repeat loss < 2.5) | seconds | ' +
    'long tasks > 50 ms (longest) | load before / after |',
);
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.mode}${r.fallbackReason ? ` (fell back: ${r.fallbackReason})` : ''} | ${r.msPerStep.toFixed(1)} | ` +
      `${r.phase ? `step ${r.phase}` : `none in ${maxSteps}`} | ${r.seconds.toFixed(1)} | ` +
      `${r.longTasks} (${r.longestTaskMs} ms) | ${r.loadBefore} / ${r.loadAfter} |`,
  );
}
