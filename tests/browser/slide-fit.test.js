// Every panel of embed.html on a projector: framed by a deck page in an iframe of 1280x720 and of
// 1920x1080, each panel (with every preset where the preset changes it) fits its frame without
// scrolling; the figures' text is drawn larger on the larger frame, and at 1280x720 the median
// figure label is at least 14 px and none is under
// 11 px (every step of the steps panel too); no two text items of any figure overlap, none lies on a curve and
// none leaves its figure (boxes from text-boxes.js, measured in the frame). And the GPT-2 heads
// element in a 600 px wide column lays its 12 maps out in a grid.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS, openInDeck, storyDrawn, twoFrames } from './page-checks.js';
import { PANELS as ENTRIES } from '../../web/explorer/panels/index.js';
import { LAYER_PART_NAMES } from '../../web/explorer/computation.js';

const PANELS = ENTRIES.map((entry) => entry.id);
const PRESETS = ['toy', 'gpt2', 'gpt3'];
// The preset changes only what is drawn from the input panel's layer: a panel with a part computed
// from it, or with no part and no numbers of its own (the input panel draws the sentence and the
// layer's shapes itself).
// A panel that draws its own model (word order, Learn, story, kv, the why panel's heads) is measured
// with the first preset alone (every preset measured the same on them: sizes, figures, text).
const presetsOf = (panel) => {
  const { parts = [], numbers = {} } = ENTRIES.find((entry) => entry.id === panel);
  const drawsInput = !parts.length && !Object.keys(numbers).length;
  return drawsInput || parts.some((p) => LAYER_PART_NAMES.includes(p)) ? PRESETS : PRESETS.slice(0, 1);
};
const SIZES = [
  [1280, 720],
  [1920, 1080],
];
const web = chromiumAndWeb();

// In the frame: the document's size against the frame's, and for each drawn figure its text
// problems and the size its text is drawn at (font size times the canvas's scale on screen).
const MEASURE = async (panel) => {
  const { textProblems } = await import('/explorer/figures/text-boxes.js');
  const host = document.querySelector('headwise-explorer');
  const section = host.shadowRoot.querySelector(`[data-panel="${panel}"]`);
  const canvases = [...section.querySelectorAll('canvas:not([hidden])')];
  const sizes = [];
  const problems = [];
  for (const canvas of canvases) {
    const figure = canvas.headwiseFigure;
    const scale = canvas.getBoundingClientRect().width / figure.width;
    for (const it of figure.items) if (it.kind === 'text') sizes.push(it.size * scale);
    problems.push(...textProblems(figure).map((p) => `${figure.title}: ${p}`));
  }
  sizes.sort((a, b) => a - b);
  const body = parseFloat(getComputedStyle(section).fontSize);
  return {
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    view: [innerWidth, innerHeight],
    canvases: canvases.length,
    medianText: sizes.length ? sizes[Math.floor(sizes.length / 2)] : null,
    minText: sizes.length ? sizes[0] : null,
    smallest: canvases
      .flatMap((c) =>
        c.headwiseFigure.items
          .filter((it) => it.kind === 'text')
          .map(
            (it) =>
              `${(it.size * (c.getBoundingClientRect().width / c.headwiseFigure.width)).toFixed(1)} px ` +
              `${JSON.stringify(it.text)} in ${JSON.stringify(c.headwiseFigure.title)}`,
          ),
      )
      .sort((a, b) => parseFloat(a) - parseFloat(b))
      .slice(0, 3),
    body,
    problems,
  };
};

// One browser context per frame size, shared by that size's slides: each slide is still a page of its
// own, loaded from scratch, but the context's cache spares the reload of the same script and module
// (about a third of each load). The explorer keeps no state outside its page (no storage, no workers
// that outlive it). They close with the browser, after the file's tests.
const contexts = new Map();
function contextFor([w, h]) {
  const key = `${w}x${h}`;
  if (!contexts.has(key)) contexts.set(key, web.browser.newContext({ viewport: { width: w, height: h } }));
  return contexts.get(key);
}

/**
 * Opens embed.html?panel&preset in an iframe of `size` on a deck page; returns what MEASURE says,
 * and for the steps panel what it says at each of its five steps (`steps`).
 */
async function measureSlide(panel, preset, size, screenshot) {
  const page = await (await contextFor(size)).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    const frame = await openInDeck(page, web.server.url, `embed.html?panel=${panel}&preset=${preset}`, size);
    await frame.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
    if (panel === 'story') await storyDrawn(frame);
    await frame.evaluate(twoFrames);
    const m = await frame.evaluate(MEASURE, panel);
    if (screenshot) await page.screenshot({ path: `${ARTIFACTS}fit-${panel}-${preset}.png` });
    if (panel === 'steps') {
      m.steps = [];
      for (let step = 0; step < 5; step += 1) {
        await frame.evaluate((k) => document.querySelector('headwise-explorer').goToStep(k), step);
        await frame.evaluate(twoFrames);
        m.steps.push(await frame.evaluate(MEASURE, panel));
        if (screenshot) await page.screenshot({ path: `${ARTIFACTS}fit-${panel}-${preset}-step${step + 1}.png` });
      }
    }
    assert.deepEqual(errors, []);
    return m;
  } finally {
    await page.close();
  }
}

const measured = new Map();
const textLine = (m) =>
  `median figure text ${m.medianText?.toFixed(1) ?? '-'} px, smallest ${m.minText?.toFixed(1) ?? '-'} px ` +
  `(slide text ${m.body.toFixed(1)} px)`;

describe('embed.html on 16:9 slides', () => {
  for (const size of SIZES) {
    for (const panel of PANELS) {
      for (const preset of presetsOf(panel)) {
        const name = `${panel} ${preset}`;
        test(`${name} at ${size.join('x')}: fits the frame, text boxes apart`, async () => {
          const m = await measureSlide(panel, preset, size, size[0] === 1280);
          measured.set(`${name} ${size[0]}`, m);
          console.log(
            `# ${name} ${size.join('x')}: document ${m.scroll.join('x')}, ${m.canvases} figures, ${textLine(m)}, ` +
              `${m.problems.length} text problems`,
          );
          for (const [k, s] of (m.steps ?? []).entries()) console.log(`#   step ${k + 1}: ${textLine(s)}`);
          for (const [k, s] of [m, ...(m.steps ?? [])].entries()) {
            const where = k ? `${name} step ${k} at ${size.join('x')}` : `${name} at ${size.join('x')}`;
            assert.ok(s.scroll[0] <= s.view[0], `${where}: ${s.scroll[0]} px wide in a ${s.view[0]} px frame`);
            assert.ok(s.scroll[1] <= s.view[1], `${where}: ${s.scroll[1]} px tall in a ${s.view[1]} px frame`);
            if (preset !== 'gpt3') assert.deepEqual(s.problems, [], where);
            // Readable from the back of a room: figure labels near the prose's size, none tiny.
            if (size[0] === 1280 && s.medianText !== null) {
              assert.ok(s.medianText >= 14, `${where}: median figure label ${s.medianText.toFixed(1)} px`);
              assert.ok(s.minText >= 11, `${where}: smallest figure label ${s.minText.toFixed(1)} px: ${s.smallest}`);
            }
          }
        });
      }
    }
  }

  test('figure text is drawn larger on the larger frame, about as the slide text grows', () => {
    for (const panel of PANELS) {
      for (const preset of presetsOf(panel).filter((p) => p !== 'gpt3')) {
        const small = measured.get(`${panel} ${preset} 1280`);
        const large = measured.get(`${panel} ${preset} 1920`);
        if (!small?.medianText || !large?.medianText) continue; // no figure on this slide (loop before a sweep)
        const grew = large.medianText / small.medianText;
        assert.ok(grew > 1.3, `${panel} ${preset}: figure text ${small.medianText} -> ${large.medianText} px`);
        // Today's figures draw 12 px labels and 10 px values at every size.
        assert.ok(large.medianText >= 13.5, `${panel} ${preset}: figure text ${large.medianText} px at 1920x1080`);
      }
    }
  });
});

describe('the Learn panel while it trains', () => {
  test('at 1280x720, after 300 steps: curves drawn, no label on a curve or on another label', async () => {
    const size = [1280, 720];
    const context = await web.browser.newContext({ viewport: { width: size[0], height: size[1] } });
    const page = await context.newPage();
    try {
      const frame = await openInDeck(page, web.server.url, 'embed.html?panel=learn', size);
      await frame.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
      const learn = () => document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn');
      await frame.waitForFunction(learn);
      await page.evaluate(() =>
        document
          .getElementById('slide')
          .contentWindow.postMessage({ headwise: 1, id: 1, method: 'startTraining' }, '*'),
      );
      await frame.waitForFunction(
        () =>
          Number(document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn').dataset.step) >=
          300,
        null,
        { timeout: 60_000 },
      );
      await page.evaluate(() =>
        document
          .getElementById('slide')
          .contentWindow.postMessage({ headwise: 1, id: 2, method: 'pauseTraining' }, '*'),
      );
      await frame.waitForFunction(
        () =>
          document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn').dataset.learnState ===
          'paused',
      );
      const m = await frame.evaluate(MEASURE, 'learn');
      const curves = await frame.evaluate(() =>
        [...document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('#panel-learn canvas')]
          .map((c) => c.headwiseFigure?.items.filter((it) => it.kind === 'polyline').length ?? 0)
          .reduce((a, b) => a + b, 0),
      );
      await page.screenshot({ path: `${ARTIFACTS}fit-learn-training.png` });
      console.log(`# learn after 300 steps: ${curves} curves, ${m.problems.length} text problems`);
      assert.equal(curves, 4, 'accuracy and loss curves of both runs');
      assert.deepEqual(m.problems, []);
      assert.ok(m.scroll[1] <= m.view[1], `${m.scroll[1]} px tall in a ${m.view[1]} px frame`);
    } finally {
      await context.close();
    }
  });
});

describe('GPT-2 heads in a 600 px wide column', () => {
  test('the 12 maps stand in a grid of several columns; the element is not a 7,900 px strip', async () => {
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    await page.route(`${web.server.url}column.html`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body:
          `<!doctype html><link rel="icon" href="data:,"><script src="build/explorer/explorer.js" defer></script>` +
          `<body style="margin:0"><div style="width:600px">` +
          `<headwise-explorer panel="heads" preset="gpt2"></headwise-explorer></div></body>`,
      }),
    );
    try {
      await page.goto(`${web.server.url}column.html`);
      await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
      const m = await page.locator('headwise-explorer').evaluate((host) => {
        const maps = [...host.shadowRoot.querySelectorAll('[data-panel="heads"] .figures.grid canvas:not([hidden])')];
        const boxes = maps.map((c) => c.getBoundingClientRect());
        return {
          height: host.getBoundingClientRect().height,
          maps: maps.length,
          columns: new Set(boxes.map((b) => Math.round(b.left))).size,
          mapsHeight: Math.max(...boxes.map((b) => b.bottom)) - Math.min(...boxes.map((b) => b.top)),
          right: Math.max(...boxes.map((b) => b.right)),
        };
      });
      await page.screenshot({ path: `${ARTIFACTS}fit-heads-gpt2-600px.png`, fullPage: true });
      console.log(`# heads gpt2 in 600 px: element ${m.height} px tall, maps ${m.columns} columns, ${m.mapsHeight} px`);
      assert.equal(m.maps, 12);
      assert.ok(m.columns > 1, `${m.columns} column of maps`);
      assert.ok(m.right <= 600, `maps reach ${m.right} px`);
      assert.ok(m.mapsHeight < 1.5 * 600 * (9 / 16), `the maps take ${m.mapsHeight} px`);
      assert.ok(m.height < 2400, `the element is ${m.height} px tall`);
    } finally {
      await context.close();
    }
  });
});
