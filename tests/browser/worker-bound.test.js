// Many elements training at once do not multiply workers: three Learn panels of "1 layer vs 2
// layers" on one module page press Train live together. Counted by a wrapper of window.Worker
// (an init script, so whatever starts a worker is counted): no more Workers than the page's bound
// (the shared pool's default size, at least 2) are ever created, the panels sharing them say so in
// their status, every one of them trains (its step and its curve grow), and when they are reset
// every worker is ended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';

const web = chromiumAndWeb();
const PANELS = 3;

const COUNT_WORKERS = () => {
  const seen = { created: 0, alive: 0, peak: 0 };
  window.__workers = seen;
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      seen.created += 1;
      seen.alive += 1;
      seen.peak = Math.max(seen.peak, seen.alive);
      let ended = false;
      const terminate = this.terminate.bind(this);
      this.terminate = () => {
        if (!ended) seen.alive -= 1;
        ended = true;
        terminate();
      };
    }
  };
};

// In the page: each panel's state, step, points on its 2-layer repeat curve and status.
const PANEL_STATES = () =>
  [...document.querySelectorAll('headwise-explorer')].map((host) => {
    const s = host.shadowRoot.querySelector('#panel-learn');
    const st = host.trainingState();
    return {
      state: s?.dataset.learnState,
      source: st.source,
      step: st.step,
      where: st.where,
      status: s?.querySelector('.status').textContent ?? '',
    };
  });

test(`${PANELS} Learn panels training at once share at most the bound of workers, and every one trains`, async () => {
  const context = await web.browser.newContext({ viewport: { width: 1800, height: 1000 } });
  await context.addInitScript(COUNT_WORKERS);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  const panel =
    '<headwise-explorer panel="learn" learn-experiment="layers" slide ' +
    'style="display:block;width:590px;height:980px"></headwise-explorer>';
  const body =
    '<!doctype html><link rel="icon" href="data:,"><body style="margin:0;display:flex;gap:4px">' +
    panel.repeat(PANELS) +
    '<script type="module">import "./explorer/define.js";</script>';
  await page.route(`${web.server.url}three-learn.html`, (route) => route.fulfill({ contentType: 'text/html', body }));
  try {
    await page.goto(`${web.server.url}three-learn.html`);
    await page.waitForFunction(
      (n) => {
        const all = [...document.querySelectorAll('headwise-explorer')];
        return (
          all.length === n &&
          all.every((h) => h.shadowRoot?.querySelector('#panel-learn')?.dataset.learnState === 'checkpoints')
        );
      },
      PANELS,
      { timeout: 60_000 },
    );
    const bound = await page.evaluate(() => Math.max(2, Math.min(8, navigator.hardwareConcurrency || 1)));
    await page.evaluate(() => {
      for (const host of document.querySelectorAll('headwise-explorer')) host.startTraining();
    });
    // Until every panel has trained 100 steps (two curve points) or failed, reading the statuses.
    const statuses = new Set();
    const t0 = Date.now();
    let states = [];
    for (;;) {
      states = await page.evaluate(PANEL_STATES);
      for (const s of states) statuses.add(s.status);
      const settled = states.every((s) => s.state === 'failed' || (s.source === 'live' && s.step >= 100));
      if (settled || Date.now() - t0 > 300_000) break;
      await page.waitForTimeout(250);
    }
    const workers = await page.evaluate(() => window.__workers);
    console.log(`# bound ${bound}, workers ${JSON.stringify(workers)}, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    for (const s of states) {
      assert.equal(s.where, 'worker', s.status);
      assert.ok(s.step >= 100 && s.state !== 'failed', JSON.stringify(s));
    }
    assert.ok(workers.created >= 2, JSON.stringify(workers));
    assert.ok(workers.created <= bound, `${workers.created} workers created, the bound is ${bound}`);
    assert.ok(workers.peak <= bound, JSON.stringify(workers));
    if (PANELS * 2 > bound) {
      assert.ok(
        [...statuses].some((s) =>
          /in 2 workers, off the page \(shared with other panels training on this page/.test(s),
        ),
        [...statuses].join('\n'),
      );
    }
    await page.evaluate(() => {
      for (const host of document.querySelectorAll('headwise-explorer')) host.resetTraining();
    });
    await page.waitForFunction(() => window.__workers.alive === 0, null, { timeout: 10_000 });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
