// Reading heatmaps cell by cell, as a user does: the pointer over a drawn cell (found from the canvas
// pixels) or the arrow keys on a focused map show the cell's tokens, its scaled dot product and its
// weight, checked against an independent double-precision computation from the module's weights;
// the tip stays in the frame and leaves with the pointer. Also: exports in the dark theme, masked
// cells against low attention and zero scores in both themes, and the contrast of bars, all read from
// what is drawn.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { readFile } from 'node:fs/promises';
import { ARTIFACTS, canvasPixels, pointerTo } from './page-checks.js';
import { loadHeadwise } from '../../web/headwise.js';
import { sentenceBatch } from '../../web/explorer/lecture/tokenizer.js';
import { embedTokens } from '../../web/explorer/lecture/token-embeddings.js';
import { diverging, viridis } from '../../web/explorer/figures/colour-scale.js';
import { DARK, LIGHT } from '../../web/explorer/figures/figure.js';

const web = chromiumAndWeb();
let hw;

before(async () => {
  hw = await loadHeadwise();
});

// WCAG 2 contrast, written out here rather than taken from the page's code.
const channel = (v) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
const luminance = (rgb) =>
  0.2126 * channel(rgb >> 16) + 0.7152 * channel((rgb >> 8) & 255) + 0.0722 * channel(rgb & 255);
const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const rgbOf = (hex) => parseInt(hex.slice(1, 7), 16);
const hex = (v) => `#${v.toString(16).padStart(6, '0')}`;
const VIRIDIS_RGB = new Set(Array.from({ length: 256 }, (_, k) => rgbOf(viridis(k / 255))));
const PUOR_RGB = new Set(Array.from({ length: 257 }, (_, k) => rgbOf(diverging(k / 128 - 1, 1))));

async function open(url, { viewport = { width: 1280, height: 720 }, colorScheme = 'light', hasTouch = false } = {}) {
  const context = await web.browser.newContext({ viewport, colorScheme, hasTouch, acceptDownloads: true });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(url);
  await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 20_000 });
  await page.waitForSelector('headwise-explorer:not([data-drawing])');
  return { page, context, problems };
}

/**
 * The page's batch (one sentence per line) and configuration (from getState), and for every head of
 * sentence 1 (the one the maps draw; its tokens are `tokens`), in double precision from the module's
 * weights: score(h, i, j) = q_i . k_j / sqrt(hd) and the causal softmax weight(h, i, j).
 */
async function reference(page, { whole = false } = {}) {
  const state = await page.locator('headwise-explorer').evaluate((host) => host.getState());
  const batch = sentenceBatch(state.sentence).sentences;
  // The heads panel reads the batch as one sequence; the steps panel draws sentence 1 of the batch.
  const sentences = whole ? [batch.flat()] : batch;
  const tokens = sentences[0];
  const [B, T, D, H] = [sentences.length, tokens.length, state.width, state.heads];
  const hd = D / H;
  const x = embedTokens(hw, sentences.flat(), D);
  const layer = hw.createAttention({
    batch: B,
    tokens: T,
    dModel: D,
    heads: H,
    causal: state.causal,
    seed: state.seed,
  });
  const { wq, wk } = layer.getWeights();
  const api = layer.forward(x, { intermediates: true }); // the module's own float32 numbers
  layer.dispose();
  const project = (w) =>
    Array.from({ length: T }, (_, t) =>
      Array.from({ length: D }, (_, c) => {
        let s = 0;
        for (let d = 0; d < D; d += 1) s += x[t * D + d] * w[d * D + c];
        return s;
      }),
    );
  const [q, k] = [project(wq), project(wk)];
  const score = (h, i, j) => {
    let s = 0;
    for (let e = h * hd; e < (h + 1) * hd; e += 1) s += q[i][e] * k[j][e];
    return s / Math.sqrt(hd);
  };
  const weight = (h, i, j) => {
    const seen = state.causal ? i + 1 : T;
    const row = Array.from({ length: seen }, (_, b) => score(h, i, b));
    const top = Math.max(...row);
    const sum = row.reduce((a, s) => a + Math.exp(s - top), 0);
    return j < seen ? Math.exp(row[j] - top) / sum : 0;
  };
  const at = (h, i, j) => (h * T + i) * T + j; // batch entry 0 comes first in (B, H, T, T)
  const apiScore = (h, i, j) => api.scores[at(h, i, j)];
  const apiWeight = (h, i, j) => api.attention[at(h, i, j)];
  return { sentences, tokens, T, hd, causal: state.causal, score, weight, apiScore, apiWeight };
}

/** Canvas `index` of a figure area: its pixels (0xrrggbb), its box on the page and its pixel ratio. */
async function canvasOf(page, selector, index) {
  const canvas = page.locator(selector).nth(index);
  await canvas.scrollIntoViewIfNeeded();
  const image = await canvasPixels(canvas);
  const box = await canvas.boundingBox();
  return { canvas, ...image, box, ratio: image.width / box.width };
}

/**
 * The T x T grid as drawn: the box of its pixels of the scale (viridis, or PuOr for scores); cell(i, j)
 * is the centre on the page. Only 3 x 3 px blocks of the scale count: the anti-aliased edge of light
 * text (the dark theme's labels) can have a PuOr colour, but its strokes are thinner than a cell.
 */
function drawnGrid(image, T, scale = VIRIDIS_RGB) {
  let [x0, y0, x1, y1] = [image.width, image.height, -1, -1];
  const solid = (x, y) =>
    [0, 2].every((dy) => [0, 2].every((dx) => y + dy < image.height && scale.has(image.pixel(x + dx, y + dy))));
  for (let y = 0; y < image.height; y += 1) {
    for (let x = 0; x + 2 < image.width; x += 1) {
      if (!solid(x, y)) continue;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x + 2), Math.max(y1, y + 2)];
    }
  }
  const [cw, ch] = [(x1 + 1 - x0) / T, (y1 + 1 - y0) / T];
  assert.ok(cw >= 4 && ch >= 4, `a grid of ${cw} x ${ch} px cells`);
  return {
    cell: (i, j) => ({
      x: image.box.x + (x0 + (j + 0.5) * cw) / image.ratio,
      y: image.box.y + (y0 + (i + 0.5) * ch) / image.ratio,
    }),
    pixelAt: (i, j) => image.pixel(Math.floor(x0 + (j + 0.2) * cw), Math.floor(y0 + (i + 0.2) * ch)),
  };
}

const shownTip = (page, panel) => page.locator(`[data-panel="${panel}"] .cell-tip:not([hidden])`);

/** The visible tip: its heading's row and column (1-based, tokens), score and weight as printed. */
async function readTip(page, panel) {
  const tip = shownTip(page, panel);
  assert.equal(await tip.count(), 1, 'one tooltip is shown');
  const text = await tip.innerText();
  const m = /^row (\d+) “(.*)”, column (\d+) “(.*)”/.exec(text);
  assert.ok(m, `the tip names its row and column tokens: ${JSON.stringify(text)}`);
  const number = (re) => {
    const found = re.exec(text);
    return found ? Number(found[1]) : null;
  };
  return {
    text,
    box: await tip.boundingBox(),
    row: Number(m[1]) - 1,
    rowToken: m[2],
    col: Number(m[3]) - 1,
    colToken: m[4],
    score: number(/q_\d+ · k_\d+ \/ √\d+ = (-?[\d.e+-]+) \(before softmax\)/),
    weight: number(/weight (-?[\d.e+-]+) \(after softmax\)/),
  };
}

/** The tip says what the reference says for head h, cell (i, j), to the 4 digits it prints. */
function assertTipMatches(tip, ref, h, i, j) {
  assert.deepEqual([tip.row, tip.col], [i, j], tip.text);
  assert.deepEqual([tip.rowToken, tip.colToken], [ref.tokens[i], ref.tokens[j]], tip.text);
  assert.match(tip.text, new RegExp(`q_${i + 1} · k_${j + 1} / √${ref.hd} =`));
  const close = (got, want) => Math.abs(got - want) <= 6e-4 * Math.abs(want) + 1e-6;
  const [score, weight] = [ref.score(h, i, j), ref.weight(h, i, j)];
  assert.ok(close(tip.score, score), `head ${h + 1} (${i}, ${j}): tip score ${tip.score}, reference ${score}`);
  assert.ok(close(tip.weight, weight), `head ${h + 1} (${i}, ${j}): tip weight ${tip.weight}, reference ${weight}`);
  // The module's float32 numbers agree with the double reference (so the tip agrees with both).
  assert.ok(Math.abs(ref.apiScore(h, i, j) - score) < 1e-5, `module score ${ref.apiScore(h, i, j)}`);
  assert.ok(Math.abs(ref.apiWeight(h, i, j) - weight) < 1e-5, `module weight ${ref.apiWeight(h, i, j)}`);
  assert.ok(close(tip.score, ref.apiScore(h, i, j)) && close(tip.weight, ref.apiWeight(h, i, j)));
  console.log(
    `head ${h + 1} cell (${i}, ${j}): score ${tip.score} (double ${score}), weight ${tip.weight} (${weight})`,
  );
}

function assertInside(box, viewport, what) {
  assert.ok(box, `${what}: shown`);
  const inside =
    box.x >= -0.5 &&
    box.y >= -0.5 &&
    box.x + box.width <= viewport.width + 0.5 &&
    box.y + box.height <= viewport.height + 0.5;
  assert.ok(inside, `${what}: tip at ${JSON.stringify(box)} inside ${viewport.width} x ${viewport.height}`);
}

/** The outline the tooltip draws round the cell contains the cell's centre. */
async function assertOutlined(page, panel, point) {
  const outline = await page.locator(`[data-panel="${panel}"] .cell-box:not([hidden])`).boundingBox();
  assert.ok(outline, 'the cell is outlined');
  const holds = (b) => point.x > b.x && point.x < b.x + b.width && point.y > b.y && point.y < b.y + b.height;
  assert.ok(holds(outline), `outline ${JSON.stringify(outline)} holds the cell centre ${JSON.stringify(point)}`);
}

const HEADS = '[data-panel="heads"] .figures.grid > canvas';
// The heads panel draws the input panel's own layer (the reference's) where no trained model has its
// head count: 3 heads of 2 (with 1 or 2 heads it draws the shipped trained model's heads).
const OWN_LAYER = 'heads=3';

describe('heatmap cells, read by pointer and keyboard', () => {
  test('heads panel: hover shows tokens, score and weight of the cell under the pointer; gone after', async () => {
    const viewport = { width: 1280, height: 720 };
    const { page, context, problems } = await open(`${web.server.url}index.html?panel=heads&${OWN_LAYER}`, {
      viewport,
    });
    try {
      const ref = await reference(page, { whole: true });
      const { T } = ref;
      const image = await canvasOf(page, HEADS, 1);
      const grid = drawnGrid(image, T);
      const before = await image.canvas.evaluate((c) => c.toDataURL());
      // Head 2, the lecture's last "it" (row 12 of the whole sentence), looking at "ball" (column 5).
      const [i, j] = [T - 1, ref.tokens.indexOf('ball')];
      assert.deepEqual([T, ref.tokens[i], j], [12, 'it', 4], 'the default sentence, read whole');
      await pointerTo(page, grid.cell(i, j).x, grid.cell(i, j).y);
      const tip = await readTip(page, 'heads');
      assertTipMatches(tip, ref, 1, i, j);
      assertInside(tip.box, viewport, 'bottom row');
      await assertOutlined(page, 'heads', grid.cell(i, j));
      await page.screenshot({ path: `${ARTIFACTS}heatmap-hover-heads.png` });
      // A cell the causal mask hides says so.
      await pointerTo(page, grid.cell(0, T - 1).x, grid.cell(0, T - 1).y);
      const masked = await shownTip(page, 'heads').innerText();
      assert.match(masked, /masked: the causal mask hides a later token/);
      assert.match(masked, /score −∞ before softmax, weight 0 after/);
      // Top-left cell: still inside the frame (below the cell when there is no room above).
      await pointerTo(page, grid.cell(0, 0).x, grid.cell(0, 0).y);
      assertInside((await readTip(page, 'heads')).box, viewport, 'top-left cell');
      // The pointer leaves: no tip, no outline, and the map is drawn as it was before the hover.
      await pointerTo(page, 4, 4);
      assert.equal(await shownTip(page, 'heads').count(), 0, 'the tip leaves with the pointer');
      assert.equal(await page.locator('[data-panel="heads"] .cell-box:not([hidden])').count(), 0);
      assert.equal(await image.canvas.evaluate((c) => c.toDataURL()), before, 'the hover highlight left the map');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('steps panel, attend step: a hovered scores or softmax cell gives its tokens, score and weight', async () => {
    const viewport = { width: 1280, height: 720 };
    const { page, context, problems } = await open(`${web.server.url}index.html?panel=steps`, { viewport });
    try {
      const next = page.locator('[data-panel="steps"] .stepper button:text-is("Next step")');
      await next.click();
      await next.click();
      assert.match(await page.locator('[data-panel="steps"] .status').innerText(), /attend/);
      const ref = await reference(page);
      // Per head its scores map (signed: PuOr) then its softmax map (viridis), in a grid of maps.
      const maps = '[data-panel="steps"] .figures > canvas:not([hidden])';
      const [i, j] = [4, 1]; // "ball" looking at "dog"
      for (const [index, h, scale] of [
        [0, 0, PUOR_RGB],
        [1, 0, VIRIDIS_RGB],
        [3, 1, VIRIDIS_RGB],
      ]) {
        const grid = drawnGrid(await canvasOf(page, maps, index), ref.T, scale);
        await pointerTo(page, grid.cell(i, j).x, grid.cell(i, j).y);
        const tip = await readTip(page, 'steps');
        assertTipMatches(tip, ref, h, i, j);
        assertInside(tip.box, viewport, `map ${index + 1}`);
        await assertOutlined(page, 'steps', grid.cell(i, j));
        if (index === 0) await page.screenshot({ path: `${ARTIFACTS}heatmap-hover-attend.png` });
        await pointerTo(page, grid.cell(0, ref.T - 1).x, grid.cell(0, ref.T - 1).y);
        assert.match(await shownTip(page, 'steps').innerText(), /score −∞ before softmax, weight 0 after/);
      }
      await pointerTo(page, 4, 4);
      assert.equal(await shownTip(page, 'steps').count(), 0, 'the tip leaves with the pointer');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('steps panel, attend step, GPT-2 sizes: the tips of the 24 small unlabelled maps name the tokens', async () => {
    const viewport = { width: 1280, height: 720 };
    const url = `${web.server.url}embed.html?panel=steps&preset=gpt2`;
    const { page, context, problems } = await open(url, { viewport });
    try {
      await page.locator('headwise-explorer').evaluate((host) => host.goToStep(2));
      await page.waitForSelector('headwise-explorer:not([data-drawing])');
      const ref = await reference(page);
      const maps = '[data-panel="steps"] .figures > canvas:not([hidden])';
      assert.equal(await page.locator(maps).count(), 24);
      const [i, j] = [5, 2]; // "," looking at "chased"
      for (const [index, h, scale] of [
        [0, 0, PUOR_RGB],
        [23, 11, VIRIDIS_RGB],
      ]) {
        const image = await canvasOf(page, maps, index);
        // 12 tokens in under 160 px: cells under 13.3 px, too small for the slide's 16 px labels.
        assert.ok(image.box.width < 160, `map ${index + 1} is ${image.box.width} px wide: too small for labels`);
        const grid = drawnGrid(image, ref.T, scale);
        await pointerTo(page, grid.cell(i, j).x, grid.cell(i, j).y);
        const tip = await readTip(page, 'steps');
        assertTipMatches(tip, ref, h, i, j);
        assertInside(tip.box, viewport, `map ${index + 1}`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('keyboard: one tab stop per heatmap, arrows move a cell cursor, Escape and blur hide it', async () => {
    const { page, context, problems } = await open(`${web.server.url}index.html?panel=heads&${OWN_LAYER}`);
    try {
      const ref = await reference(page, { whole: true });
      const active = () =>
        page.locator('headwise-explorer').evaluate((host, selector) => {
          const canvases = [...host.shadowRoot.querySelectorAll(selector.replace('[data-panel="heads"] ', ''))];
          return canvases.indexOf(host.shadowRoot.activeElement);
        }, HEADS);
      await page.locator('[data-panel="heads"] .token-bar button[tabindex="0"]').focus();
      await page.keyboard.press('Tab');
      // The note on untrained weights, said before the maps, has its Train button.
      const train = page.locator('[data-panel="heads"] .learned button');
      if (await train.evaluate((b) => b.getRootNode().activeElement === b)) await page.keyboard.press('Tab');
      assert.equal(await active(), 0, 'Tab after the token bar (and the Train button) reaches head 1');
      let tip = await readTip(page, 'heads');
      assert.deepEqual([tip.row, tip.col], [0, 0], 'the cursor starts at the first cell');
      for (let k = 0; k < 4; k += 1) await page.keyboard.press('ArrowDown');
      for (let k = 0; k < 2; k += 1) await page.keyboard.press('ArrowRight');
      tip = await readTip(page, 'heads');
      assertTipMatches(tip, ref, 0, 4, 2);
      assertInside(tip.box, { width: 1920, height: 1080 }, 'keyboard cursor');
      // Arrows stay inside the map: the next Tab leaves it for the next map.
      await page.keyboard.press('Tab');
      assert.equal(await active(), 1, 'one Tab moves from head 1 to head 2');
      tip = await readTip(page, 'heads');
      assert.deepEqual([tip.row, tip.col], [0, 0], 'head 2 shows its own cursor, head 1 tip is gone');
      await page.keyboard.press('Escape');
      assert.equal(await shownTip(page, 'heads').count(), 0, 'Escape hides the tip');
      await page.keyboard.press('ArrowDown');
      assert.equal((await readTip(page, 'heads')).row, 1, 'an arrow shows it again, one row down');
      await page.locator('[data-panel="heads"] .token-bar button[tabindex="0"]').focus();
      assert.equal(await shownTip(page, 'heads').count(), 0, 'blur hides the tip');
      assert.equal(await page.locator('[data-panel="heads"] .cell-box:not([hidden])').count(), 0);
      // After a click on a map the arrows are left to the page (a deck moves on them).
      const grid = drawnGrid(await canvasOf(page, HEADS, 0), ref.T);
      await page.mouse.click(grid.cell(3, 1).x, grid.cell(3, 1).y);
      assert.equal(await active(), 0, 'the click focused the map');
      await page.evaluate(() => {
        addEventListener('keydown', (event) => (globalThis.arrowTaken = event.defaultPrevented), { once: true });
      });
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.evaluate(() => globalThis.arrowTaken), false, 'the arrow reached the page untouched');
      tip = await readTip(page, 'heads');
      assert.deepEqual([tip.row, tip.col], [3, 1], 'the tip stays on the clicked cell');
      // A shorter sentence: the cursor (row 4 of 6) is no longer a cell; focus starts again at the first.
      await pointerTo(page, 4, 4);
      await page.locator('headwise-explorer').evaluate((host) => host.setOptions({ sentence: 'The dog' }));
      await page.waitForFunction(() => {
        const root = document.querySelector('headwise-explorer').shadowRoot;
        return root.querySelector('[data-panel="heads"] .status').textContent.includes('2 x 2');
      });
      await page.locator('[data-panel="heads"] .token-bar button[tabindex="0"]').focus();
      await page.keyboard.press('Tab');
      if (await train.evaluate((b) => b.getRootNode().activeElement === b)) await page.keyboard.press('Tab');
      tip = await readTip(page, 'heads');
      assert.deepEqual([tip.row, tip.rowToken, tip.col, tip.colToken], [0, 'The', 0, 'The']);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      assert.equal((await readTip(page, 'heads')).row, 1, 'the cursor stops at the last of 2 rows');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('on a 1280 x 720 slide (embed.html) the tip of every corner cell of every head stays on the slide', async () => {
    const viewport = { width: 1280, height: 720 };
    const { page, context, problems } = await open(`${web.server.url}embed.html?panel=heads`, { viewport });
    try {
      const { T } = await reference(page, { whole: true });
      const count = await page.locator(HEADS).count();
      for (let h = 0; h < count; h += 1) {
        if (!(await page.locator(HEADS).nth(h).isVisible())) continue;
        const grid = drawnGrid(await canvasOf(page, HEADS, h), T);
        for (const [i, j] of [
          [0, 0],
          [0, T - 1],
          [T - 1, 0],
          [T - 1, T - 1],
        ]) {
          await pointerTo(page, grid.cell(i, j).x, grid.cell(i, j).y);
          const tip = await readTip(page, 'heads');
          assert.deepEqual([tip.row, tip.col], [i, j]);
          assertInside(tip.box, viewport, `head ${h + 1} cell (${i}, ${j})`);
        }
      }
      await page.screenshot({ path: `${ARTIFACTS}heatmap-hover-slide.png` });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('on a 390 px phone the tip stays inside the screen, and a tap shows it', async () => {
    const viewport = { width: 390, height: 844 };
    const { page, context, problems } = await open(`${web.server.url}index.html?panel=heads&${OWN_LAYER}`, {
      viewport,
      hasTouch: true,
    });
    try {
      const ref = await reference(page, { whole: true });
      const { T } = ref;
      const image = await canvasOf(page, HEADS, 0);
      const grid = drawnGrid(image, T);
      for (const [i, j] of [
        [T - 1, T - 1],
        [T - 1, 0],
        [Math.floor(T / 2), Math.floor(T / 2)],
      ]) {
        await pointerTo(page, grid.cell(i, j).x, grid.cell(i, j).y);
        const tip = await readTip(page, 'heads');
        assertInside(tip.box, viewport, `cell (${i}, ${j})`);
      }
      await page.screenshot({ path: `${ARTIFACTS}heatmap-hover-phone.png` });
      await pointerTo(page, 2, 2);
      await page.touchscreen.tap(grid.cell(T - 1, 2).x, grid.cell(T - 1, 2).y);
      const tapped = await readTip(page, 'heads');
      assertTipMatches(tapped, ref, 0, T - 1, 2);
      assertInside(tapped.box, viewport, 'tapped cell');
      // A second tap on the focused map moves the tip to that cell.
      await page.touchscreen.tap(grid.cell(T - 2, T - 2).x, grid.cell(T - 2, T - 2).y);
      const again = await readTip(page, 'heads');
      assertTipMatches(again, ref, 0, T - 2, T - 2);
      assertInside(again.box, viewport, 'second tapped cell');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});

describe('themes and contrast', () => {
  for (const scheme of ['light', 'dark']) {
    test(`${scheme} mode: masked cells stand apart from low attention and from a zero score by >= 3:1`, async () => {
      const { page, context, problems } = await open(`${web.server.url}index.html`, { colorScheme: scheme });
      try {
        const measure = (ref, grid, value, darkest, what) => {
          const { T } = ref;
          // The cell of head 1 whose |value| is least among the visible ones: the nearest to a masked cell.
          let low = [0, 0];
          for (let i = 0; i < T; i += 1) {
            for (let j = 0; j <= i; j += 1) if (Math.abs(value(0, i, j)) < Math.abs(value(0, ...low))) low = [i, j];
          }
          const [maskedPixel, lowPixel] = [grid.pixelAt(0, T - 1), grid.pixelAt(...low)];
          const [ratio, toEnd] = [contrast(maskedPixel, lowPixel), contrast(maskedPixel, rgbOf(darkest))];
          console.log(
            `${scheme} mode: masked ${hex(maskedPixel)} vs least ${what} ${value(0, ...low).toFixed(4)} ` +
              `${hex(lowPixel)}: contrast ${ratio.toFixed(2)}; vs ${darkest} ${toEnd.toFixed(2)}`,
          );
          assert.ok(ratio >= 3 && toEnd >= 3, `masked against ${what}: ${ratio.toFixed(2)}, ${toEnd.toFixed(2)}`);
        };
        // The heads panel's attention (viridis, low is dark) over the whole sentence, as pixels on the canvas.
        const whole = await reference(page, { whole: true });
        const heads = drawnGrid(await canvasOf(page, HEADS, 0), whole.T);
        measure(whole, heads, whole.weight, viridis(0), 'weight');
        // The attend step's scores before softmax (PuOr, zero is white) of sentence 1, masked where -Infinity.
        const ref = await reference(page);
        await page.locator('headwise-explorer').evaluate((host) => host.goToStep(2));
        await page.waitForSelector('headwise-explorer:not([data-drawing])');
        const maps = '[data-panel="steps"] .figures > canvas:not([hidden])';
        const scores = drawnGrid(await canvasOf(page, maps, 0), ref.T, PUOR_RGB);
        measure(ref, scores, ref.score, diverging(0, 1), '|score|');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }

  test('dark mode: SVG and PNG exports have the dark background and print no -0.0', async () => {
    const { page, context, problems } = await open(`${web.server.url}index.html`, { colorScheme: 'dark' });
    try {
      const saved = async (panel, label) => {
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.locator(`[data-panel="${panel}"] .exports button:text-is("${label}")`).click(),
        ]);
        return readFile(await download.path());
      };
      for (const panel of ['input', 'why', 'steps', 'heads', 'order']) {
        const svg = (await saved(panel, 'SVG')).toString('utf8');
        assert.ok(
          svg.includes(`<rect width="100%" height="100%" fill="${DARK.bg}"/>`),
          `${panel} SVG has the dark background`,
        );
        assert.ok(!svg.includes(`fill="${LIGHT.fg}"`), `${panel} SVG has no light-theme text`);
        const negativeZero = svg.match(/>-0(\.0*)?</g) ?? [];
        assert.equal(negativeZero.length, 0, `${panel} SVG prints ${negativeZero.length} "-0.0"`);
      }
      const png = await saved('heads', 'PNG');
      const corner = await page.evaluate(async (base64) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const ctx = canvas.getContext('2d');
        ctx.drawImage(bitmap, 0, 0);
        const [r, g, b] = ctx.getImageData(1, 1, 1, 1).data;
        return (r << 16) | (g << 8) | b;
      }, png.toString('base64'));
      assert.equal(hex(corner), DARK.bg, 'the PNG export has the dark background');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  for (const [scheme, palette] of [
    ['light', LIGHT],
    ['dark', DARK],
  ]) {
    test(`${scheme} mode: the bars of "why heads" have contrast >= 3:1 against the background`, async () => {
      const { page, context, problems } = await open(`${web.server.url}index.html?panel=why`, { colorScheme: scheme });
      try {
        const bg = rgbOf(palette.bg);
        // A bar is a block of one colour with the background on its left and right, on every row it
        // spans; in a heatmap a cell's neighbours are cells. Found in the page: (colour, x0, x1) -> rows.
        const blocks = await page.locator('headwise-explorer').evaluate((host, background) => {
          const found = {};
          for (const canvas of host.shadowRoot.querySelectorAll('[data-panel="why"] .figures > canvas')) {
            const { width, height } = canvas;
            const { data } = canvas.getContext('2d').getImageData(0, 0, width, height);
            const ratio = width / canvas.getBoundingClientRect().width;
            // Transparent pixels show the page's background.
            const at = (x, y) => {
              const k = 4 * (y * width + x);
              return data[k + 3] === 0 ? background : (data[k] << 16) | (data[k + 1] << 8) | data[k + 2];
            };
            for (let y = 0; y < height; y += 1) {
              let x = 0;
              while (x < width) {
                const colour = at(x, y);
                let end = x + 1;
                while (end < width && at(end, y) === colour) end += 1;
                const walled = x > 0 && end < width && at(x - 1, y) === background && at(end, y) === background;
                if (colour !== background && walled && end - x >= 4 * ratio && end - x <= 60 * ratio) {
                  const key = `${colour}:${x}:${end}`;
                  found[key] = (found[key] ?? 0) + 1 / ratio;
                }
                x = end;
              }
            }
          }
          return found;
        }, bg);
        const fills = new Map(); // colour -> its tallest block (CSS px)
        for (const [key, rows] of Object.entries(blocks)) {
          const colour = Number(key.split(':')[0]);
          fills.set(colour, Math.max(fills.get(colour) ?? 0, rows));
        }
        // The tallest bars are about 0.5 and 1 of their charts' height (150 and 110 px).
        const bars = [...fills].filter(([, rows]) => rows >= 20).map(([colour]) => colour);
        const ratios = bars.map((c) => `${hex(c)} ${contrast(c, bg).toFixed(2)}`);
        console.log(`${scheme} bars against ${palette.bg}: ${ratios.join(', ')}`);
        assert.ok(bars.length > 0, 'the bars are found');
        for (const colour of bars) assert.ok(contrast(colour, bg) >= 3, `bar ${hex(colour)}: ${ratios.join(', ')}`);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
