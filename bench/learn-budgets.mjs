// The Learn panel's page budgets (issue 13), printed, not asserted: opens embed.html?panel=learn at
// 1280x720 in Debian's Chromium, presses Train and measures, per run, the training time until the
// 2-head model's smoothed accuracy reaches 95% (the panel's own training time, and wall-clock time
// since the press), the long tasks (count and longest; also after step 50, once the module's code
// is warm), the frames per second while it trains, and the held-out accuracies; then the machine
// (CPU model, cores, load average). Not part of npm test.
// Needs the built bundle (bash scripts/build-explorer.sh).
// Run: node bench/learn-budgets.mjs [--runs=3] [learn-seed=3 learn-width=64 learn-heads=1,2,4 ...]
import { cpus, loadavg } from 'node:os';
import { launchChromium } from '../tests/browser/chromium.js';
import { serveWeb } from '../tests/browser/static-server.js';

const args = process.argv.slice(2);
const runsArg = args.find((a) => a.startsWith('--runs='));
const RUNS = runsArg ? Number(runsArg.slice('--runs='.length)) : 3;
if (!Number.isInteger(RUNS) || RUNS < 1 || RUNS > 50) throw new RangeError(`--runs must be 1 to 50, got ${runsArg}`);
const query = new URLSearchParams([
  ['panel', 'learn'],
  ...args.filter((a) => !a.startsWith('--')).map((a) => a.split('=')),
]);

// In the page, from the press of Train until the verdict: long tasks, frames, and the training
// time when 2 heads first reach 95% (from the panel's data attributes, which it sets as it draws).
const WATCH = () => {
  const section = () => document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn');
  const w = { tasks: [], frames: 0, trainingFrames: 0, trainingMs: 0, at95: null, wallAt95: null };
  w.t0 = performance.now();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.tasks.push({ ms: e.duration, step: Number(section().dataset.step ?? 0) });
  }).observe({ type: 'longtask' });
  let last = w.t0;
  const tick = (now) => {
    const s = section();
    w.frames += 1;
    if (s.dataset.learnState === 'training') {
      w.trainingFrames += 1;
      w.trainingMs += now - last;
    }
    last = now;
    const two = Number((s.dataset.accuracy ?? '0 0').split(' ')[1]);
    if (w.at95 === null && two >= 0.95) {
      w.at95 = Number(s.dataset.trainMs);
      w.wallAt95 = now - w.t0;
    }
    if (s.dataset.learnState !== 'done') requestAnimationFrame(tick);
    else {
      w.seconds = (now - w.t0) / 1000;
      w.maxSliceMs = Number(s.dataset.maxSliceMs);
      w.maxDrawMs = Number(s.dataset.maxDrawMs);
      w.done = true;
    }
  };
  requestAnimationFrame(tick);
  globalThis.__watch = w;
};

const fmt = (v, digits = 0) => (v === null || v === undefined || Number.isNaN(v) ? '-' : v.toFixed(digits));
const median = (v) => {
  const s = v.filter((x) => x !== null && !Number.isNaN(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const server = await serveWeb();
const browser = await launchChromium();
const loadBefore = loadavg();
const rows = [];
try {
  console.log(`# embed.html?${query} at 1280x720, ${RUNS} run(s); Chromium ${browser.version()}`);
  for (let run = 1; run <= RUNS; run += 1) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}embed.html?${query}`);
      await page.waitForFunction(
        () => document.querySelector('headwise-explorer')?.shadowRoot.querySelector('#panel-learn')?.dataset.learnState,
      );
      await page.evaluate(WATCH);
      await page.locator('headwise-explorer #panel-learn button', { hasText: 'Train' }).click();
      await page.waitForFunction(() => globalThis.__watch.done, null, { timeout: 120_000, polling: 250 });
      const w = await page.evaluate(() => globalThis.__watch);
      const training = await page.evaluate(() => document.querySelector('headwise-explorer').trainingState());
      const warm = w.tasks.filter((t) => t.step > 50);
      const row = {
        at95: w.at95,
        wallAt95: w.wallAt95,
        tasks: w.tasks.length,
        longest: Math.max(0, ...w.tasks.map((t) => t.ms)),
        warmTasks: warm.length,
        warmLongest: Math.max(0, ...warm.map((t) => t.ms)),
        fps: w.trainingFrames / (w.trainingMs / 1000),
        maxSliceMs: w.maxSliceMs,
        maxDrawMs: w.maxDrawMs,
        accuracy: training.runs.map((r) => `${r.heads}h ${(100 * r.result.accuracy).toFixed(1)}%`).join(', '),
      };
      rows.push(row);
      console.log(
        `run ${run}: 2 heads at 95% after ${fmt(row.at95)} ms of training (${fmt(row.wallAt95)} ms wall clock); ` +
          `long tasks ${row.tasks} (longest ${fmt(row.longest)} ms), after step 50: ${row.warmTasks} ` +
          `(longest ${fmt(row.warmLongest)} ms); ${fmt(row.fps, 1)} frames/s while training; panel's own work ` +
          `per frame: training ${fmt(row.maxSliceMs, 1)} ms, drawing ${fmt(row.maxDrawMs, 1)} ms at most; ` +
          `held-out ${row.accuracy}; verdict: ${training.verdict}`,
      );
    } finally {
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
const pick = (key) => median(rows.map((r) => r[key]));
const [cpu] = cpus();
console.log(
  `median of ${rows.length}: 95% after ${fmt(pick('at95'))} ms of training (${fmt(pick('wallAt95'))} ms wall ` +
    `clock); longest long task ${fmt(pick('longest'))} ms, after step 50 ${fmt(pick('warmLongest'))} ms; ` +
    `${fmt(pick('fps'), 1)} frames/s while training`,
);
console.log(
  `machine: ${cpu?.model ?? 'unknown CPU'}, ${cpus().length} cores; load average (1, 5, 15 min) before ` +
    `${loadBefore.map((v) => v.toFixed(2)).join(', ')}, after ${loadavg()
      .map((v) => v.toFixed(2))
      .join(', ')}`,
);
