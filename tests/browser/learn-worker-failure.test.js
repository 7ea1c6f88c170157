// A Learn panel ("1 layer vs 2 layers", "Train live") whose worker fails: one terminated from
// outside mid-run (a browser gives the page no event for that) and one that stops answering steps
// (a wrapper of Worker.postMessage swallows them). Each is noticed within its deadline, seconds and
// not minutes: the panel says "failed" with the reason, every worker is ended, the page keeps
// answering, and pressing Train live again trains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { loadavg } from 'node:os';

const web = chromiumAndWeb();

const WRAP_WORKERS = () => {
  const seen = { list: [], alive: 0, swallowSteps: false };
  window.__workers = seen;
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      seen.list.push(this);
      seen.alive += 1;
      let ended = false;
      const terminate = this.terminate.bind(this);
      this.terminate = () => {
        if (!ended) seen.alive -= 1;
        ended = true;
        terminate();
      };
      const post = this.postMessage.bind(this);
      this.postMessage = (message, transfer) => {
        if (seen.swallowSteps && message?.op === 'trainerStep') return;
        post(message, transfer);
      };
    }
  };
};

const READ = () => {
  const host = document.querySelector('headwise-explorer');
  const s = host.shadowRoot.querySelector('#panel-learn');
  const button = s.querySelector('.induction .controls button');
  return {
    state: s.dataset.learnState,
    status: s.querySelector('.status').textContent,
    step: host.trainingState().step,
    button: button.textContent,
    disabled: button.disabled,
  };
};

async function openPanel() {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
  await context.addInitScript(WRAP_WORKERS);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  const body =
    '<!doctype html><link rel="icon" href="data:,"><body style="margin:0">' +
    '<headwise-explorer panel="learn" learn-experiment="layers" slide></headwise-explorer>' +
    '<script type="module">import "./explorer/define.js";</script>';
  await page.route(`${web.server.url}learn-failure.html`, (route) => route.fulfill({ contentType: 'text/html', body }));
  await page.goto(`${web.server.url}learn-failure.html`);
  await page.waitForFunction(
    () =>
      document.querySelector('headwise-explorer')?.shadowRoot?.querySelector('#panel-learn')?.dataset.learnState ===
      'checkpoints',
    null,
    { timeout: 60_000 },
  );
  return { context, page, problems };
}

const trainButton = (page) => page.locator('headwise-explorer #panel-learn .induction .controls button').first();
const until = (page, fn, arg, timeout) => page.waitForFunction(fn, arg, { timeout, polling: 100 });

// Fails the run with `breakIt`, then checks the failure is named, noticed in time and recoverable.
async function failThenRetrain(breakIt, reason) {
  const { context, page, problems } = await openPanel();
  try {
    await trainButton(page).click();
    await until(page, () => document.querySelector('headwise-explorer').trainingState().step >= 20, null, 120_000);
    const t0 = Date.now();
    await page.evaluate(breakIt);
    const isFailed = () =>
      document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn').dataset.learnState ===
      'failed';
    await until(page, isFailed, null, 90_000).catch(async () => {
      throw new Error(`no failure: ${JSON.stringify(await page.evaluate(READ))}`);
    });
    const noticedS = (Date.now() - t0) / 1000;
    // (the status line is written on the panel's next redraw)
    const stopped = () =>
      document
        .querySelector('headwise-explorer')
        .shadowRoot.querySelector('#panel-learn .status')
        .textContent.startsWith('Live training stopped');
    await until(page, stopped, null, 5000);
    const failed = await page.evaluate(READ);
    console.log(`# noticed in ${noticedS.toFixed(1)} s: ${failed.status}`);
    assert.match(failed.status, reason);
    assert.ok(noticedS < 60, `noticed after ${noticedS} s (load average ${loadavg()[0].toFixed(1)})`);
    assert.equal(failed.button, 'Train live');
    assert.equal(failed.disabled, false);
    await until(page, () => window.__workers.alive === 0, null, 10_000);
    // The page still answers.
    const state = await page.evaluate(() => document.querySelector('headwise-explorer').getState());
    assert.equal(state.learnExperiment, 'layers');
    // Train live again, with healthy workers: it trains.
    await page.evaluate(() => (window.__workers.swallowSteps = false));
    await trainButton(page).click();
    await until(
      page,
      () => {
        const st = document.querySelector('headwise-explorer').trainingState();
        return st.source === 'live' && st.step >= 50 && st.state !== 'failed';
      },
      null,
      120_000,
    );
    const again = await page.evaluate(READ);
    assert.match(again.status, /Training live in 2 workers|Trained live in 2 workers/);
    await page.evaluate(() => document.querySelector('headwise-explorer').resetTraining());
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
}

test('a worker terminated mid-run: the panel says it failed within its deadline, and Train live trains again', () =>
  failThenRetrain(
    () => window.__workers.list.at(-1).terminate(),
    /^Live training stopped: trainer worker \d+ did not answer trainer\w+ within \d+ ms$/,
  ));

test('a worker that stops answering steps: the panel says so within its deadline, and Train live trains again', () =>
  failThenRetrain(
    () => (window.__workers.swallowSteps = true),
    /^Live training stopped: trainer worker \d+ did not answer trainerStep within \d+ ms$/,
  ));
