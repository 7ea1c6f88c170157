// The Learn panel's own options in Chromium: learn-seed, learn-width and learn-heads from the URL of
// embed.html at 1280x720 set its controls and its runs; 1, 2 and 4 heads train side by side, the
// 4-head maps from "?" land on the verb and the noun, the verdict covers all three and says which
// runs had settled; a control change goes back to the options (getState) and starts a new run; an
// unusable seed is named and put back. Then the same panel trains under the strict CSP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { mkdir } from 'node:fs/promises';
import { serveWeb, STRICT_CSP } from './static-server.js';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);
const VERB = 8; // "catch" in the sample sequence
const NOUN = 10; // "ball"
const web = chromiumAndWeb();
// The verdict's sentences for 1 and 2 heads (learn-verdict.js).
const RIGHT = String.raw`\d+% right \(right verb \d+%, right noun \d+%\)`;
const SPLIT = 'one softmax row split between the verb \\(\\d+%\\) and the noun \\(\\d+%\\)';
const ONE_HEAD = new RegExp(`1 head: ${RIGHT} - ${SPLIT}`);
const TWO_HEADS = new RegExp(`2 heads: ${RIGHT} - head \\d finds the (verb|noun), head \\d finds the (verb|noun)`);
let strictServer;

before(async () => {
  strictServer = await serveWeb({ headers: { 'Content-Security-Policy': STRICT_CSP } });
  await mkdir(ARTIFACTS, { recursive: true });
});

after(async () => {
  await strictServer?.close();
});

const READ = () => {
  const explorer = document.querySelector('headwise-explorer');
  const s = explorer.shadowRoot.querySelector('#panel-learn');
  const [seed, width, heads] = [...s.querySelectorAll('.controls input[type=number], .controls select')];
  const state = explorer.getState();
  return {
    learnState: s.dataset.learnState,
    step: Number(s.dataset.step),
    status: s.querySelector('.status').textContent,
    controls: { seed: seed.value, width: width.value, heads: heads.value },
    options: { seed: state.learnSeed, width: state.learnWidth, heads: state.learnHeads },
    verdict: s.querySelector('.learn-verdict').textContent,
    rows: [...s.querySelectorAll('tr[data-heads]')].map((tr) => ({
      heads: Number(tr.dataset.heads),
      values: [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)),
    })),
    canvases: [...s.querySelectorAll('.figures canvas:not([hidden])')].map((c) => {
      const r = c.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    }),
    // The size each figure's text is drawn at on screen, smallest first.
    textSizes: [...s.querySelectorAll('.figures canvas:not([hidden])')]
      .flatMap((c) => {
        const f = c.headwiseFigure;
        return f.items
          .filter((it) => it.kind === 'text')
          .map((it) => (it.size * c.getBoundingClientRect().width) / f.width);
      })
      .sort((a, b) => a - b),
    scroll: { w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight },
    view: { w: innerWidth, h: innerHeight },
  };
};

const waitFor = (page, state) =>
  page.waitForFunction(
    (want) =>
      document.querySelector('headwise-explorer')?.shadowRoot.querySelector('#panel-learn')?.dataset.learnState ===
      want,
    state,
    { timeout: 60_000 },
  );

const argmax = (v) => v.indexOf(Math.max(...v));

test('learn-seed, learn-width, learn-heads from the URL: 1, 2 and 4 heads side by side at 1280x720', async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    await page.goto(`${web.server.url}embed.html?panel=learn&learn-seed=3&learn-width=64&learn-heads=1,2,4`);
    await waitFor(page, 'idle');
    const before = await page.evaluate(READ);
    assert.deepEqual(before.controls, { seed: '3', width: '64', heads: '1,2,4' });
    assert.deepEqual(before.options, { seed: 3, width: 64, heads: '1,2,4' });
    assert.match(before.status, /1, 2, 4 heads, seed 3, width 64/);

    await page.evaluate(() => document.querySelector('headwise-explorer').startTraining());
    await waitFor(page, 'done');
    await page.screenshot({ path: new URL('learn-four-heads.png', ARTIFACTS).pathname });
    const seen = await page.evaluate(READ);
    const training = await page.evaluate(() => document.querySelector('headwise-explorer').trainingState());
    console.log(`# learn-seed=3 learn-width=64 learn-heads=1,2,4: ${seen.verdict}`);
    assert.deepEqual(
      training.runs.map((r) => r.heads),
      [1, 2, 4],
    );
    assert.equal(training.dModel, 64);
    assert.equal(training.seed, 3);
    const [one, two, four] = training.runs.map((r) => r.result.accuracy);
    assert.ok(one < 0.9 && two > 0.95 && four > 0.95, JSON.stringify({ one, two, four }));
    assert.match(seen.verdict, ONE_HEAD);
    assert.match(seen.verdict, TWO_HEADS);
    const finds = /heads? [\d, and]+ finds? the/.source;
    assert.match(seen.verdict, new RegExp(`; 4 heads: ${RIGHT} - ${finds} (verb|noun), ${finds} (verb|noun)\\.`));
    assert.match(seen.verdict, / Trained until the held-out accuracy stopped rising: 1 head has plateaued at/);
    assert.doesNotMatch(seen.verdict, /still rising/);
    // Drawn: two curves and three maps across the slide under its point, three a row, none on
    // another, inside the slide without scrolling.
    assert.equal(seen.canvases.length, 5);
    const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    assert.ok(
      seen.canvases.every(
        (c, k) =>
          Math.abs(c.left - seen.canvases[k % 3].left) < 2 && seen.canvases.every((d, m) => m === k || !overlap(c, d)),
      ),
      JSON.stringify(seen.canvases),
    );
    assert.ok(seen.canvases.every((c) => c.right <= seen.view.w && c.bottom <= seen.view.h));
    // Two rows of figures read from the back of the room: a slide's least text, 16 px.
    const median = seen.textSizes[Math.floor(seen.textSizes.length / 2)];
    assert.ok(seen.textSizes[0] >= 16, `figure text ${median} px, smallest ${seen.textSizes[0]} px`);
    assert.ok(seen.scroll.h <= seen.view.h && seen.scroll.w <= seen.view.w, JSON.stringify(seen.scroll));
    const fourMaps = seen.rows.filter((r) => r.heads === 4).map((r) => r.values);
    assert.equal(fourMaps.length, 4);
    const found = new Set(fourMaps.filter((v) => Math.max(...v) > 0.5).map(argmax));
    assert.ok(found.has(VERB) && found.has(NOUN), JSON.stringify(fourMaps));

    // A control (behind the slide's Details) goes back to the options, and a new run starts.
    await page.locator('headwise-explorer #panel-learn .details-toggle').click();
    await page.locator('headwise-explorer #panel-learn select').nth(1).selectOption('1,2');
    await page.waitForFunction(() => document.querySelector('headwise-explorer').getState().learnHeads === '1,2');
    await waitFor(page, 'idle');
    const changed = await page.evaluate(READ);
    assert.equal(changed.step, 0);
    assert.equal(changed.rows.filter((r) => r.heads === 4).length, 0);
    assert.equal(changed.canvases.length, 4);
    const seed = page.locator('headwise-explorer #panel-learn input[type=number]');
    await seed.fill('-5');
    await seed.dispatchEvent('change');
    const refused = await page.evaluate(READ);
    assert.match(refused.status, /learn-seed="-5" was ignored: it must be a whole number from 0 to 4294967295/);
    assert.equal(refused.controls.seed, '3');
    assert.equal(refused.options.seed, 3);
    await seed.fill('5');
    await seed.dispatchEvent('change');
    await page.waitForFunction(() => document.querySelector('headwise-explorer').getState().learnSeed === 5);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('under the strict CSP (script-src self, wasm-unsafe-eval): the Learn panel trains to its verdict', async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  try {
    const response = await page.goto(`${strictServer.url}embed.html?panel=learn`);
    assert.equal(response.headers()['content-security-policy'], STRICT_CSP);
    await waitFor(page, 'idle');
    await page.locator('headwise-explorer #panel-learn button', { hasText: 'Train' }).click();
    await waitFor(page, 'done');
    const seen = await page.evaluate(READ);
    const twoMaps = seen.rows.filter((r) => r.heads === 2).map((r) => r.values);
    assert.deepEqual(twoMaps.map(argmax).sort(), [VERB, NOUN].sort(), JSON.stringify(twoMaps));
    assert.match(seen.verdict, TWO_HEADS);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
