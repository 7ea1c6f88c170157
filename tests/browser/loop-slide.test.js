// The loop-vs-fused slide (embed.html?panel=loop in a 16:9 deck frame): it times the heads sweep
// when it is shown, with no click; then it says when and in which browser it measured, its text
// has no raw markup (backticks), both charts' text fits them (title included), and the ratio of
// the two times is a figure of its own: one bar per head count, as tall as the ratio.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS, openSlide } from './page-checks.js';

const web = chromiumAndWeb();
const LOOK = async () => {
  const { textProblems } = await import('/explorer/figures/text-boxes.js');
  const section = document.querySelector('headwise-explorer').shadowRoot.querySelector('[data-panel="loop"]');
  const canvases = [...section.querySelectorAll('canvas:not([hidden])')];
  const figures = canvases.map((canvas) => {
    const f = canvas.headwiseFigure;
    const scale = canvas.getBoundingClientRect().width / f.width;
    const texts = f.items.filter((it) => it.kind === 'text');
    return {
      title: f.title,
      label: canvas.getAttribute('aria-label'),
      problems: textProblems(f),
      sizes: texts.map((it) => it.size * scale),
      texts: texts.map((it) => it.text),
      bars: f.items.filter((it) => it.kind === 'rect' && it.fill === '#D55E00').map((it) => it.h),
      zero: f.ratios ? null : undefined,
      box: canvas.getBoundingClientRect().toJSON(),
    };
  });
  return {
    text: section.innerText,
    status: section.querySelector('.sweep-status').textContent,
    figures,
    view: [innerWidth, innerHeight],
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
  };
};

const openLoopSlide = (size, colorScheme) =>
  openSlide(web.browser, web.server.url, 'embed.html?panel=loop', size, { colorScheme });

const sweepDone = (frame) =>
  frame.waitForFunction(
    () => document.querySelector('headwise-explorer').shadowRoot.querySelector('.sweep-status').dataset.done === 'true',
    null,
    { timeout: 120_000 },
  );

describe('the loop-vs-fused slide', () => {
  test('at 1280x720 it measures on show and draws the times and their ratio, readable', async () => {
    const { context, page, frame, errors } = await openLoopSlide([1280, 720], 'light');
    try {
      const t0 = Date.now();
      await sweepDone(frame); // nobody clicked
      const seconds = (Date.now() - t0) / 1000;
      const m = await frame.evaluate(LOOK);
      await page.screenshot({ path: `${ARTIFACTS}loop-slide-1280-light.png` });
      console.log(`# sweep on show: done ${seconds.toFixed(1)} s after the slide was ready; ${m.status}`);
      assert.doesNotMatch(m.text, /`/, 'raw backticks in the slide text');
      assert.match(m.status, /^Measured at \d{1,2}:\d{2}.* in this tab \((Chrome|Edge|Firefox|Safari) \d+\)/);
      assert.equal(m.figures.length, 2, m.figures.map((f) => f.title).join(' | '));
      for (const f of m.figures) {
        assert.deepEqual(f.problems, [], f.title); // the title inside its figure, nothing on a curve
        assert.ok(f.box.right <= m.view[0] && f.box.bottom <= m.view[1], `${f.title}: ${JSON.stringify(f.box)}`);
        const sorted = [...f.sizes].sort((a, b) => a - b);
        assert.ok(sorted[0] >= 11, `${f.title}: smallest label ${sorted[0]} px`);
        assert.ok(sorted[sorted.length >> 1] >= 14, `${f.title}: median label ${sorted[sorted.length >> 1]} px`);
      }
      assert.ok(m.scroll[1] <= m.view[1], `${m.scroll[1]} px tall in a ${m.view[1]} px frame`);
      // The ratio chart: 12 bars, each as tall as its ratio (heights proportional to the values the
      // canvas names), the last printed with the value the status line gives for 4000 heads.
      const ratio = m.figures.find((f) => /loop time \/ fused time/.test(f.title));
      assert.ok(ratio, 'a chart of the ratio');
      const named = [...ratio.label.matchAll(/(\d+) heads ([\d.]+)x/g)].map((r) => Number(r[2]));
      assert.equal(named.length, 12);
      assert.equal(ratio.bars.length, 12);
      // The names are rounded to 0.1: each bar's height relative to the last lies within what the
      // rounded names allow (each +-0.05), and 2% for drawing.
      const [hLast, nLast] = [ratio.bars.at(-1), named.at(-1)];
      ratio.bars.forEach((h, i) => {
        const low = (named[i] - 0.05) / (nLast + 0.05);
        const high = (named[i] + 0.05) / (nLast - 0.05);
        assert.ok(
          h / hLast >= 0.98 * low && h / hLast <= 1.02 * high,
          `bar ${i}: heights ${ratio.bars}, named ${named}`,
        );
      });
      const last = /: ([\d.]+)x\./.exec(m.status)[1];
      assert.ok(ratio.texts.includes(`${last}x`), `the 4000-heads bar reads ${last}x: ${ratio.texts}`);
      assert.ok(Number(last) > 1.5, `at 4000 heads the loop is only ${last}x slower`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  for (const [name, size, scheme] of [
    ['1280x720 dark', [1280, 720], 'dark'],
    ['a phone (390 px)', [390, 844], 'light'],
  ]) {
    test(`on ${name}: the charts are drawn inside the frame`, async () => {
      const { context, page, frame, errors } = await openLoopSlide(size, scheme);
      try {
        await sweepDone(frame);
        const m = await frame.evaluate(LOOK);
        await page.screenshot({ path: `${ARTIFACTS}loop-slide-${name.replace(/\W+/g, '-')}.png`, fullPage: true });
        assert.equal(m.figures.length, 2);
        for (const f of m.figures) {
          assert.deepEqual(f.problems, [], f.title);
          assert.ok(f.box.right <= m.view[0] + 0.5, `${f.title} reaches ${f.box.right} px of ${m.view[0]}`);
        }
        assert.ok(m.scroll[0] <= m.view[0], `${m.scroll[0]} px wide in ${m.view[0]}`);
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }
});
