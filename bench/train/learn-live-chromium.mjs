// The Learn panel's "Train live" of 1 layer vs 2 layers in Debian's Chromium, to the 2-layer model's
// phase change (its held-out repeat loss at a curve point below 2.5, as bench/train/induction-chromium.mjs),
// once per split: 'model' (a worker per model) and 'data' (both models data-parallel on the shared
// pool). A module page (define.js) at 1280x720; long tasks on the page counted from the click.
// Usage: node bench/train/learn-live-chromium.mjs [split ...]      (default: model data)
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { launchChromium } from '../../tests/browser/chromium.js';
import { serveWeb } from '../../tests/browser/static-server.js';

const splits = process.argv.length > 2 ? process.argv.slice(2) : ['model', 'data'];
const PHASE_LOSS = 2.5;
const LIMIT_MS = 600_000;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const server = await serveWeb();
const browser = await launchChromium();
const cpu = execSync("lscpu | grep 'Model name' | sed 's/.*: *//'").toString().trim();
console.log(`${cpu}; Chromium ${browser.version()}; ${new Date().toISOString()}`);
const rows = [];
try {
  for (const split of splits) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const body =
      '<!doctype html><link rel="icon" href="data:,"><body style="margin:0">' +
      `<headwise-explorer panel="learn" learn-experiment="layers" learn-split="${split}" slide></headwise-explorer>` +
      '<script type="module">import "./explorer/define.js";</script>';
    await page.route(`${server.url}live.html`, (route) => route.fulfill({ contentType: 'text/html', body }));
    await page.goto(`${server.url}live.html`);
    await page.waitForFunction(
      () => document.querySelector('headwise-explorer')?.trainingState?.().state === 'checkpoints',
      null,
      {
        timeout: 60_000,
      },
    );
    const before = load();
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({
        type: 'longtask',
      });
    });
    await page.locator('headwise-explorer #panel-learn button', { hasText: 'Train live' }).click();
    const seen = await page.evaluate(
      ({ phaseLoss, limitMs }) =>
        new Promise((resolve) => {
          const host = document.querySelector('headwise-explorer');
          const t0 = performance.now();
          const poll = () => {
            const st = host.trainingState();
            const deep = st.runs[1];
            const live = st.source === 'live' && ['training', 'done'].includes(st.state) && st.step >= 50;
            if (live && deep?.repeatLoss != null && deep.repeatLoss < phaseLoss) {
              resolve({ phaseAt: st.step, seconds: st.elapsedMs / 1000, where: st.where, state: st.state });
            } else if (st.state === 'failed' || st.state === 'done' || performance.now() - t0 > limitMs) {
              resolve({
                phaseAt: null,
                seconds: st.elapsedMs / 1000,
                where: st.where,
                state: st.state,
                error: st.error,
              });
            } else setTimeout(poll, 250);
          };
          poll();
        }),
      { phaseLoss: PHASE_LOSS, limitMs: LIMIT_MS },
    );
    const status = await page.locator('headwise-explorer #panel-learn .status').textContent();
    const tasks = await page.evaluate(() => window.longTasks);
    const row = {
      split,
      ...seen,
      longTasks: tasks.length,
      longestMs: Math.round(Math.max(0, ...tasks)),
      workers: page.workers().length,
      load: `${before} / ${load()}`,
      status,
    };
    rows.push(row);
    console.log(JSON.stringify(row));
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`\nnode bench/train/learn-live-chromium.mjs ${splits.join(' ')}`);
console.log(
  '| learn-split | workers | 2-layer repeat loss < 2.5 at | seconds | long tasks > 50 ms (longest) |' +
    ' load before / after |',
);
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.split} | ${r.workers} | ${r.phaseAt ? `step ${r.phaseAt}` : `not reached (${r.state})`} | ` +
      `${r.seconds.toFixed(1)} | ` +
      `${r.longTasks} (${r.longestMs} ms) | ${r.load} |`,
  );
}
