// The classic bundle under the strict CSP (script-src 'self' 'wasm-unsafe-eval', so no blob:
// workers): "Train live" trains in workers started from build/explorer/pool-worker.js, a file of
// the page's origin, which the page requests only when training starts; the page keeps its frames.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { serveWeb, STRICT_CSP } from './static-server.js';
import { longTasks, traceMainThread } from './main-thread-work.js';
import { loadavg } from 'node:os';

const web = chromiumAndWeb();
let strict;
before(async () => {
  strict = await serveWeb({ headers: { 'Content-Security-Policy': STRICT_CSP } });
});
after(async () => {
  await strict?.close();
});

const learnState = (want) =>
  document.querySelector('headwise-explorer')?.shadowRoot.querySelector('#panel-learn')?.dataset.learnState === want;

// In the page: clicks "Train live" and counts frames until both models pass `steps` steps.
const TRAIN_LIVE = async ({ steps, ms }) => {
  const host = document.querySelector('headwise-explorer');
  const button = [...host.shadowRoot.querySelectorAll('#panel-learn button')].find(
    (b) => b.textContent === 'Train live',
  );
  button.click();
  const t0 = performance.now();
  let frames = 0;
  await new Promise((resolve) => {
    const tick = () => {
      frames += 1;
      const st = host.trainingState();
      if (st.step >= steps || st.state === 'failed' || performance.now() - t0 > ms) resolve();
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  return {
    st: host.trainingState(),
    frames,
    status: host.shadowRoot.querySelector('#panel-learn .status').textContent,
  };
};

// A Blob-URL worker on the page: whether it ran (the policy refuses it with an error event).
const BLOB_WORKER_RUNS = () =>
  new Promise((resolve) => {
    const url = URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' }));
    const worker = new Worker(url);
    worker.onmessage = () => resolve(true);
    worker.onerror = () => resolve(false);
  });

for (const [split, says] of [
  ['model', /in 2 workers, off the page/],
  ['data', /data-parallel over 2 workers/],
]) {
  test(`under the strict CSP, "Train live" (learn-split=${split}) trains in same-origin classic workers`, async () => {
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    const requests = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    try {
      const query = `panel=learn&learn-experiment=layers&learn-split=${split}`;
      const response = await page.goto(`${strict.url}embed.html?${query}`);
      assert.equal(response.headers()['content-security-policy'], STRICT_CSP);
      assert.equal(await page.evaluate(BLOB_WORKER_RUNS), false, 'the policy refuses blob: workers');
      await page.waitForFunction(learnState, 'checkpoints', { timeout: 60_000 });
      assert.ok(!requests.includes('/build/explorer/pool-worker.js'), 'no worker file before training');

      const trace = await traceMainThread(page);
      const live = await page.evaluate(TRAIN_LIVE, { steps: 50, ms: 240_000 });
      const { tasks } = await trace.stop();
      const long = longTasks(tasks); // [wall, CPU] ms
      const load = loadavg()[0].toFixed(1);
      console.log(`# live ${JSON.stringify({ split, where: live.st.where, step: live.st.step, load, long })}`);
      assert.equal(live.st.where, 'worker', live.status);
      assert.match(live.status, says);
      assert.ok(live.st.step >= 50, JSON.stringify(live.st));
      const workers = page.workers().map((w) => new URL(w.url()).pathname);
      assert.deepEqual(workers, ['/build/explorer/pool-worker.js', '/build/explorer/pool-worker.js']);
      // On the page thread a step was a task of 50-350 ms here; in workers none is that long. The
      // page's own work is bounded (each task's CPU time, from a trace), not its wall time, which
      // other processes on a loaded machine stretch (tasks of 300 ms wall held 25 ms of CPU at load
      // 14). Split by data, the page itself sums the gradients and takes each Adam step: not
      // counted there.
      if (split === 'model') {
        const message = `load ${load}, ${live.frames} frames; [wall, CPU] ms of long tasks ${JSON.stringify(long)}`;
        assert.ok(
          tasks.every((t) => t.cpuMs < 300),
          message,
        );
        assert.ok(tasks.filter((t) => t.cpuMs >= 50).length <= Math.max(3, 0.05 * live.frames), message);
      }
      await page.evaluate(() => document.querySelector('headwise-explorer').resetTraining());
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
