// "PNG 16:9" (issue 23): next to PNG, SVG and JSON, a panel saves its figures laid out on one
// 1920x1080 image under its title, for a slide. The downloaded file is decoded: its IHDR says
// 1920x1080, it is not blank (many colours; each figure's box has its own variety), every figure's
// box lies inside the image and below the title, and the title is drawn at >= 24 px. Light and dark.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS } from './page-checks.js';

const web = chromiumAndWeb();

// PNG: 8-byte signature, then the IHDR chunk (length, "IHDR", width, height as big-endian uint32).
function ihdr(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a PNG signature');
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

// In the page: decode the PNG (Chromium's own decoder) and count colours in the whole image, in
// each box and outside every box and the title band (where only the background may be).
const PIXELS = async ({ base64, boxes, titleBottom }) => {
  const image = new Image();
  image.src = `data:image/png;base64,${base64}`;
  await image.decode();
  const canvas = new OffscreenCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const { data, width, height } = ctx.getImageData(0, 0, image.width, image.height);
  const colours = (x0, y0, x1, y1) => {
    const seen = new Set();
    for (let y = Math.max(0, y0); y < Math.min(height, y1); y += 3)
      for (let x = Math.max(0, x0); x < Math.min(width, x1); x += 3) {
        const i = 4 * (y * width + x);
        seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      }
    return seen.size;
  };
  const inside = (x, y) => y < titleBottom || boxes.some((b) => x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h);
  let strayInk = 0;
  const bg = data.slice(0, 3).join();
  for (let y = 0; y < height; y += 4)
    for (let x = 0; x < width; x += 4) {
      const i = 4 * (y * width + x);
      if (!inside(x, y) && `${data[i]},${data[i + 1]},${data[i + 2]}` !== bg) strayInk += 1;
    }
  return {
    size: [image.width, image.height],
    all: colours(0, 0, width, height),
    perBox: boxes.map((b) => colours(b.x, b.y, b.x + b.w, b.y + b.h)),
    title: colours(0, 0, width, titleBottom),
    strayInk,
  };
};

for (const [panel, theme] of [
  ['heads', 'light'],
  ['why', 'dark'],
  ['learn', 'light'],
]) {
  test(`${panel} (${theme}): "PNG 16:9" saves a 1920x1080 image with the title and every figure inside`, async () => {
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(`${web.server.url}index.html?panel=${panel}&theme=${theme}`);
      await page.waitForFunction(() => document.querySelector('headwise-explorer')?.dataset.ready === 'true');
      const button = page.locator(`headwise-explorer [data-panel="${panel}"] .exports button:text-is("PNG 16:9")`);
      const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
      assert.match(download.suggestedFilename(), new RegExp(`^headwise-${panel}-16x9\\.png$`));
      const path = `${ARTIFACTS}slide-png-${panel}-${theme}.png`;
      await download.saveAs(path);
      const bytes = await readFile(path);
      assert.deepEqual(ihdr(bytes), { width: 1920, height: 1080 });

      const layout = await button.evaluate((b) => b.headwiseLayout);
      const figures = await page
        .locator('headwise-explorer')
        .evaluate(
          (host, id) => host.shadowRoot.querySelectorAll(`[data-panel="${id}"] canvas:not([hidden])`).length,
          panel,
        );
      assert.equal(layout.boxes.length, figures, 'every figure of the panel is on the slide');
      assert.ok(layout.titleSize >= 24, `title ${layout.titleSize} px`);
      const titleBottom = 48 + layout.titleSize * 1.6;
      for (const b of layout.boxes) {
        assert.ok(b.x >= 0 && b.y >= titleBottom && b.x + b.w <= 1920 && b.y + b.h <= 1080, JSON.stringify(b));
        assert.ok(b.w > 100 && b.h > 40, `a figure drawn large enough: ${JSON.stringify(b)}`);
      }
      const px = await page.evaluate(PIXELS, { base64: bytes.toString('base64'), boxes: layout.boxes, titleBottom });
      assert.deepEqual(px.size, [1920, 1080]);
      assert.ok(px.all > 30, `not blank: ${px.all} colours`);
      assert.ok(px.title > 2, `the title is drawn: ${px.title} colours in its band`);
      px.perBox.forEach((n, k) => assert.ok(n > 4, `figure ${k + 1} drawn in its box: ${n} colours`));
      assert.equal(px.strayInk, 0, 'nothing drawn outside the title and the figures');
      console.log(
        `${panel} ${theme}: ${layout.boxes.length} figures at scale ${layout.scale.toFixed(2)}, figure text ` +
          `${layout.text.min.toFixed(1)} px min, ${layout.text.median.toFixed(1)} px median, ` +
          `title ${layout.titleSize} px`,
      );
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
