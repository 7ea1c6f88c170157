// A panel's PNG and SVG (issue 34): every figure laid out as it stands on screen (side by side where
// the panel draws them side by side, not one tall column), or one figure on its own, with its title,
// chosen in the exports' list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { chromiumAndWeb } from './web-session.js';
import { openExplorer } from './page-checks.js';

const web = chromiumAndWeb();

// The panel's canvases as the reader sees them: each figure's title, size and box.
const FIGURES = (panel) =>
  [
    ...document
      .querySelector('headwise-explorer')
      .shadowRoot.querySelectorAll(`[data-panel="${panel}"] canvas:not([hidden])`),
  ]
    .filter((c) => c.getBoundingClientRect().width > 0)
    .map((c) => {
      const b = c.getBoundingClientRect();
      const f = c.headwiseFigure;
      return { title: f.title, width: f.width, height: f.height, top: b.top, left: b.left };
    });

const svgSize = (svg) => {
  const m = /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="([\d.]+)" height="([\d.]+)"/.exec(svg);
  assert.ok(m, svg.slice(0, 120));
  return { width: Number(m[1]), height: Number(m[2]) };
};

test('PNG and SVG: all figures as laid out on screen, or one chosen by its title', async () => {
  const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html?panel=why`);
  try {
    const save = async (label) => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator(`[data-panel="why"] .exports button:text-is("${label}")`).click(),
      ]);
      return readFile(await download.path());
    };
    const figures = await page.evaluate(FIGURES, 'why');
    assert.ok(figures.length >= 4, JSON.stringify(figures));
    // On a 1920 px page the why panel draws its figures side by side in rows.
    const rowsOnScreen = new Set(figures.map((f) => Math.round(f.top / 40))).size;
    assert.ok(rowsOnScreen < figures.length, `side by side on screen: ${JSON.stringify(figures)}`);

    const all = svgSize((await save('SVG')).toString('utf8'));
    const tallest = Math.max(...figures.map((f) => f.height));
    const widest = Math.max(...figures.map((f) => f.width));
    const column = figures.reduce((h, f) => h + f.height, 0);
    // Not one column: wider than any one figure, and much shorter than the figures stacked.
    assert.ok(all.width > widest * 1.5, `${all.width} wide, widest figure ${widest}`);
    assert.ok(all.height < 0.8 * column && all.height >= tallest, `${all.height} tall; stacked ${column}`);

    // One figure on its own, chosen by its title: the SVG is that figure, the PNG twice its size.
    const which = page.locator('[data-panel="why"] .exports select');
    await which.focus();
    const offered = await which.locator('option').allTextContents();
    assert.deepEqual(offered, ['All figures', ...figures.map((f) => f.title)]);
    const pick = figures[1];
    await which.selectOption({ label: pick.title });
    const one = (await save('SVG')).toString('utf8');
    assert.deepEqual(svgSize(one), { width: pick.width, height: pick.height });
    assert.ok(one.includes(`>${pick.title.replace(/"/g, '&quot;')}</text>`), 'the figure keeps its title');
    const png = await save('PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [2 * pick.width, 2 * pick.height]);
    // Back to all.
    await which.selectOption({ label: 'All figures' });
    assert.deepEqual(svgSize((await save('SVG')).toString('utf8')), all);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
