// Helpers for the explorer's browser tests: open a page while recording console errors and every
// request that leaves the page's own origin, and look inside canvases.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
mkdirSync(ARTIFACTS, { recursive: true });

/**
 * What a page must never do, recorded as it happens: page errors, console errors (and warnings,
 * but the canvas readback hint the tests' own pixel reads cause), and requests to any URL that
 * does not start with one of `allowed`.
 */
export function watchPage(page, allowed, { warnings = false } = {}) {
  const problems = [];
  const kinds = warnings ? ['error', 'warning'] : ['error'];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (!kinds.includes(message.type()) || /willReadFrequently/.test(message.text())) return;
    problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('request', (request) => {
    if (!allowed.some((prefix) => request.url().startsWith(prefix))) problems.push(`outside request: ${request.url()}`);
  });
  return problems;
}

/** Opens url; `problems` collects console errors, page errors and outside requests. */
export async function openExplorer(browser, url, viewport = { width: 1920, height: 1080 }) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const origin = url.startsWith('file:') ? 'file://' : new URL(url).origin;
  const problems = watchPage(page, [origin, 'data:', 'blob:']);
  await page.goto(url);
  await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 20_000 });
  return { page, context, problems };
}

/** For each shown canvas inside a panel: how many distinct colours it has (1 means blank). */
export function canvasColourCounts(page, panel) {
  return page.locator('headwise-explorer').evaluate((host, id) => {
    const section = host.shadowRoot.querySelector(`[data-panel="${id}"]`);
    return [...section.querySelectorAll('canvas:not([hidden])')].map((canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const colours = new Set();
      for (let i = 0; i < data.length && colours.size < 64; i += 4 * 7)
        colours.add((data[i] << 24) | (data[i + 1] << 16) | (data[i + 2] << 8) | data[i + 3]);
      return colours.size;
    });
  }, panel);
}

export const panelText = (page, panel) => page.locator(`[data-panel="${panel}"]`).innerText();
