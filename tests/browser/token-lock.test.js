// Clicking a token in the heads panel (issue 23): a click locks its row's highlight in every head
// (the pointer moving over other tokens or the maps then changes nothing), a second click or Escape
// unlocks it, and the panel says which row is locked and how to unlock it. What is drawn is read from
// each map: the outlined row in its figure and the outline's colour in the canvas's pixels.
// Screenshots: test-artifacts/token-lock-{locked,unlocked}-{light,dark}.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS, pointerTo, twoFrames } from './page-checks.js';

const web = chromiumAndWeb();

// In the page: per head map, the row its outline is on (null for none) and whether the canvas's
// pixels at the outline's left edge are the outline's colour; and the panel's lock sentence.
const READ = () => {
  const root = document.querySelector('headwise-explorer').shadowRoot;
  const panel = root.querySelector('#panel-heads');
  const maps = [...panel.querySelectorAll('.figures:not(.mix):not(.learned-maps) canvas:not([hidden])')];
  const accent2 = { light: [0xc2, 0x4e, 0x00], dark: [0xff, 0x9d, 0x57] }[root.host.dataset.theme];
  return {
    note: panel.querySelector('.lock-note').textContent,
    pressed: [...panel.querySelectorAll('.token-bar button')].map((b) => b.getAttribute('aria-pressed')),
    maps: maps.map((canvas) => {
      const figure = canvas.headwiseFigure;
      const grid = figure.items.find((it) => it.kind === 'grid');
      const outline = figure.items.find((it) => it.kind === 'rect' && it.stroke === 'accent2');
      if (!outline) return { row: null, drawn: false };
      const scale = canvas.width / figure.width;
      const x = Math.round(outline.x * scale);
      const y = Math.round((outline.y + outline.h / 2) * scale);
      const d = canvas.getContext('2d').getImageData(x, y, 1, 1).data;
      const drawn = accent2.every((c, i) => Math.abs(d[i] - c) < 40);
      return { row: Math.round((outline.y + 1 - grid.y) / grid.cellH), drawn };
    }),
  };
};

for (const scheme of ['light', 'dark']) {
  test(`heads panel (${scheme}): a click locks a row, hover leaves it, a second click or Escape unlocks`, async () => {
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme: scheme });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(`${web.server.url}embed.html?panel=heads&theme=${scheme}`);
      await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
      // The trained heads (the default) load after the first render and draw the panel again.
      await page.waitForFunction(() => {
        const panel = document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-heads');
        return panel.dataset.headsWeights === 'trained';
      });
      const token = (text) => page.locator(`[data-panel="heads"] .token-bar button:text-is("${text}")`).first();
      const rowOf = async (text) =>
        page
          .locator('[data-panel="heads"] .token-bar button')
          .evaluateAll((bs, t) => bs.findIndex((b) => b.textContent === t), text);
      const ball = await rowOf('ball');
      const dog = await rowOf('dog');

      await token('ball').click();
      let seen = await page.evaluate(READ);
      assert.ok(seen.maps.length >= 2);
      assert.deepEqual(
        seen.maps.map((m) => m.row),
        seen.maps.map(() => ball),
        JSON.stringify(seen.maps),
      );
      assert.ok(
        seen.maps.every((m) => m.drawn),
        'the outline is in the pixels',
      );
      assert.match(seen.note, /row of "ball" is locked: click it again or press Escape to unlock/);
      assert.equal(seen.pressed[ball], 'true');

      // The pointer over another token and over a map: the locked row stays.
      // (Two frames after each move: the page has handled it when the row is read.)
      await token('dog').hover();
      await page.evaluate(twoFrames);
      const map = page.locator('[data-panel="heads"] .figures.grid canvas').first();
      const box = await map.boundingBox();
      await pointerTo(page, box.x + box.width / 2, box.y + box.height * 0.4);
      seen = await page.evaluate(READ);
      assert.deepEqual(
        seen.maps.map((m) => m.row),
        seen.maps.map(() => ball),
        'still locked on "ball"',
      );
      await page.screenshot({ path: `${ARTIFACTS}token-lock-locked-${scheme}.png` });

      // A second click unlocks; the panel says how to lock again.
      await token('ball').click();
      seen = await page.evaluate(READ);
      assert.match(seen.note, /Click a token to lock its row/);
      assert.ok(seen.pressed.every((p) => p === 'false'));
      assert.ok(
        seen.maps.every((m) => m.row === null),
        JSON.stringify(seen.maps),
      );
      // Unlocked, hovering highlights again.
      await token('dog').hover();
      seen = await page.evaluate(READ);
      assert.ok(
        seen.maps.every((m) => m.row === dog),
        JSON.stringify(seen.maps),
      );
      await page.screenshot({ path: `${ARTIFACTS}token-lock-unlocked-${scheme}.png` });

      // Escape unlocks too, with the focus on the token or elsewhere in the panel.
      await token('ball').click();
      await page.keyboard.press('Escape');
      seen = await page.evaluate(READ);
      assert.match(seen.note, /Click a token to lock its row/);
      await token('ball').click();
      await page.locator('[data-panel="heads"] .point').click();
      await page
        .locator('[data-panel="heads"] canvas')
        .first()
        .focus()
        .catch(() => {});
      await page.keyboard.press('Escape');
      seen = await page.evaluate(READ);
      assert.ok(
        seen.pressed.every((p) => p === 'false'),
        'Escape from elsewhere in the panel',
      );
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

const FRISBEE = 'The dog chased the frisbee, but it could not catch it';
// A page of the heads panel whose trained heads (their checkpoints load as scripts after the first
// render) are held back until release() lets them through.
async function heldBack(context) {
  const page = await context.newPage();
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  await page.route('**/checkpoints/story-*-heads.js', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${web.server.url}embed.html?panel=heads&sentence=${encodeURIComponent(FRISBEE)}`);
  await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
  return { page, release };
}

const WEIGHTS = () =>
  document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-heads').dataset.headsWeights;
const WEIGHTS_ARE = (source) =>
  document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-heads').dataset.headsWeights === source;

// The trained heads draw the panel again in the story model's words ("frisbee", not in its
// vocabulary, left out): "catch" is token 10 of the sentence and row 9 of the model's. A lock or the keyboard
// focus made before they arrive stays on "catch"; so does a lock when "Random weights" switches.
test('heads panel: a row locked before the trained heads arrive stays on its token, and after the toggle', async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const errors = [];
  const { page, release } = await heldBack(context);
  page.on('pageerror', (e) => errors.push(e.message));
  const bar = page.locator('[data-panel="heads"] .token-bar button');
  const rowOf = (text) => bar.evaluateAll((bs, t) => bs.findIndex((b) => b.textContent === t), text);
  try {
    assert.equal(await page.evaluate(WEIGHTS), 'loading');
    assert.equal(await rowOf('catch'), 10, 'the sentence as typed');
    await bar.filter({ hasText: /^catch$/ }).click();
    let seen = await page.evaluate(READ);
    assert.deepEqual(
      seen.maps.map((m) => m.row),
      seen.maps.map(() => 10),
    );

    release();
    await page.waitForFunction(WEIGHTS_ARE, 'trained');
    assert.equal(await rowOf('catch'), 9, "the model's words");
    for (const source of ['trained', 'random', 'trained']) {
      if (source !== (await page.evaluate(WEIGHTS))) {
        await page.locator('[data-panel="heads"] .weights-toggle').click();
        await page.waitForFunction(WEIGHTS_ARE, source);
      }
      seen = await page.evaluate(READ);
      assert.deepEqual(
        seen.maps.map((m) => m.row),
        seen.maps.map(() => 9),
        `still locked on "catch" (${source})`,
      );
      assert.equal(seen.pressed.indexOf('true'), 9);
      assert.match(seen.note, /row of "catch" is locked/);
    }
    assert.deepEqual(errors, []);
  } finally {
    release();
    await context.close();
  }
});

test('heads panel: a token focused or pointed at before the trained heads arrive keeps its row', async () => {
  for (const how of ['focus', 'hover']) {
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
    const { page, release } = await heldBack(context);
    try {
      await page.locator('[data-panel="heads"] .token-bar button:text-is("catch")')[how]();
      release();
      await page.waitForFunction(WEIGHTS_ARE, 'trained');
      const seen = await page.evaluate(READ);
      assert.deepEqual(
        seen.maps.map((m) => m.row),
        seen.maps.map(() => 9),
        how,
      );
      if (how === 'focus') {
        const focused = await page.evaluate(
          () => document.querySelector('headwise-explorer').shadowRoot.activeElement?.textContent ?? null,
        );
        assert.equal(focused, 'catch');
      }
    } finally {
      release();
      await context.close();
    }
  }
});
