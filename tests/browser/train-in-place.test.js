// A one-panel slide trains in place (issue 23): embed.html?panel=heads in a 1280x720 iframe has its
// own Train button (no "panel 7" on a slide that has no panel 7); while the run trains the panel
// says its step, and when it is done the trained maps are drawn, their heads find "catch" and "ball",
// and nothing leaves the frame (every canvas and the document inside 1280x720).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS, openInDeck } from './page-checks.js';
import { SAMPLE_NOUN_AT, SAMPLE_VERB_AT } from '../../web/explorer/panels/learn/learn-verdict.js';

const web = chromiumAndWeb();
const SIZE = { width: 1280, height: 720 };
// In the frame: the learned block as drawn, the boxes of every canvas of the panel, the scroll size.
const READ = (id) => {
  const panel = document.querySelector('headwise-explorer').shadowRoot.querySelector(`#panel-${id}`);
  const block = panel.querySelector('.learned');
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height };
  };
  const button = block.querySelector('button');
  return {
    learned: block.dataset.learned,
    note: block.querySelector('.learned-note').textContent,
    button: button.hidden ? null : { text: button.textContent, disabled: button.disabled },
    progress: block.querySelector('progress:not([hidden])')?.value ?? null,
    canvases: [...panel.querySelectorAll('canvas:not([hidden])')].map((c) => ({
      kind: c.dataset.kind ?? null,
      title: c.headwiseFigure.title,
      box: box(c),
    })),
    rows: [...block.querySelectorAll('tr[data-kind="trained"]')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)),
    ),
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    textFit: panel.style.getPropertyValue('--text-fit'),
  };
};
const argmax = (v) => v.indexOf(Math.max(...v));

for (const id of ['heads', 'why']) {
  test(`embed.html?panel=${id} at 1280x720: trains here with progress, trained maps inside the frame`, async () => {
    const context = await web.browser.newContext({ viewport: SIZE });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      // The heads panel's Train button is in its random-weights view (trained heads are its default).
      const src = `embed.html?panel=${id}${id === 'heads' ? '&heads-weights=random' : ''}`;
      const frame = await openInDeck(page, web.server.url, src, [SIZE.width, SIZE.height]);
      await frame.waitForFunction(() => document.querySelector('headwise-explorer')?.dataset.ready === 'true');
      const before = await frame.evaluate(READ, id);
      assert.equal(before.learned, 'false');
      assert.ok(before.button && !before.button.disabled, JSON.stringify(before.button));
      assert.doesNotMatch(`${before.button.text} ${before.note}`, /panel 7/, 'a one-panel slide has no panel 7');

      await page.frameLocator('#slide').locator(`headwise-explorer #panel-${id} .learned button`).click();
      // Progress, said in the panel itself while the (hidden) Learn panel's run trains.
      await frame.waitForFunction(
        (panel) =>
          Number(
            document.querySelector('headwise-explorer').shadowRoot.querySelector(`#panel-${panel} .learned`).dataset
              .step,
          ) > 0,
        id,
        { timeout: 30_000 },
      );
      const during = await frame.evaluate(READ, id);
      assert.match(during.note, /Training 1 and 2 heads: step \d+ of at least \d+/);
      assert.ok(during.progress > 0, `the progress bar moves: ${during.progress}`);
      assert.equal(during.button?.disabled, true);
      await page.screenshot({ path: `${ARTIFACTS}train-in-place-${id}-training.png` });

      await frame.waitForFunction(
        (panel) =>
          document.querySelector('headwise-explorer').shadowRoot.querySelector(`#panel-${panel} .learned`).dataset
            .learned === 'true',
        id,
        { timeout: 90_000 },
      );
      await frame.waitForTimeout(300);
      const after = await frame.evaluate(READ, id);
      await page.screenshot({ path: `${ARTIFACTS}train-in-place-${id}-trained.png` });
      assert.equal(after.button, null);
      assert.doesNotMatch(after.note, /panel 7/);
      const trainedMaps = after.canvases.filter((c) => c.kind === 'trained');
      assert.ok(trainedMaps.length >= 1, JSON.stringify(after.canvases.map((c) => c.title)));
      // The 2-head run: one head on the latest verb ("catch"), the other on the latest noun ("ball").
      const twoHeads = after.rows.slice(-2);
      assert.deepEqual(twoHeads.map(argmax).sort(), [SAMPLE_VERB_AT, SAMPLE_NOUN_AT].sort(), JSON.stringify(twoHeads));
      // Nothing leaves the frame: every figure inside it, no scrolling, readable sizes.
      assert.deepEqual(after.scroll, [SIZE.width, SIZE.height], 'the slide does not scroll');
      for (const c of after.canvases) {
        const b = c.box;
        assert.ok(
          b.left >= 0 && b.top >= 0 && b.right <= SIZE.width && b.bottom <= SIZE.height,
          `${c.title}: ${JSON.stringify(b)}`,
        );
      }
      for (const c of trainedMaps) assert.ok(c.box.width > 200 && c.box.height > 60, JSON.stringify(c.box));
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
