// The theme option (issue 23): an embed on a white deck stays white when the laptop is in dark mode
// (light unless asked), ?theme=dark draws it dark, ?theme=auto follows the viewer; the element's
// setConfig({ theme }) redraws its figures; the reveal.js example asks for light. Each check reads
// the pixels of a screenshot of the deck page: the figure's background (a strip inside a canvas that
// nothing is drawn on), the frame's own background, and the figure's darkest and lightest text.
// Screenshots: test-artifacts/theme-*.png.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS, openInDeck } from './page-checks.js';
import { serveDir } from './static-server.js';

const SIZE = { width: 1280, height: 720 };
const web = chromiumAndWeb();
const LIGHT_BG = [255, 255, 255];
const DARK_BG = [0x16, 0x16, 0x1a];

// In the frame: the box (in the frame, which is the deck's top-left) of the panel's first canvas
// and a row of its figure just above its first item of text (the title), where nothing is drawn.
const FIRST_CANVAS = (panel) => {
  const section = document.querySelector('headwise-explorer').shadowRoot.querySelector(`[data-panel="${panel}"]`);
  const canvas = section.querySelector('canvas:not([hidden])');
  const r = canvas.getBoundingClientRect();
  return { left: r.left, top: r.top, width: r.width, height: r.height };
};

// Decodes a PNG screenshot in a blank page and returns the colours asked for: the mean colour of
// each box, and the darkest and lightest pixel of a box.
async function pixels(context, png, boxes) {
  const page = await context.newPage();
  try {
    return await page.evaluate(
      async ({ data, boxes }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = new OffscreenCanvas(image.width, image.height);
        const ctx = canvas.getContext('2d');
        ctx.drawImage(image, 0, 0);
        return boxes.map(({ left, top, width, height }) => {
          const d = ctx.getImageData(Math.round(left), Math.round(top), Math.round(width), Math.round(height)).data;
          const sum = [0, 0, 0];
          let darkest = 765;
          let lightest = 0;
          for (let i = 0; i < d.length; i += 4) {
            for (let c = 0; c < 3; c += 1) sum[c] += d[i + c];
            const v = d[i] + d[i + 1] + d[i + 2];
            darkest = Math.min(darkest, v);
            lightest = Math.max(lightest, v);
          }
          const n = d.length / 4;
          return { mean: sum.map((s) => Math.round(s / n)), darkest: darkest / 3, lightest: lightest / 3 };
        });
      },
      { data: png.toString('base64'), boxes },
    );
  } finally {
    await page.close();
  }
}

const near = (colour, want, tolerance = 6) => colour.every((c, i) => Math.abs(c - want[i]) <= tolerance);

/** Opens embed.html?query in an iframe of a white deck with the OS in `scheme`; reads the pixels. */
async function embedPixels(query, scheme, name) {
  const context = await web.browser.newContext({ viewport: SIZE, colorScheme: scheme });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    const frame = await openInDeck(page, web.server.url, `embed.html?${query}`, [SIZE.width, SIZE.height], {
      background: '#fff',
    });
    await frame.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
    await frame.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const canvas = await frame.evaluate(FIRST_CANVAS, 'why');
    const png = await page.screenshot({ path: `${ARTIFACTS}theme-${name}.png` });
    const [figure, frameCorner, text] = await pixels(context, png, [
      // The figure's top-right corner: the title is left-aligned and shorter than the figure.
      { left: canvas.left + canvas.width - 24, top: canvas.top + 1, width: 20, height: 6 },
      // The frame's bottom-right corner: the page itself, under no panel.
      { left: SIZE.width - 12, top: SIZE.height - 8, width: 8, height: 6 },
      // The figure's title.
      { left: canvas.left, top: canvas.top, width: Math.min(200, canvas.width), height: 22 },
    ]);
    const theme = await frame.evaluate(() => document.querySelector('headwise-explorer').dataset.theme);
    assert.deepEqual(errors, []);
    return { figure, frameCorner, text, theme };
  } finally {
    await context.close();
  }
}

describe('theme of an embed on a white deck', () => {
  test('OS in dark mode, no theme asked: the figure and the frame stay white, text dark', async () => {
    const m = await embedPixels('panel=why', 'dark', 'default-os-dark');
    console.log(`# default, OS dark: ${JSON.stringify(m)}`);
    assert.equal(m.theme, 'light');
    assert.ok(near(m.figure.mean, LIGHT_BG), `figure background ${m.figure.mean}`);
    assert.ok(near(m.frameCorner.mean, LIGHT_BG), `frame background ${m.frameCorner.mean}`);
    assert.ok(m.text.darkest < 80, `the title's darkest pixel is ${m.text.darkest}`);
  });

  test('?theme=dark: the figure and the frame are dark, text light', async () => {
    const m = await embedPixels('panel=why&theme=dark', 'dark', 'dark-os-dark');
    console.log(`# theme=dark, OS dark: ${JSON.stringify(m)}`);
    assert.equal(m.theme, 'dark');
    assert.ok(near(m.figure.mean, DARK_BG), `figure background ${m.figure.mean}`);
    assert.ok(near(m.frameCorner.mean, DARK_BG), `frame background ${m.frameCorner.mean}`);
    assert.ok(m.text.lightest > 200, `the title's lightest pixel is ${m.text.lightest}`);
  });

  test('?theme=dark with the OS light, and ?theme=auto in both: as asked', async () => {
    const dark = await embedPixels('panel=why&theme=dark', 'light', 'dark-os-light');
    assert.ok(near(dark.figure.mean, DARK_BG) && near(dark.frameCorner.mean, DARK_BG), JSON.stringify(dark));
    const autoDark = await embedPixels('panel=why&theme=auto', 'dark', 'auto-os-dark');
    assert.ok(near(autoDark.figure.mean, DARK_BG), JSON.stringify(autoDark));
    const autoLight = await embedPixels('panel=why&theme=auto', 'light', 'auto-os-light');
    assert.ok(near(autoLight.figure.mean, LIGHT_BG), JSON.stringify(autoLight));
  });

  test('?theme=purple is named and the default (light) is used', async () => {
    const context = await web.browser.newContext({ viewport: SIZE, colorScheme: 'dark' });
    const page = await context.newPage();
    try {
      await page.goto(`${web.server.url}embed.html?panel=why&theme=purple`);
      await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
      const state = await page.evaluate(() => document.querySelector('headwise-explorer').getState());
      assert.equal(state.theme, 'light');
      assert.match(state.notes.join(' '), /theme="purple" was ignored: use light, dark or auto/);
    } finally {
      await context.close();
    }
  });
});

test("the element: setConfig({ theme: 'dark' }) redraws the figures dark, back to light", async () => {
  const context = await web.browser.newContext({ viewport: SIZE, colorScheme: 'light' });
  const page = await context.newPage();
  try {
    await page.goto(`${web.server.url}embed.html?panel=why`);
    await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
    const read = async (name) => {
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const canvas = await page.evaluate(FIRST_CANVAS, 'why');
      const png = await page.screenshot({ path: `${ARTIFACTS}theme-element-${name}.png` });
      const box = { left: canvas.left + canvas.width - 24, top: canvas.top + 1, width: 20, height: 6 };
      return (await pixels(context, png, [box]))[0].mean;
    };
    assert.ok(near(await read('light'), LIGHT_BG));
    await page.evaluate(() => document.querySelector('headwise-explorer').setConfig({ theme: 'dark' }));
    const dark = await read('dark');
    assert.ok(near(dark, DARK_BG), `after setConfig dark: ${dark}`);
    await page.evaluate(() => document.querySelector('headwise-explorer').setConfig({ theme: 'light' }));
    assert.ok(near(await read('light-again'), LIGHT_BG));
  } finally {
    await context.close();
  }
});

test('the reveal.js example asks every panel for the light theme: white slides with the OS in dark mode', async () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const html = await readFile(`${root}examples/reveal/index.html`, 'utf8');
  const embeds = [...html.matchAll(/src="[^"]*embed\.html\?([^"]*)"/g)].map((m) => m[1]);
  const elements = [...html.matchAll(/<headwise-explorer( [^>]*panel=[^>]*)>/g)].map((m) => m[1]);
  assert.ok(embeds.length >= 4 && elements.length >= 2);
  for (const q of embeds) assert.match(q, /(^|&amp;)theme=light(&|$)/, q);
  for (const attrs of elements) assert.match(attrs, /theme="light"/, attrs);
  const server = await serveDir(root);
  const context = await web.browser.newContext({ viewport: SIZE, colorScheme: 'dark' });
  const page = await context.newPage();
  try {
    await page.goto(`${server.url}examples/reveal/index.html#/1`);
    const frame = await (await page.waitForSelector('section.present iframe')).contentFrame();
    await frame.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
    await page.waitForTimeout(300);
    const canvas = await frame.evaluate(FIRST_CANVAS, 'why');
    const offset = await page.evaluate(() => {
      const r = document.querySelector('section.present iframe').getBoundingClientRect();
      return {
        left: r.left,
        top: r.top,
        scale: r.width / document.querySelector('section.present iframe').clientWidth,
      };
    });
    const png = await page.screenshot({ path: `${ARTIFACTS}theme-reveal-os-dark.png` });
    const at = (x, y) => ({ left: offset.left + x * offset.scale, top: offset.top + y * offset.scale });
    const [figure] = await pixels(context, png, [
      { ...at(canvas.left + canvas.width - 24, canvas.top + 1), width: 16, height: 4 },
    ]);
    assert.ok(near(figure.mean, LIGHT_BG), `the why slide's figure background ${figure.mean}`);
  } finally {
    await context.close();
    await server.close();
  }
});
