// The explorer in Debian's Chromium, served by a local static server and opened from disk.
// Run by scripts/test.sh after the bundle is built (scripts/build-explorer.sh).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { WEB_DIR } from './static-server.js';
import { ARTIFACTS, canvasColourCounts, canvasPixels, headsTrained, openExplorer, panelText } from './page-checks.js';
import { viridis } from '../../web/explorer/figures/colour-scale.js';
import { LIGHT } from '../../web/explorer/figures/figure.js';
import { PANELS } from '../../web/explorer/panels/index.js';

const FILE_URL = pathToFileURL(WEB_DIR).href;
// The default text: "The dog chased the ball ," and "but it could not catch it", a batch of 2 sentences of 6.
const [BATCH, DEFAULT_TOKENS] = [2, 6];
// The heads panel reads the batch's two lines as the lecture's one sentence of 12 tokens.
const WHOLE = BATCH * DEFAULT_TOKENS;

const web = chromiumAndWeb();

const numberIn = async (locator) => Number(await locator.getAttribute('data-value'));

async function assertPanelsDrawn(page, panels) {
  for (const panel of panels) {
    const counts = await canvasColourCounts(page, panel);
    assert.ok(counts.length > 0, `${panel}: no canvas`);
    assert.ok(
      counts.every((n) => n >= 4),
      `${panel}: a canvas is blank (distinct colours: ${counts.join(', ')})`,
    );
  }
}

const rgbOf = (hex) => parseInt(hex.slice(1, 7), 16);
const VIRIDIS_RGB = new Set(Array.from({ length: 256 }, (_, k) => rgbOf(viridis(k / 255))));

/** The pixels of the heads panel's canvas `index`, with pixel(x, y) as 0xrrggbb. */
const headCanvasPixels = (page, index) =>
  canvasPixels(page.locator('[data-panel="heads"] .figures.grid canvas').nth(index));

/** The box around every viridis-coloured pixel: the heatmap's grid when its corners are visible. */
function viridisBox({ width, height, pixel }) {
  let [x0, y0, x1, y1] = [width, height, -1, -1];
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      if (!VIRIDIS_RGB.has(pixel(x, y))) continue;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
  }
  return { x0, y0, w: x1 + 1 - x0, h: y1 + 1 - y0 };
}

/**
 * Head h's heatmap as drawn, cell by cell, against the numbers in the panel's table: the pixel near
 * each cell's top-left corner (clear of the printed value) must have the viridis colour of its
 * number (printed to 4 digits, so either neighbouring level is accepted), or the grid colour where
 * the causal mask hides it. The grid is found as the box of pixels that hold viridis colours.
 */
async function assertHeatmapMatchesTable(page, h, T) {
  const details = page.locator('[data-panel="heads"] details.numbers');
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  // The tables are written when the numbers open (and again when the trained heads arrive).
  await page
    .locator('[data-panel="heads"] table caption', { hasText: `Head ${h + 1} attention` })
    .first()
    .waitFor({ timeout: 30_000 });
  const numbers = await page.locator('headwise-explorer').evaluate((host, head) => {
    const caption = `Head ${head + 1} attention`;
    const tables = host.shadowRoot.querySelectorAll('[data-panel="heads"] table');
    const table = [...tables].find((t) => t.caption.textContent === caption);
    return [...table.tBodies[0].rows].map((tr) => [...tr.cells].slice(1).map((td) => td.textContent));
  }, h);
  assert.equal(numbers.length, T);
  const image = await headCanvasPixels(page, h);
  const { pixel } = image;
  const { x0, y0, w, h: gridH } = viridisBox(image);
  const [cellW, cellH] = [w / T, gridH / T];
  assert.ok(cellW >= 4 && cellH >= 4, `head ${h + 1}: grid of ${cellW} x ${cellH} px cells`);
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      const got = pixel(Math.floor(x0 + (j + 0.2) * cellW), Math.floor(y0 + (i + 0.2) * cellH));
      const text = numbers[i][j];
      const want =
        text === 'masked' ? [rgbOf(LIGHT.masked)] : [-5e-5, 0, 5e-5].map((d) => rgbOf(viridis(Number(text) + d)));
      assert.equal(text === 'masked', j > i, `head ${h + 1} cell ${i}, ${j} is masked only above the diagonal`);
      const hex = (v) => `#${v.toString(16).padStart(6, '0')}`;
      const message = `head ${h + 1} cell ${i}, ${j}: drawn ${hex(got)}, its number ${text}`;
      assert.ok(want.includes(got), `${message} wants ${hex(want[1] ?? want[0])}`);
    }
  }
}

for (const origin of ['http', 'file']) {
  describe(`explorer over ${origin}`, () => {
    test('every panel shows real content, the numbers agree, bad width is explained', async () => {
      const base = origin === 'http' ? web.server.url : FILE_URL;
      const { page, context, problems } = await openExplorer(web.browser, `${base}index.html`);
      try {
        for (const { id } of PANELS) {
          assert.ok(await page.locator(`[data-panel="${id}"]`).isVisible(), `panel ${id} is visible`);
        }
        await headsTrained(page);
        await assertPanelsDrawn(page, ['input', 'why', 'steps', 'heads', 'order', 'learn', 'kv']);
        assert.equal(await page.locator('.tokens li').count(), BATCH * DEFAULT_TOKENS);
        for (const h of [0, 1]) await assertHeatmapMatchesTable(page, h, WHOLE);

        // Shapes follow the configuration: 2 sentences of 6 tokens, width 6, 2 heads of 3.
        const steps = await panelText(page, 'steps');
        for (const shape of ['(2, 6, 6)', '(2, 6, 2, 3)', '(2, 2, 6, 3)', '(2, 2, 6, 6)'])
          assert.ok(steps.includes(shape), `steps panel shows ${shape}`);

        // Designed weights: one head splits, two heads each take one.
        const why = await page.locator('.summary').innerText();
        assert.match(why, /One head: .* ball 0\.(4\d|5\d) and catch 0\.(4\d|5\d)/);
        assert.match(why, /head 1 gives ball (0\.9\d|1\.00), head 2 gives catch (0\.9\d|1\.00)/);

        const loopDiff = await numberIn(page.locator('.loop-diff'));
        assert.ok(Number.isFinite(loopDiff) && loopDiff < 1e-5, `max |loop - fused| = ${loopDiff}`);

        // Word order: its own mask starts off, so the claim shows first (same outputs); the mask
        // and a position kind each make the outputs differ, and each word says why.
        const order = page.locator('.order-diff');
        assert.equal(await page.locator('.order-mask').isChecked(), false);
        assert.ok((await numberIn(order)) < 1e-6, `no mask, no positions: ${await numberIn(order)}`);
        await page.locator('.order-mask').check();
        await page.waitForFunction(
          () =>
            Number(document.querySelector('headwise-explorer').shadowRoot.querySelector('.order-diff').dataset.value) >
            1e-3,
          null,
          { timeout: 5000 },
        );
        assert.match(await page.locator('.order-why').innerText(), /mask/);
        const verdicts = await page.locator('.order-verdicts li').allInnerTexts();
        assert.match(verdicts[0], /^"All": the same vector: it sees the same words, \{All\}, in both sentences\.$/);
        assert.match(verdicts[1], /^"dogs": changed .* \{All, dogs\} in the first sentence but/);
        // The page's own causal option is another control: the panel's mask leaves it as it was.
        assert.equal(await page.locator('[data-panel="input"] input[type=checkbox]').isChecked(), true);
        await page.locator('.order-mask').uncheck();
        await page.locator('.order-kind').selectOption('sinusoidal');
        await page.waitForFunction(
          () =>
            Number(document.querySelector('headwise-explorer').shadowRoot.querySelector('.order-diff').dataset.value) >
            1e-3,
          null,
          { timeout: 5000 },
        );
        await page.locator('.order-kind').selectOption('none');
        await page.waitForFunction(
          () =>
            Number(document.querySelector('headwise-explorer').shadowRoot.querySelector('.order-diff').dataset.value) <
            1e-6,
          null,
          { timeout: 5000 },
        );
        await page.waitForSelector('headwise-explorer:not([data-drawing])');
        await page.mouse.move(0, 0); // the pointer left over the order panel may hover a map below

        // Keyboard: focusing a token in the heads panel highlights its row in every head.
        const headCanvas = page.locator('[data-panel="heads"] .figures canvas').first();
        const before = await headCanvas.evaluate((c) => c.toDataURL());
        await page.locator('[data-panel="heads"] .token-bar button').nth(4).focus();
        assert.equal(
          await page.locator('[data-panel="heads"] .token-bar button').nth(4).getAttribute('data-highlight'),
          'true',
        );
        assert.notEqual(
          await headCanvas.evaluate((c) => c.toDataURL()),
          before,
          'the heatmap was redrawn with the row highlighted',
        );

        // An invalid width is explained; the page keeps working.
        const width = page.locator('[data-panel="input"] input[type=number]').first();
        await width.fill('7');
        await page.waitForFunction(
          () => document.querySelector('headwise-explorer').shadowRoot.querySelector('.rule').dataset.valid === 'false',
        );
        await page.waitForSelector('headwise-explorer:not([data-drawing])'); // off-screen panels too
        assert.match(
          await page.locator('.rule').innerText(),
          /Width 7 cannot be split into 2 heads.*must divide the width.*1, 7/,
        );
        // The heads panel keeps the figures of the last good input and says so, with the choices.
        const box = page.locator('[data-panel="heads"] .odd-input');
        assert.match(await box.innerText(), /Still showing the last input that worked: width 6, 2 heads/);
        assert.ok((await box.locator('button').count()) > 0, 'the box offers valid choices as buttons');
        await width.fill('8');
        await page.waitForFunction(
          () =>
            document.querySelector('headwise-explorer').shadowRoot.querySelector('.rule').textContent ===
            'width 8 = 2 heads x head_dim 4',
        );
        await page.waitForSelector('headwise-explorer:not([data-drawing])');
        await assertPanelsDrawn(page, ['heads', 'steps']);
        assert.ok((await panelText(page, 'steps')).includes('(2, 2, 6, 4)'));
        assert.ok((await numberIn(page.locator('.loop-diff'))) < 1e-5);

        await width.fill('6');
        await page.waitForFunction(() =>
          document
            .querySelector('headwise-explorer')
            .shadowRoot.querySelector('.rule')
            .textContent.startsWith('width 6'),
        );
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: `${ARTIFACTS}explorer-1920x1080-${origin}.png`, fullPage: false });
        await page.screenshot({ path: `${ARTIFACTS}explorer-1920-full-${origin}.png`, fullPage: true });
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  });
}

describe('explorer layouts and embedding', () => {
  test('T = 200: the pooled heatmap draws a block masked only when the mask hides all of it', async () => {
    const T = 200;
    const sentence = Array.from({ length: T }, (_, i) => `w${i % 23}`).join(' ');
    // 3 heads: no trained model has them, so the heads panel draws the sentence's own layer, T x T.
    const query = `panel=heads&heads=3&max-tokens=${T}&sentence=${encodeURIComponent(sentence)}`;
    const url = `${web.server.url}index.html?${query}`;
    const { page, context, problems } = await openExplorer(web.browser, url);
    try {
      const image = await headCanvasPixels(page, 0);
      const { pixel } = image;
      const { x0, y0, w, h } = viridisBox(image);
      // 200 rows in blocks of 4, 200 columns in blocks of 3: 50 x 67 cells.
      const [rows, cols, rb, cb] = [50, 67, 4, 3];
      const [cellW, cellH] = [w / cols, h / rows];
      assert.ok(cellW >= 2 && cellH >= 2, `cells of ${cellW} x ${cellH} px`);
      const wrong = [];
      for (let i = 0; i < rows; i += 1) {
        for (let j = 0; j < cols; j += 1) {
          const got = pixel(Math.floor(x0 + (j + 0.5) * cellW), Math.floor(y0 + (i + 0.5) * cellH));
          const hidden = j * cb > Math.min(T - 1, i * rb + rb - 1); // first column after the block's last row
          if (hidden ? got !== rgbOf(LIGHT.masked) : !VIRIDIS_RGB.has(got)) wrong.push(`${i},${j}`);
        }
      }
      assert.deepEqual(wrong, [], 'cells drawn masked when visible, or visible when masked');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a 390-px phone: no sideways scrolling, heatmaps drawn', async () => {
    const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html`, {
      width: 390,
      height: 844,
    });
    try {
      await assertPanelsDrawn(page, ['input', 'heads']);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(overflow <= 390, `page is ${overflow} px wide`);
      // Touch targets: every visible control (a checkbox through its label) is at least 44 px tall.
      const small = await page.locator('headwise-explorer').evaluate((h) =>
        [...h.shadowRoot.querySelectorAll('button, select, input, textarea, summary')]
          .filter((e) => e.getClientRects().length > 0)
          .map((e) => (e.type === 'checkbox' ? e.closest('label') : e))
          .map((e) => ({
            what: e.textContent.trim().slice(0, 30) || e.tagName,
            height: e.getBoundingClientRect().height,
          }))
          .filter((t) => t.height < 44),
      );
      assert.deepEqual(small, [], 'touch targets under 44 px');
      await page.screenshot({ path: `${ARTIFACTS}explorer-390x844.png` });
      await page.locator('[data-panel="heads"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${ARTIFACTS}explorer-390x844-heads.png` });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('dark colour scheme at 1920x1080', async () => {
    const context = await web.browser.newContext({ viewport: { width: 1920, height: 1080 }, colorScheme: 'dark' });
    const page = await context.newPage();
    try {
      await page.goto(`${web.server.url}index.html?panel=why`);
      await page.waitForSelector('headwise-explorer[data-ready]');
      const colours = await page.locator('headwise-explorer').evaluate((h) => getComputedStyle(h).backgroundColor);
      assert.equal(colours, 'rgb(22, 22, 26)');
      await assertPanelsDrawn(page, ['why']);
      await page.screenshot({ path: `${ARTIFACTS}explorer-dark-1920x1080.png` });
    } finally {
      await context.close();
    }
  });

  test('embed.html from disk: one panel, slide mode, GPT-2 sizes', async () => {
    const { page, context, problems } = await openExplorer(
      web.browser,
      `${FILE_URL}embed.html?panel=heads&preset=gpt2&heads=12`,
    );
    try {
      const visible = await page
        .locator('headwise-explorer')
        .evaluate((h) =>
          [...h.shadowRoot.querySelectorAll('.panel')].filter((s) => !s.hidden).map((s) => s.dataset.panel),
        );
      assert.deepEqual(visible, ['heads']);
      assert.equal(await page.locator('headwise-explorer nav').isVisible(), false);
      assert.equal(await page.locator('.explorer.slide').count(), 1);
      // On a slide the 12 maps have the figure column; concat @ W_out = output (one product) is a click away.
      const counts = await canvasColourCounts(page, 'heads');
      assert.equal(counts.length, 12, '12 head maps');
      assert.ok(counts.every((n) => n >= 4));
      await page.locator('[data-panel="heads"] button.mix-toggle').click();
      const product = await canvasColourCounts(page, 'heads');
      assert.equal(product.length, 1, 'concat @ W_out = output as one product, instead of the maps');
      assert.ok(product[0] >= 4);
      await page.locator('[data-panel="heads"] button.mix-toggle').click();
      assert.match(
        await page.locator('[data-panel="heads"] .status').innerText(),
        /^12 heads, each 12 x 12, causal: no token looks ahead\. The batch.s 2 sentences read as one sequence of 12/,
      );
      // All 12 head maps fit the 16:9 frame, above the fold.
      const bottoms = await page
        .locator('headwise-explorer')
        .evaluate((h) =>
          [...h.shadowRoot.querySelectorAll('[data-panel="heads"] .figures.grid canvas:not([hidden])')].map(
            (c) => c.getBoundingClientRect().bottom,
          ),
        );
      assert.equal(bottoms.length, 12);
      assert.ok(Math.max(...bottoms) <= 1080, `lowest head map ends at ${Math.max(...bottoms)} px`);
      await page.screenshot({ path: `${ARTIFACTS}embed-heads-gpt2-1920x1080.png` });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('index.html?slide=1: no page header, slide mode', async () => {
    const { page, context, problems } = await openExplorer(
      web.browser,
      `${web.server.url}index.html?slide=1&panel=why`,
    );
    try {
      assert.equal(await page.locator('header').isVisible(), false);
      assert.equal(await page.locator('.explorer.slide').count(), 1);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('typing 768 digit by digit shows no error for 7 and 76; the rule is judged when the user is done', async () => {
    const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html?panel=input`);
    try {
      await page.locator('headwise-explorer').evaluate((h) => {
        const rule = h.shadowRoot.querySelector('.rule');
        window.ruleTexts = [];
        new MutationObserver(() => window.ruleTexts.push(rule.textContent)).observe(rule, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      });
      const width = page.locator('[data-panel="input"] input[type=number]').first();
      await width.click();
      await width.press('Control+A');
      // A quick typist, 150 ms between keys, on the page's clock (a loaded machine may take longer
      // than the 700 ms pause between two key events of the test; the page's timers must not see it).
      await page.clock.install();
      for (const digit of '768') {
        await width.press(digit);
        await page.clock.runFor(150);
      }
      await page.clock.runFor(1000); // the pause after the last key: the rule is judged
      await page.waitForFunction(
        () =>
          document.querySelector('headwise-explorer').shadowRoot.querySelector('.rule').textContent ===
          'width 768 = 2 heads x head_dim 384',
        null,
        { timeout: 10_000 },
      );
      const seen = await page.evaluate(() => window.ruleTexts);
      assert.deepEqual(
        seen.filter((t) => /cannot be split|whole numbers/.test(t)),
        [],
        `no error while typing: ${JSON.stringify(seen)}`,
      );
      // Enter takes a value at once, invalid ones too: 7 is explained without waiting.
      await width.press('Control+A');
      await width.pressSequentially('7');
      await width.press('Enter');
      await page.waitForFunction(
        () =>
          /Width 7 cannot be split into 2 heads/.test(
            document.querySelector('headwise-explorer').shadowRoot.querySelector('.rule').textContent,
          ),
        null,
        { timeout: 500 },
      );
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('keyboard: the tokens are one tab stop with arrows inside; the sweep button is a few keys away', async () => {
    const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html`);
    try {
      const active = () =>
        page.evaluate(() => {
          let a = document.activeElement;
          while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
          return { cls: a?.className ?? '', text: a?.textContent ?? '', pressed: a?.dataset.highlight };
        });
      const tabUntil = async (match, limit) => {
        for (let presses = 1; presses <= limit; presses += 1) {
          await page.keyboard.press('Tab');
          if (match(await active())) return presses;
        }
        return Infinity;
      };
      // The nav's "Loop vs fused" button, Enter, then the sweep button: 8 keys at most (42 Tabs before).
      const toNav = await tabUntil((a) => a.text === 'Loop vs fused', 8);
      await page.keyboard.press('Enter');
      const toSweep = await tabUntil((a) => a.cls.includes('run-sweep'), 2);
      assert.ok(toNav + 1 + toSweep <= 9, `keys to the sweep button: ${toNav} Tabs, Enter, ${toSweep} Tabs`);
      // The heads panel's tokens (the sentence as the trained model reads it): one Tab enters the bar,
      // arrows walk it, one Tab leaves it.
      await headsTrained(page);
      await page.locator('[data-panel="heads"] .token-bar button').first().focus();
      assert.equal((await active()).text, 'the');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      assert.deepEqual(await active(), { cls: 'token', text: 'chased', pressed: 'true' });
      await page.keyboard.press('End');
      assert.equal((await active()).text, 'it');
      await page.keyboard.press('Tab');
      assert.notEqual((await active()).cls, 'token', 'one Tab leaves the token bar');
      await page.keyboard.press('Shift+Tab');
      assert.deepEqual(await active(), { cls: 'token', text: 'it', pressed: 'true' });
      const stops = await page
        .locator('[data-panel="heads"] .token-bar button')
        .evaluateAll((bs) => bs.filter((b) => b.tabIndex === 0).length);
      assert.equal(stops, 1);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('index.html?panel=heads: one panel and no nav buttons that point at hidden panels', async () => {
    const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html?panel=heads`);
    try {
      const visible = await page.locator('headwise-explorer').evaluate((h) => {
        const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
        const root = h.shadowRoot;
        return {
          navButtons: [...root.querySelectorAll('nav button')].filter(shown).map((b) => b.textContent),
          panels: [...root.querySelectorAll('[data-panel]')].filter(shown).map((p) => p.dataset.panel),
        };
      });
      assert.deepEqual(visible.panels, ['heads']);
      assert.deepEqual(visible.navButtons, []);
      // The full page keeps its nav.
      await page.goto(`${web.server.url}index.html`);
      await page.locator('headwise-explorer nav button').first().waitFor();
      assert.ok((await page.locator('headwise-explorer nav button').count()) >= 6);
      assert.ok(await page.locator('headwise-explorer nav').isVisible());
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('GPT-3: shapes only, saying why', async () => {
    const { page, context, problems } = await openExplorer(
      web.browser,
      `${web.server.url}embed.html?panel=steps&preset=gpt3`,
    );
    try {
      // On a slide (embed.html) the point says it; the shapes are behind Details.
      const point = await panelText(page, 'steps');
      assert.match(point, /Shapes only: this configuration needs [\d.]+ GB, more than the memory budget/);
      await page.locator('[data-panel="steps"] .details-toggle').click();
      const text = await panelText(page, 'steps');
      for (const shape of ['(2, 6, 12288)', '(2, 6, 96, 128)', '(2, 96, 6, 128)', '(2, 96, 6, 6)'])
        assert.ok(text.includes(shape), `shows ${shape}`);
      await assertPanelsDrawn(page, ['steps']);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('URL parameters that cannot be used are reported and ignored', async () => {
    const { page, context, problems } = await openExplorer(
      web.browser,
      `${web.server.url}index.html?panel=nope&width=abc&heads=3&causal=maybe`,
    );
    try {
      const notes = await page.locator('.notes').innerText();
      assert.match(notes, /panel="nope" is not a panel/);
      assert.match(notes, /width="abc" was ignored/);
      assert.match(notes, /causal="maybe" was ignored/);
      assert.equal(await page.locator('.rule').innerText(), 'width 6 = 3 heads x head_dim 2');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});

describe('explorer hardening and export', () => {
  test('sentences: markup stays text, emoji, empty, 100,000 characters', async () => {
    const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html?panel=input`);
    try {
      const sentence = page.locator('textarea');
      await sentence.fill('<img src=x onerror="window.pwned=1"><b>bold</b>');
      await page.waitForFunction(() =>
        [...document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('.tokens li')].some(
          (li) => li.textContent === 'img',
        ),
      );
      const tokens = await page.locator('.tokens li').allInnerTexts();
      assert.deepEqual(tokens.slice(0, 4), ['<', 'img', 'src', '=']);
      assert.equal(
        await page.locator('headwise-explorer').evaluate((h) => h.shadowRoot.querySelectorAll('img, b').length),
        0,
      );
      assert.equal(await page.evaluate(() => window.pwned), undefined);

      await sentence.fill('I ❤️ my 🐶🐶, 👩🏽‍💻!');
      await page.waitForFunction(
        () => document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('.tokens li').length === 8,
      );
      const expectedTokens = ['I', '❤️', 'my', '🐶', '🐶', ',', '👩🏽‍💻', '!'];
      assert.deepEqual(await page.locator('.tokens li').allInnerTexts(), expectedTokens);
      await assertPanelsDrawn(page, ['input']);

      await sentence.fill('');
      await page.waitForFunction(() =>
        /empty/.test(
          document.querySelector('headwise-explorer').shadowRoot.querySelector('[data-panel="input"] .status')
            .textContent,
        ),
      );

      const huge = 'word '.repeat(20_000);
      await sentence.fill(huge);
      await page.waitForFunction(
        () =>
          /has 20,000 tokens; this explorer draws at most 64/.test(
            document.querySelector('headwise-explorer').shadowRoot.querySelector('[data-panel="input"] .status')
              .textContent,
          ),
        null,
        { timeout: 5000 },
      );
      // Still answering: a recompute after the refusal works.
      await sentence.fill('The dog chased the ball');
      await page.waitForFunction(
        () => document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('.tokens li').length === 5,
      );
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('each kind of export: PNG, SVG, JSON', async () => {
    const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html?panel=heads`);
    try {
      const saved = async (label) => {
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.locator(`[data-panel="heads"] .exports button:text-is("${label}")`).click(),
        ]);
        return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
      };
      await headsTrained(page);
      // Each heatmap has a table equivalent (rows: tokens; columns: tokens; masked cells say so).
      await page.locator('[data-panel="heads"] details summary').click();
      await page.locator('[data-panel="heads"] details caption').first().waitFor();
      const captions = await page.locator('[data-panel="heads"] details caption').allInnerTexts();
      assert.deepEqual(captions.slice(0, 2), ['Head 1 attention', 'Head 2 attention']);
      const firstRow = await page
        .locator('[data-panel="heads"] details table')
        .first()
        .locator('tbody tr')
        .first()
        .innerText();
      // The trained heads (the default), on the sentence in the model's words.
      assert.match(firstRow, /^the\t1\.0000\tmasked\tmasked/);
      const json = await saved('JSON');
      assert.equal(json.name, 'headwise-heads.json');
      const data = JSON.parse(json.bytes.toString('utf8'));
      assert.deepEqual(data.attentionShape, [1, 2, WHOLE, WHOLE]);
      assert.equal(data.attention.length, 2 * WHOLE * WHOLE);
      assert.equal(data.tokens.length, WHOLE);
      // The last "it" (row 11) can look at "ball" (column 4): causal, so every earlier column is open.
      assert.equal(data.weights, 'trained');
      assert.deepEqual([data.tokens[4], data.tokens[WHOLE - 1]], ['ball', 'it']);
      for (const h of [0, 1])
        assert.ok(data.attention[(h * WHOLE + WHOLE - 1) * WHOLE + 4] > 0, `head ${h + 1}: it -> ball`);
      // Each unmasked attention row sums to 1.
      for (let r = 0; r < 2 * WHOLE; r += 1) {
        const sum = data.attention.slice(r * WHOLE, (r + 1) * WHOLE).reduce((a, b) => a + b, 0);
        assert.ok(Math.abs(sum - 1) < 1e-5, `row ${r} sums to ${sum}`);
      }
      const svg = await saved('SVG');
      assert.equal(svg.name, 'headwise-heads.svg');
      assert.match(
        svg.bytes.toString('utf8'),
        /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*>[\s\S]*<rect[\s\S]*>catch<\/text>[\s\S]*<\/svg>$/,
      );
      const png = await saved('PNG');
      assert.equal(png.name, 'headwise-heads.png');
      assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  // Chromium blocks a tab's downloads after about ten in a row ("multiple automatic downloads"),
  // so the twelve saves are made from two pages of six.
  const exportChecks = [
    { input: 'x', why: 'oneHead', steps: 'trace' },
    { heads: 'attention', loop: 'maxDiff', order: 'perWord' },
  ];
  for (const expected of exportChecks)
    test(`every panel exports JSON (numbers) and SVG (figure): ${Object.keys(expected).join(', ')}`, async () => {
      const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html`);
      try {
        for (const [panel, key] of Object.entries(expected)) {
          const save = async (label) => {
            const [download] = await Promise.all([
              page.waitForEvent('download'),
              page.locator(`[data-panel="${panel}"] .exports button:text-is("${label}")`).click(),
            ]);
            return (await readFile(await download.path())).toString('utf8');
          };
          const data = JSON.parse(await save('JSON'));
          assert.equal(data.panel, panel);
          assert.ok(data[key] !== undefined && data[key] !== null, `${panel} JSON has ${key}`);
          assert.match(await save('SVG'), /^<svg [\s\S]*<\/svg>$/);
        }
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });

  test('the heads sweep runs in slices with progress and draws its chart', async () => {
    const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html?panel=loop`);
    try {
      await page.locator('.run-sweep').click();
      // While it runs the page still answers and shows progress.
      await page.waitForFunction(
        () =>
          document.querySelector('headwise-explorer').shadowRoot.querySelector('[data-panel="loop"] progress').value >=
          1,
        null,
        { timeout: 30_000 },
      );
      assert.equal(await page.evaluate(() => 1 + 1), 2);
      await page.waitForFunction(
        () =>
          document.querySelector('headwise-explorer').shadowRoot.querySelector('.sweep-status').dataset.done === 'true',
        null,
        { timeout: 90_000 },
      );
      const status = await page.locator('.sweep-status').innerText();
      assert.match(status, /Measured at .+ in this tab \(Chrome \d+\), batch 2, T = 6, width 6, head_dim 3/);
      assert.match(status, /median of 7 samples after a warm-up \(band: min to max\); a sample repeats/);
      await assertPanelsDrawn(page, ['loop']);
      // The text equivalent is built when its disclosure is opened.
      await page.locator('[data-panel="loop"] details summary').click();
      await page.locator('[data-panel="loop"] tbody tr').first().waitFor(); // built on the toggle event
      const header = await page.locator('[data-panel="loop"] thead tr').innerText();
      const unit = /loop \((ms|us)\)/.exec(header)?.[1];
      assert.ok(unit, `the table names its unit: ${header}`);
      const rows = await page.locator('[data-panel="loop"] tbody tr').allInnerTexts();
      assert.equal(rows.length, 12);
      // Each time is printed as median (min-max) with at most 3 significant digits: the clock cannot
      // back more (the old table printed 13300.0 and 3133.3), and min <= median <= max.
      const significant = (text) =>
        text
          .replace(/^[0.]+/, '')
          .replace('.', '')
          .replace(/0+$/, '').length;
      const times = rows.map((row) => {
        const [heads, ...cells] = row.split('\t');
        const [loop, fused] = cells.slice(0, 2).map((cell) => {
          const m = /^([\d.]+) \(([\d.]+)-([\d.]+)\)$/.exec(cell);
          assert.ok(m, `heads ${heads}: "${cell}" reads median (min-max)`);
          for (const v of m.slice(1)) assert.ok(significant(v) <= 3, `heads ${heads}: ${v} has more than 3 digits`);
          const [median, min, max] = m.slice(1).map(Number);
          assert.ok(min <= median && median <= max, `heads ${heads}: ${cell}`);
          return median;
        });
        return { heads: Number(heads), loop, fused };
      });
      // The SVG export draws each version's band (two translucent polygons under the lines).
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator('[data-panel="loop"] .exports button:text-is("SVG")').click(),
      ]);
      const svg = (await readFile(await download.path())).toString('utf8');
      assert.equal((svg.match(/<polygon [^>]*fill-opacity="0.25"/g) ?? []).length, 2);
      assert.match(svg, new RegExp(`${unit === 'ms' ? 'milliseconds' : 'microseconds'} \\(log\\)`));
      assert.match(svg, /bands: min to max of 7 samples/);
      console.log(`heads sweep in Chromium (${unit}, medians): ${JSON.stringify(times)}`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the heads sweep waits while the explorer is out of view and goes on when it is back', async () => {
    const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html?panel=loop`);
    try {
      const progress = () =>
        page
          .locator('headwise-explorer')
          .evaluate((h) => h.shadowRoot.querySelector('[data-panel="loop"] progress').value);
      await page.locator('.run-sweep').click();
      await page.waitForFunction(
        () =>
          document.querySelector('headwise-explorer').shadowRoot.querySelector('[data-panel="loop"] progress').value >=
          1,
        null,
        { timeout: 30_000 },
      );
      // display: none takes it out of view (IntersectionObserver), like a slide that is not shown.
      await page.locator('headwise-explorer').evaluate((h) => {
        h.style.display = 'none';
      });
      await page.waitForFunction(() => document.querySelector('headwise-explorer').dataset.active === 'false');
      const paused = await progress();
      await page.waitForTimeout(1500);
      assert.equal(await progress(), paused, 'no sweep points measured while out of view');
      await page.locator('headwise-explorer').evaluate((h) => {
        h.style.display = '';
      });
      await page.waitForFunction(
        (p) =>
          document.querySelector('headwise-explorer').shadowRoot.querySelector('[data-panel="loop"] progress').value >
          p,
        paused,
        { timeout: 30_000 },
      );
      await page.locator('[data-panel="loop"] button:text-is("Stop")').click();
      await page.waitForFunction(
        () =>
          /Stopped after/.test(
            document.querySelector('headwise-explorer').shadowRoot.querySelector('.sweep-status').textContent,
          ),
        null,
        { timeout: 30_000 },
      );
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('ES modules over http: importing the class defines no tag; define.js does', async () => {
    const context = await web.browser.newContext();
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.route(`${web.server.url}module-check.html`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,"><body></body>' }),
    );
    await page.goto(`${web.server.url}module-check.html`);
    try {
      const result = await page.evaluate(async () => {
        const { HeadwiseExplorer } = await import('./explorer/explorer-element.js');
        const before = customElements.get('headwise-explorer');
        await import('./explorer/define.js');
        const element = document.createElement('headwise-explorer');
        element.setAttribute('panel', 'loop');
        document.body.append(element);
        await new Promise((resolve) => element.addEventListener('headwise-render', resolve, { once: true }));
        return {
          before: before === undefined,
          same: customElements.get('headwise-explorer') === HeadwiseExplorer,
          diff: Number(element.shadowRoot.querySelector('.loop-diff').dataset.value),
        };
      });
      assert.deepEqual({ before: result.before, same: result.same }, { before: true, same: true });
      assert.ok(result.diff < 1e-5);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
