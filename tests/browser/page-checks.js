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

/**
 * A slide in a deck: `src` (an embed URL on the server at `serverUrl`) in an iframe of `size` on a
 * deck page that a route serves at deck.html (`background`: the deck's own colour, if any). Returns
 * the embed's frame once it is there (what it has drawn is the caller's to wait for).
 */
export async function openInDeck(page, serverUrl, src, [w, h], { background } = {}) {
  const style = `margin:0${background ? `;background:${background}` : ''}`;
  const body =
    `<!doctype html><link rel="icon" href="data:,"><body style="${style}">` +
    `<iframe id="slide" src="${src}" style="border:0;width:${w}px;height:${h}px"></iframe></body>`;
  await page.route(`${serverUrl}deck.html`, (route) => route.fulfill({ contentType: 'text/html', body }));
  await page.goto(`${serverUrl}deck.html`);
  return page.frame({ url: /embed\.html/ });
}

/**
 * A new browser context showing embed `src`: in a deck's iframe of `size` (openInDeck), or with
 * `phone` alone on a phone's screen of `size`; once the element is ready. Returns { context, page,
 * frame (the embed's), errors (page errors, as they happen) }.
 */
export async function openSlide(browser, serverUrl, src, size, { colorScheme = 'light', phone = false } = {}) {
  const context = await browser.newContext({
    viewport: { width: size[0], height: size[1] },
    colorScheme,
    ...(phone ? { deviceScaleFactor: 2, isMobile: true, hasTouch: true } : {}),
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let frame = page.mainFrame();
  if (phone) await page.goto(`${serverUrl}${src}`);
  else frame = await openInDeck(page, serverUrl, src, size);
  await frame.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
  return { context, page, frame, errors };
}

/** Two animation frames (a page function, for evaluate): a change or an input the page got is drawn. */
export const twoFrames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

/**
 * The pointer to (x, y), and two frames: Chromium hands pointer moves to the page with its next
 * frame, which on a loaded machine comes after mouse.move returns (a tip read at once was the last one).
 */
export async function pointerTo(page, x, y) {
  await page.mouse.move(x, y);
  await page.evaluate(twoFrames);
}

/**
 * A canvas's pixels (a locator or element handle of one): width, height, its RGBA bytes and
 * pixel(x, y) as 0xrrggbb. Read in the page and sent as base64: the bytes as a JSON array of numbers
 * took 6-7 s a canvas of 532 x 537 to cross to the test.
 */
export async function canvasPixels(canvas) {
  const image = await canvas.evaluate((c) => {
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    let binary = '';
    for (let k = 0; k < data.length; k += 0x8000) binary += String.fromCharCode(...data.subarray(k, k + 0x8000));
    return { width: c.width, height: c.height, base64: btoa(binary) };
  });
  const { width, height } = image;
  const data = new Uint8Array(Buffer.from(image.base64, 'base64'));
  const pixel = (x, y) => {
    const k = 4 * (y * width + x);
    return (data[k] << 16) | (data[k + 1] << 8) | data[k + 2];
  };
  return { width, height, data, pixel };
}

/** Two animation frames and 50 ms in the frame: what a change drew is on screen. */
export const settle = (frame) =>
  frame.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50)))));

/** The story panel drawn: its checkpoint loads after the first render, then its 5 figures appear. */
export const storyDrawn = (frame) =>
  frame.waitForFunction(
    () =>
      document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('#panel-story canvas:not([hidden])')
        .length === 5,
    null,
    { timeout: 60_000 },
  );

/**
 * The heads panel's trained models drawn: they load once the panel nears the view (so it is brought
 * into view first), and its maps, tokens and tables change when they arrive.
 */
export async function headsTrained(page) {
  await page.locator('[data-panel="heads"]').scrollIntoViewIfNeeded();
  await page.waitForFunction(
    () =>
      Boolean(
        document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-heads').dataset.trainedModel,
      ),
    null,
    { timeout: 60_000 },
  );
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}
