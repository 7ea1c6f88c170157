// The Slidev example deck (examples/slidev/, built by scripts/build-site.sh into build/site/) in
// Chromium at 1280x720, served as static files under the strict CSP: six slides, each one's
// figures drawn inside it, panels in Slidev's iframe layout (embed.html) and as <headwise-explorer>
// elements; the steps slide's clicks walk the five steps; the arrows and Space move the deck after a
// click inside a figure; the export view (#/export, Slidev's print-with-the-browser page) draws every
// figure, one page per slide.
// Screenshots: test-artifacts/slidev-slide-1.png ... -5.png, slidev-export-page-N.png, slidev-deck.pdf.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.js';
import { serveDir, STRICT_CSP } from './static-server.js';
import { ARTIFACTS, watchPage } from './page-checks.js';
import { assertPinnedDevDependencies, pressOnAndBack, STAGES as STEPS } from './deck-checks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SITE = `${ROOT}build/site/`;
const DECK = 'examples/slidev/';
const VIEWPORT = { width: 1280, height: 720 };
// What each slide shows: a title, or its panel and how it is embedded.
const SLIDES = [
  null,
  { panel: 'why', as: 'iframe' },
  { panel: 'heads', as: 'iframe' },
  { panel: 'steps', as: 'element' },
  { panel: 'order', as: 'element' },
  { panel: 'kv', as: 'iframe' },
  { panel: 'story', as: 'iframe' },
];
const STEPS_SLIDE = 4;

let browser;
let server;

before(async () => {
  assert.ok(existsSync(`${SITE}${DECK}index.html`), 'build the site first: bash scripts/build-site.sh');
  browser = await launchChromium();
  server = await serveDir(SITE, { headers: { 'Content-Security-Policy': STRICT_CSP } });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function openDeck(hash) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  const problems = watchPage(page, [server.url, 'data:', 'blob:', 'about:'], { warnings: true });
  await page.goto(`${server.url}${DECK}${hash}`);
  return { page, context, problems };
}

/** Slide n (1-based) is the one on screen, at the deck's full size. */
async function waitForSlide(page, n) {
  await page.waitForFunction(
    (no) => {
      const current = /^#\/(\d+)/.exec(location.hash)?.[1];
      const box = document.querySelector(`.slidev-page-${no}`)?.getBoundingClientRect();
      return current === String(no) && box && box.width > 1270 && box.height > 710 && Math.abs(box.left) < 1;
    },
    n,
    { timeout: 10_000 },
  );
}

const slideOnScreen = (page) => page.evaluate(() => Number(/^#\/(\d+)/.exec(location.hash)?.[1]));
const DECK_KEYS = { shown: slideOnScreen, waitFor: waitForSlide };

/** The colours of every shown canvas of `panel` in `element` and its box in the page's viewport. */
function figuresOf(element, panel) {
  return element.evaluate((el, id) => {
    const section = el.shadowRoot.querySelector(`[data-panel="${id}"]`);
    return [...section.querySelectorAll('canvas:not([hidden])')].map((canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const colours = new Set();
      for (let i = 0; i < data.length && colours.size < 64; i += 4 * 7)
        colours.add((data[i] << 24) | (data[i + 1] << 16) | (data[i + 2] << 8) | data[i + 3]);
      const { x, y, width, height } = canvas.getBoundingClientRect();
      return { x, y, width, height, colours: colours.size };
    });
  }, panel);
}

/** Slide n's explorer (inside its iframe or in the page), once it has drawn, and where it lies. */
async function explorerOn(page, n, container = `.slidev-page-${n}`) {
  const { as } = SLIDES[n - 1];
  const slide = page.locator(container).first();
  const host = slide.locator(as === 'iframe' ? 'iframe' : 'headwise-explorer');
  const frame = as === 'iframe' ? await (await host.elementHandle()).contentFrame() : null;
  const element = as === 'iframe' ? frame.locator('headwise-explorer') : host;
  await (as === 'iframe' ? frame : slide).locator('headwise-explorer[data-ready]').waitFor({ timeout: 30_000 });
  return { slide, host, frame, element };
}

async function panelOn(page, n) {
  const { panel, as } = SLIDES[n - 1];
  const { slide, host, element } = await explorerOn(page, n);
  const offset = as === 'iframe' ? await host.boundingBox() : { x: 0, y: 0 };
  const canvases = await figuresOf(element, panel);
  return {
    slide: await slide.boundingBox(),
    host: await host.boundingBox(),
    canvases: canvases.map((c) => ({ ...c, x: c.x + offset.x, y: c.y + offset.y })),
    shown: await element.evaluate((el) => el.getState().panel),
  };
}

function assertDrawnInSlide(n, { slide, host, canvases, shown }) {
  const { panel } = SLIDES[n - 1];
  assert.equal(shown, panel, `slide ${n} shows its panel`);
  const within = (box, outer) =>
    box.x >= outer.x - 0.5 &&
    box.y >= outer.y - 0.5 &&
    box.x + box.width <= outer.x + outer.width + 0.5 &&
    box.y + box.height <= outer.y + outer.height + 0.5;
  assert.ok(within(host, slide), `slide ${n}: the panel lies within the slide: ${JSON.stringify({ host, slide })}`);
  assert.ok(host.height > 400 && host.width > 1100, `slide ${n}: the panel fills the slide: ${JSON.stringify(host)}`);
  assert.ok(canvases.length > 0, `slide ${n}: ${panel} has figures`);
  for (const [i, c] of canvases.entries()) assert.ok(c.colours > 2, `slide ${n}: figure ${i + 1} is drawn`);
  const first = canvases[0];
  assert.ok(within(first, host), `slide ${n}: the first figure is on the slide: ${JSON.stringify(first)}`);
}

async function stepOf(page) {
  const { element } = await explorerOn(page, STEPS_SLIDE);
  return element.evaluate((el) => el.getState().stepName);
}

async function waitForStep(page, name) {
  const { element } = await explorerOn(page, STEPS_SLIDE);
  // On a slide the list waits behind Details: attached, not shown.
  await element.locator(`[data-panel="steps"] .steps > li.current strong:text-is("${name}")`).waitFor({
    state: 'attached',
    timeout: 10_000,
  });
}

describe('the Slidev example deck', () => {
  test('Slidev is a pinned dev dependency only: not in the package, installed by npm ci', async () => {
    await assertPinnedDevDependencies(['@slidev/cli', '@slidev/theme-default'], /slidev|examples\//i);
  });

  test('six slides with their figures; the steps slide walks the five steps with its clicks', async () => {
    const { page, context, problems } = await openDeck('#/1');
    try {
      await waitForSlide(page, 1);
      await page.screenshot({ path: `${ARTIFACTS}slidev-slide-1.png` });
      for (let n = 2; n <= SLIDES.length; n += 1) {
        await page.keyboard.press('ArrowRight');
        await waitForSlide(page, n);
        assertDrawnInSlide(n, await panelOn(page, n));
        if (n === STEPS_SLIDE) {
          await waitForStep(page, STEPS[0]);
          for (let s = 1; s < STEPS.length; s += 1) {
            await page.keyboard.press('ArrowRight');
            await waitForStep(page, STEPS[s]);
            assert.equal(await slideOnScreen(page), n, 'clicks first, then the next slide');
          }
          assertDrawnInSlide(n, await panelOn(page, n));
        }
        await page.screenshot({ path: `${ARTIFACTS}slidev-slide-${n}.png` });
      }
      // Back into the steps slide from the next one: all its clicks shown, the last step.
      for (let n = SLIDES.length; n > STEPS_SLIDE; n -= 1) {
        await page.keyboard.press('ArrowLeft');
        await waitForSlide(page, n - 1);
      }
      await waitForStep(page, 'out-project');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the arrows and Space stay with the deck after a click inside a figure', async () => {
    const { page, context, problems } = await openDeck('#/2');
    try {
      // An embed: focus goes into the iframe, where the deck cannot hear the keys itself.
      await waitForSlide(page, 2);
      const why = await explorerOn(page, 2);
      await why.slide.locator('iframe[data-headwise-keys="forwarded"]').waitFor({ timeout: 30_000 });
      await why.frame.locator('[data-panel="why"] .point').click();
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'IFRAME');
      await page.keyboard.press('ArrowRight');
      await waitForSlide(page, 3);
      const heads = await explorerOn(page, 3);
      await heads.slide.locator('iframe[data-headwise-keys="forwarded"]').waitFor({ timeout: 30_000 });
      await heads.frame.locator('[data-panel="heads"] .point').click();
      await page.keyboard.press('Space');
      await waitForSlide(page, 4);
      await page.keyboard.press('ArrowLeft');
      await waitForSlide(page, 3);
      await (await explorerOn(page, 3)).frame.locator('[data-panel="heads"] .point').click();
      await page.keyboard.press('ArrowLeft');
      await waitForSlide(page, 2);

      // An element in the deck's page: a click on its text, then on one of its buttons.
      await page.goto(`${server.url}${DECK}#/${STEPS_SLIDE}`);
      await waitForSlide(page, STEPS_SLIDE);
      const steps = await explorerOn(page, STEPS_SLIDE);
      await steps.element.locator('[data-panel="steps"] .point').click();
      await page.keyboard.press('ArrowRight');
      await waitForStep(page, 'split');
      // On a slide the panel's own stepper waits behind Details: that button, pressed, keeps the focus.
      await steps.element.getByRole('button', { name: 'Details' }).click();
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => location.hash.endsWith('clicks=2')); // the deck's click 2: attend
      await waitForStep(page, 'attend');
      await page.keyboard.press('Space');
      await waitForStep(page, 'merge');
      await page.keyboard.press('ArrowLeft');
      await waitForStep(page, 'attend');
      assert.equal(await slideOnScreen(page), STEPS_SLIDE);
      assert.equal(await stepOf(page), 'attend');
      await page.keyboard.press('ArrowRight');
      await waitForStep(page, 'merge');
      await page.keyboard.press('ArrowRight');
      await waitForStep(page, 'out-project');
      await page.keyboard.press('ArrowRight');
      await waitForSlide(page, STEPS_SLIDE + 1);

      // A checkbox in an element: clicked, then the arrows move the deck.
      const order = await explorerOn(page, STEPS_SLIDE + 1);
      await order.element.getByRole('checkbox', { name: 'Causal mask' }).click();
      await page.keyboard.press('ArrowLeft');
      await waitForSlide(page, STEPS_SLIDE);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('after a click inside any figure, the arrows and Space move the deck on, then back', async () => {
    const { page, context, problems } = await openDeck('#/1');
    try {
      await waitForSlide(page, 1); // the deck started: a new hash now goes to its router, not before it
      for (let n = 2; n <= SLIDES.length; n += 1) {
        await page.goto(`${server.url}${DECK}#/${n}`);
        await waitForSlide(page, n);
        const { panel, as } = SLIDES[n - 1];
        const { slide, element } = await explorerOn(page, n);
        if (as === 'iframe') await slide.locator('iframe[data-headwise-keys="forwarded"]').waitFor({ timeout: 30_000 });
        await element.locator(`[data-panel="${panel}"]`).click({ position: { x: 4, y: 4 } });
        await pressOnAndBack(page, n, SLIDES.length, DECK_KEYS, { through: n === 2 });
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('on a 1920x1080 window the element slide reads as at 1280x720: its point in two lines', async () => {
    // Slidev draws a fixed-size slide and scales it to the window: the element's slide sizes follow
    // its own width (container units), not the window's, or its text grows twice (3-4 lines here).
    const lines = [];
    for (const viewport of [VIEWPORT, { width: 1920, height: 1080 }]) {
      const context = await browser.newContext({ viewport });
      try {
        const page = await context.newPage();
        await page.goto(`${server.url}${DECK}#/${STEPS_SLIDE}`);
        const { element } = await explorerOn(page, STEPS_SLIDE);
        const point = await element.evaluate((el) => {
          const p = el.shadowRoot.querySelector('[data-panel="steps"] .point');
          const range = document.createRange();
          range.selectNodeContents(p);
          return {
            text: p.textContent,
            lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size,
          };
        });
        lines.push(point.lines);
        assert.ok(point.lines <= 2, `${viewport.width}x${viewport.height}: ${point.lines} lines: ${point.text}`);
      } finally {
        await context.close();
      }
    }
    assert.equal(lines[1], lines[0], 'the same lines at both window sizes');
  });

  test('the export view (#/export) draws every figure, one printed page per slide', async () => {
    const { page, context, problems } = await openDeck('#/export');
    try {
      const t0 = Date.now();
      await page.waitForSelector('html[data-headwise-print="ready"]', { timeout: 120_000 });
      console.log(`# export view ready in ${Date.now() - t0} ms`);
      const pages = page.locator('#export-content .print-slide-container');
      assert.equal(await pages.count(), SLIDES.length);
      for (const [i, slide] of SLIDES.entries()) {
        const container = `#export-content .print-slide-container >> nth=${i}`;
        await page.locator(container).scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${ARTIFACTS}slidev-export-page-${i + 1}.png` });
        if (!slide) continue;
        const { host, element } = await explorerOn(page, i + 1, container);
        const offset = slide.as === 'iframe' ? await host.boundingBox() : { x: 0, y: 0 };
        const figures = await figuresOf(element, slide.panel);
        const where = `page ${i + 1} (${slide.panel})`;
        assert.ok(figures.length > 0, `${where}: figures`);
        for (const c of figures) assert.ok(c.colours > 2, `${where}: a figure is blank`);
        const pageBox = await page.locator(container).boundingBox();
        const first = { ...figures[0], y: figures[0].y + offset.y };
        assert.ok(
          first.y >= pageBox.y && first.y + 40 < pageBox.y + pageBox.height,
          `${where}: first figure on its page`,
        );
        if (slide.panel === 'steps') {
          assert.equal(
            await element.evaluate((el) => el.getState().stepName),
            'out-project',
            'printed at its last click',
          );
        }
      }
      await page.emulateMedia({ media: 'print' });
      // Printed, each slide is a page of its own at the deck's size (on screen they are scaled down).
      for (const box of await pages.evaluateAll((all) => all.map((p) => p.getBoundingClientRect().toJSON())))
        assert.ok(Math.abs(box.width - 1280) < 1 && Math.abs(box.height - 720) < 1, JSON.stringify(box));
      const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
      await writeFile(`${ARTIFACTS}slidev-deck.pdf`, pdf);
      const text = pdf.toString('latin1');
      const counts = [...text.matchAll(/\/Type\s*\/Pages\s*\/Count\s+(\d+)/g)].map((m) => Number(m[1]));
      console.log(`# PDF: ${pdf.length} bytes, ${Math.max(...counts)} pages`);
      assert.equal(Math.max(...counts), SLIDES.length, 'one PDF page per slide');
      const mediaBoxes = [...text.matchAll(/\/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]/g)].map(
        (m) => `${m[1]}x${m[2]}`,
      );
      assert.deepEqual([...new Set(mediaBoxes)], ['960x540'], '16:9 pages: 1280 x 720 px at 96 dpi');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
