// Slide mode designed as slides (issue 34): each panel whose entry declares its slide
// (web/explorer/panels/index.js) shows, in embed.html at 1280x720, its point in at most two lines of
// at least 24 px, its figures over at least 60% of the frame with labels of at least 16 px, the
// lecture's words ("ball", "catch", "it") and the peaks of the highlighted row labelled on every map
// whose columns are the sentence's tokens, and no more prose than the point until Details is pressed
// (which shows the panel's text and controls instead of its figures). Screenshots:
// test-artifacts/slide-mode-<panel>.png and slide-mode-<panel>-details.png.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS, storyDrawn, twoFrames } from './page-checks.js';
import { PANELS } from '../../web/explorer/panels/index.js';

const FRAME = { width: 1280, height: 720 };
// The panels designed as slides: those whose registry entry has a slide point.
const SLIDE_PANELS = PANELS.filter((entry) => entry.slide).map((entry) => entry.id);
// Each as its address opens it, and the Learn panel's other two experiments (each its own slide).
const SLIDES = [
  ...SLIDE_PANELS.map((panel) => ({ panel, name: panel, query: '' })),
  ...['layers', 'story'].map((e) => ({ panel: 'learn', name: `learn-${e}`, query: `&learn-experiment=${e}` })),
];
const LECTURE_WORDS = ['ball', 'catch', 'it'];
const MAX_PROSE = 260; // characters shown beside the figures: the point and the Details button
const web = chromiumAndWeb();

// What the slide shows: the point's size and lines, the prose shown, the figures' union box, the
// smallest figure text on screen, and per heatmap with the sentence's columns the labels drawn.
function measure(panel) {
  const section = document.querySelector('headwise-explorer').shadowRoot.querySelector(`[data-panel="${panel}"]`);
  const point = section.querySelector('.point');
  const style = getComputedStyle(point);
  const canvases = [...section.querySelectorAll('canvas:not([hidden])')].filter((c) => c.getBoundingClientRect().width);
  const boxes = canvases.map((c) => c.getBoundingClientRect());
  const union = boxes.length
    ? (Math.max(...boxes.map((b) => b.right)) - Math.min(...boxes.map((b) => b.left))) *
      (Math.max(...boxes.map((b) => b.bottom)) - Math.min(...boxes.map((b) => b.top)))
    : 0;
  const texts = canvases.flatMap((c) => {
    const f = c.headwiseFigure;
    const scale = c.getBoundingClientRect().width / f.width;
    return f.items
      .filter((it) => it.kind === 'text')
      .map((it) => ({ size: it.size * scale, text: it.text, title: f.title }));
  });
  const sentenceMaps = canvases
    .map((c) => c.headwiseFigure)
    .filter((f) => f.heatmaps?.length)
    .flatMap((f) =>
      f.heatmaps
        .filter((h) => (h.colLabels?.includes('ball') && h.cb === 1) || (h.rowLabels?.includes('ball') && h.rb === 1))
        .map(() => ({ title: f.title, drawn: f.items.filter((it) => it.kind === 'text').map((it) => it.text) })),
    );
  return {
    pointSize: parseFloat(style.fontSize),
    pointLines: Math.round(point.getBoundingClientRect().height / parseFloat(style.lineHeight)),
    point: point.textContent,
    prose: section.innerText.replace(/\s+/g, ' ').trim(),
    figureShare: union / (innerWidth * innerHeight),
    // The figures' height against the room under the point.
    figureHeight: boxes.length
      ? (Math.max(...boxes.map((b) => b.bottom)) - Math.min(...boxes.map((b) => b.top))) /
        (innerHeight - point.getBoundingClientRect().bottom)
      : 0,
    figureWidth: boxes.length
      ? (Math.max(...boxes.map((b) => b.right)) - Math.min(...boxes.map((b) => b.left))) / innerWidth
      : 0,
    smallest: texts.sort((a, b) => a.size - b.size).slice(0, 3),
    sentenceMaps,
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    introShown: section.querySelector('.intro').getBoundingClientRect().height > 0,
  };
}

async function openSlide(panel, query = '', colorScheme = 'light') {
  const context = await web.browser.newContext({ viewport: FRAME, colorScheme });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${web.server.url}embed.html?panel=${panel}${query}`);
  await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
  // The heads slide shows the trained model's heads once its checkpoint has loaded (after the first render).
  if (panel === 'heads')
    await page.waitForFunction(
      () =>
        document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-heads').dataset.headsWeights ===
        'trained',
      null,
      { timeout: 30_000 },
    );
  // The story slide draws once its checkpoint has loaded (after the first render).
  if (panel === 'story') await storyDrawn(page);
  // The Learn slide draws its experiment's figures once its run (or its checkpoints) is there.
  if (panel === 'learn')
    await page.waitForFunction(
      () =>
        document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn').dataset.step !==
          undefined &&
        document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn canvas:not([hidden])'),
      null,
      { timeout: 30_000 },
    );
  // The loop slide times its sweep when shown: its figures are the times, once measured.
  if (panel === 'loop') {
    await page.waitForFunction(
      () =>
        document.querySelector('headwise-explorer').shadowRoot.querySelector('[data-panel="loop"] .run-sweep')
          ?.disabled === false &&
        /faster/.test(
          document.querySelector('headwise-explorer').shadowRoot.querySelector('[data-panel="loop"] .point')
            .textContent,
        ),
      null,
      { timeout: 120_000 },
    );
  }
  await page.evaluate(twoFrames);
  return { page, context, errors };
}

describe('slide mode at 1280x720: figure first, the point in large type, the rest behind Details', () => {
  for (const { panel, name, query } of SLIDES) {
    test(`${name}: point in 2 lines >= 24 px, figures >= 60% of frame, text >= 16 px, words labelled`, async () => {
      const { page, context, errors } = await openSlide(panel, query);
      try {
        const m = await page.evaluate(measure, panel);
        await page.screenshot({ path: `${ARTIFACTS}slide-mode-${name}.png` });
        console.log(
          `# ${name}: point ${m.pointSize.toFixed(1)} px in ${m.pointLines} lines, ` +
            `${m.prose.length} characters shown, ` +
            `figures ${(100 * m.figureShare).toFixed(0)}% of the frame, smallest text ` +
            `${m.smallest.map((t) => `${t.size.toFixed(1)} px ${JSON.stringify(t.text)}`).join(', ')}`,
        );
        assert.ok(m.point.length > 0, `${panel}: a point is said`);
        assert.ok(m.pointSize >= 24, `${panel}: point at ${m.pointSize} px`);
        assert.ok(m.pointLines <= 2, `${panel}: point in ${m.pointLines} lines: ${m.point}`);
        assert.ok(m.prose.length <= MAX_PROSE, `${panel}: ${m.prose.length} characters shown: ${m.prose}`);
        assert.equal(m.introShown, false, `${panel}: the intro waits behind Details`);
        assert.ok(m.figureShare >= 0.6, `${panel}: figures cover ${(100 * m.figureShare).toFixed(0)}% of the frame`);
        assert.ok(m.smallest[0].size >= 16, `${panel}: smallest figure text ${JSON.stringify(m.smallest[0])}`);
        assert.ok(m.scroll[1] <= FRAME.height, `${panel}: ${m.scroll[1]} px tall in a ${FRAME.height} px frame`);
        // Maps over the lecture's sentence (the Learn panel's are over its task's own sentences).
        if (!['loop', 'order', 'learn'].includes(panel))
          assert.ok(m.sentenceMaps.length > 0, `${panel}: maps over the sentence`);
        for (const map of m.sentenceMaps)
          for (const word of LECTURE_WORDS)
            assert.ok(map.drawn.includes(word), `${panel}: "${word}" labelled on ${map.title}: ${map.drawn.join(' ')}`);

        // The steps panel: every step reads as a slide.
        for (let step = 1; panel === 'steps' && step < 5; step += 1) {
          await page.evaluate((k) => document.querySelector('headwise-explorer').goToStep(k), step);
          await page.evaluate(twoFrames);
          const s = await page.evaluate(measure, panel);
          await page.screenshot({ path: `${ARTIFACTS}slide-mode-${panel}-step${step + 1}.png` });
          const where = `${panel} step ${step + 1}`;
          console.log(
            `# ${where}: point in ${s.pointLines} lines, ${s.prose.length} characters, figures ` +
              `${(100 * s.figureShare).toFixed(0)}%, smallest text ${s.smallest[0]?.size.toFixed(1)} px`,
          );
          assert.ok(s.pointLines <= 2 && s.prose.length <= MAX_PROSE, `${where}: ${s.prose}`);
          // A step whose matrices' shape cannot cover 60% (four square maps in a row, a 12 x 6 concat)
          // is as large as the frame allows: as wide as it, or as tall as the room under the point.
          const large = s.figureShare >= 0.6 || s.figureWidth >= 0.9 || s.figureHeight >= 0.85;
          assert.ok(
            large,
            `${where}: figures cover ${(100 * s.figureShare).toFixed(0)}%, ` +
              `${(100 * s.figureWidth).toFixed(0)}% of the width, ${(100 * s.figureHeight).toFixed(0)}% of the room`,
          );
          assert.ok(s.smallest[0].size >= 16, `${where}: smallest figure text ${JSON.stringify(s.smallest[0])}`);
          assert.ok(s.scroll[1] <= FRAME.height, `${where}: ${s.scroll[1]} px tall`);
        }
        await page.evaluate(() => document.querySelector('headwise-explorer').goToStep(0));

        // Details: the panel's text and controls take the figures' place; pressed again, the figures.
        const toggle = page.locator(`headwise-explorer [data-panel="${panel}"] .details-toggle`);
        await toggle.click();
        const open = await page.evaluate(measure, panel);
        await page.screenshot({ path: `${ARTIFACTS}slide-mode-${name}-details.png` });
        assert.ok(open.introShown, `${panel}: Details shows the intro`);
        assert.ok(open.prose.length > m.prose.length, `${panel}: Details shows more text`);
        await toggle.click();
        assert.equal((await page.evaluate(measure, panel)).introShown, false);
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }

  // A configuration the panel refuses (toy width 6 in 4 heads) says why on the slide, in the frame,
  // rather than leaving it blank (the status line was hidden with the rest of the page text).
  test('a refused configuration says why on the slide', async () => {
    const context = await web.browser.newContext({ viewport: FRAME });
    const page = await context.newPage();
    try {
      for (const panel of ['heads', 'steps', 'loop']) {
        await page.goto(`${web.server.url}embed.html?panel=${panel}&heads=4`);
        await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
        await page.evaluate(twoFrames);
        const seen = await page.evaluate((id) => {
          const line = document
            .querySelector('headwise-explorer')
            .shadowRoot.querySelector(`[data-panel="${id}"] .status`);
          const box = line.getBoundingClientRect();
          return { text: line.textContent, top: box.top, bottom: box.bottom, height: box.height };
        }, panel);
        assert.match(seen.text, /width 6 is not divisible by 4 heads/, `${panel}: ${seen.text}`);
        assert.ok(seen.height > 0 && seen.top >= 0 && seen.bottom <= FRAME.height, `${panel}: ${JSON.stringify(seen)}`);
      }
    } finally {
      await context.close();
    }
  });
});
