// What the Learn panel trained, in the panels that show it beside their own maps (issue 13): before
// training, the heads panel says its weights are random and untrained and what trained heads would
// show; "Train the heads" trains on demand, in place (panel 7 hidden in an embed); after the run, the heads
// panel draws the same 2-head model random and trained, and the trained heads' maps from "?" land
// on the latest verb and the latest noun; the "why one head" panel draws the learned 1-head and
// 2-head maps beside the designed ones.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { mkdir } from 'node:fs/promises';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);
// "the dog chase the cat and the boy catch the ball ?": the latest verb is word 8, the latest noun 10.
const VERB = 8;
const NOUN = 10;
const web = chromiumAndWeb();

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
});

// In the page: the learned block of a panel, as a user sees it: its sentence and whether it is in
// the view, the canvases of its maps, which the panel places (size, place, how many bright-yellow
// pixels: viridis near 1), its numbers.
const READ = (id) => {
  const root = document.querySelector('headwise-explorer').shadowRoot;
  const panel = root.querySelector(`#panel-${id}`);
  const block = panel.querySelector('.learned');
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height };
  };
  const bright = (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] > 190 && d[i + 2] < 90) n += 1;
    return n;
  };
  const button = block.querySelector('button');
  return {
    learned: block.dataset.learned,
    note: block.querySelector('.learned-note').textContent,
    noteBox: box(block.querySelector('.learned-note')),
    button: button.hidden ? null : { text: button.textContent, disabled: button.disabled, box: box(button) },
    panelBox: box(panel),
    canvases: [...panel.querySelectorAll('.learned-maps canvas:not([hidden])')].map((c) => ({
      kind: c.dataset.kind,
      box: box(c),
      bright: bright(c),
    })),
    rows: [...block.querySelectorAll('tr[data-kind]')].map((tr) => ({
      kind: tr.dataset.kind,
      heads: Number(tr.dataset.heads),
      values: [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)),
    })),
    view: { w: innerWidth, h: innerHeight },
  };
};

const argmax = (v) => v.indexOf(Math.max(...v));

// The heads panel shows the shipped model's trained heads by default; the Learn run's view (and its
// Train button) is the one of its random weights (heads-weights=random).
const WEIGHTS = { heads: '&heads-weights=random', why: '' };

async function open(page, id) {
  await page.goto(`${web.server.url}embed.html?panel=${id}&slide=0${WEIGHTS[id]}`);
  await page.waitForFunction(() => document.querySelector('headwise-explorer')?.dataset.ready === 'true');
  return page.evaluate(READ, id);
}

async function trainHere(page, id) {
  await page.locator(`headwise-explorer #panel-${id} .learned button`).click();
  await page.waitForFunction(
    (panel) =>
      document.querySelector('headwise-explorer').shadowRoot.querySelector(`#panel-${panel} .learned`).dataset
        .learned === 'true',
    id,
    { timeout: 60_000 },
  );
  return page.evaluate(READ, id);
}

test('heads panel: random and untrained said before; after training, trained heads find verb and noun', async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    const before = await open(page, 'heads');
    assert.equal(before.learned, 'false');
    assert.match(before.note, /random and untrained/);
    assert.match(before.note, /one head at the latest verb \("catch"\), another at the latest noun \("ball"\)/);
    assert.ok(before.noteBox.height > 0 && before.noteBox.bottom <= before.view.h, JSON.stringify(before.noteBox));
    assert.equal(before.button?.text, 'Train the heads');
    assert.equal(before.canvases.length, 0);

    const seen = await trainHere(page, 'heads');
    await page.screenshot({ path: new URL('learned-heads.png', ARTIFACTS).pathname, fullPage: true });
    assert.equal(seen.button, null, 'the button goes once there is something trained');
    assert.deepEqual(
      seen.canvases.map((c) => c.kind),
      ['untrained', 'trained'],
    );
    for (const c of seen.canvases) {
      assert.ok(c.box.width > 150 && c.box.height > 60, JSON.stringify(c.box));
      assert.ok(c.box.left >= seen.panelBox.left && c.box.right <= seen.panelBox.right + 1, JSON.stringify(c.box));
    }
    // Side by side: the random map left of the trained one, on the same row.
    const [random, trained] = seen.canvases;
    assert.ok(random.box.right <= trained.box.left && Math.abs(random.box.top - trained.box.top) < 2);
    const trainedRows = seen.rows.filter((r) => r.kind === 'trained').map((r) => r.values);
    const randomRows = seen.rows.filter((r) => r.kind === 'untrained').map((r) => r.values);
    assert.equal(trainedRows.length, 2);
    assert.deepEqual(trainedRows.map(argmax).sort(), [VERB, NOUN].sort(), JSON.stringify(trainedRows));
    assert.ok(
      trainedRows.every((v) => Math.max(...v) > 0.5),
      JSON.stringify(trainedRows),
    );
    assert.ok(
      randomRows.every((v) => Math.max(...v) < 0.5),
      JSON.stringify(randomRows),
    );
    // What is drawn: the trained map has cells near 1 (bright yellow), the random one has none.
    assert.ok(trained.bright > 200 && random.bright < trained.bright / 10, JSON.stringify(seen.canvases));
    assert.match(seen.note, /head \d looks at "(catch|ball)" \(\d\.\d\d\), head \d looks at "(catch|ball)"/);
    assert.match(seen.note, /The T x T head maps still use random weights/);
    console.log(`# heads panel after training: ${seen.note}`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('"why one head" panel: the learned 1-head and 2-head maps beside the designed ones', async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    const before = await open(page, 'why');
    assert.match(before.note, /designed by hand/);
    assert.equal(before.button?.text, 'Train the heads');
    const designed = await page.evaluate(
      () =>
        document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('#panel-why .side > .figures canvas')
          .length,
    );
    // A wide panel draws the bars and the maps of one head and of two heads as five figures.
    assert.equal(designed, 5, 'the designed bars and maps are there');

    const seen = await trainHere(page, 'why');
    await page.screenshot({ path: new URL('learned-why.png', ARTIFACTS).pathname, fullPage: true });
    assert.deepEqual(
      seen.canvases.map((c) => c.kind),
      ['trained', 'trained'],
    );
    const [one, two] = [1, 2].map((h) => seen.rows.filter((r) => r.heads === h).map((r) => r.values));
    assert.equal(one.length, 1);
    // One head cannot put most of its attention on both words; two heads take one each.
    assert.ok(Math.max(...one[0]) < 0.9, JSON.stringify(one));
    assert.deepEqual(two.map(argmax).sort(), [VERB, NOUN].sort(), JSON.stringify(two));
    assert.ok(seen.canvases[1].bright > 200, JSON.stringify(seen.canvases));
    assert.match(seen.note, /Learned, not designed: after \d+ steps/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('index.html: one run in panel 7 feeds the heads and why panels; a reset takes both back', async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  const learnedIn = (id) =>
    page.evaluate(
      (panel) =>
        document.querySelector('headwise-explorer').shadowRoot.querySelector(`#panel-${panel} .learned`).dataset
          .learned,
      id,
    );
  try {
    await page.goto(`${web.server.url}index.html?heads-weights=random`);
    await page.waitForFunction(() => document.querySelector('headwise-explorer')?.dataset.ready === 'true');
    assert.deepEqual([await learnedIn('heads'), await learnedIn('why')], ['false', 'false']);
    await page.locator('headwise-explorer #panel-heads .learned button').click();
    // The other panel says so too.
    await page.waitForFunction(() =>
      document
        .querySelector('headwise-explorer')
        .shadowRoot.querySelector('#panel-why .learned-note')
        .textContent.startsWith('Training 1 and 2 heads'),
    );
    await page.waitForFunction(
      () =>
        [...document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('.learned')].every(
          (b) => b.dataset.learned === 'true',
        ),
      null,
      { timeout: 60_000 },
    );
    const [heads, why] = [await page.evaluate(READ, 'heads'), await page.evaluate(READ, 'why')];
    const trained = (seen) => seen.rows.filter((r) => r.kind === 'trained' && r.heads === 2).map((r) => r.values);
    assert.deepEqual(trained(heads), trained(why), 'both panels draw the same trained model');
    const state = await page.evaluate(() => document.querySelector('headwise-explorer').trainingState());
    assert.equal(state.state, 'done');
    await page.evaluate(() => document.querySelector('headwise-explorer').resetTraining());
    await page.waitForFunction(() =>
      [...document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('.learned')].every(
        (b) => b.dataset.learned === 'false',
      ),
    );
    const after = await page.evaluate(READ, 'heads');
    assert.match(after.note, /random and untrained/);
    assert.equal(after.canvases.length, 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
