// The heads sweep as the page measures it: opens the explorer's loop panel in Debian's Chromium,
// presses "Time the heads sweep" and prints each point (median, min, max in ms) as it arrives.
// Compare with `BENCH_CASES=heads-2,heads-16,heads-128,heads-1000,heads-4000 node bench/main.mjs`
// (the same shapes in Node). Needs the explorer built: `bash scripts/build-explorer.sh`.
import { launchChromium } from '../tests/browser/chromium.js';
import { serveWeb } from '../tests/browser/static-server.js';

const server = await serveWeb();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const t0 = Date.now();
  page.on(
    'console',
    (m) => m.text().startsWith('sweep ') && console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s`, m.text()),
  );
  await page.goto(`${server.url}index.html?panel=loop`);
  await page.locator('headwise-explorer').evaluate((h) => {
    const status = h.shadowRoot.querySelector('.sweep-status');
    new MutationObserver(() => console.log(`sweep ${status.textContent}`)).observe(status, { childList: true });
  });
  await page.locator('.run-sweep').click();
  await page.waitForFunction(
    () => document.querySelector('headwise-explorer').shadowRoot.querySelector('.sweep-status').dataset.done === 'true',
    null,
    { timeout: 300_000 },
  );
  await page.locator('[data-panel="loop"] details summary').click();
  await page.locator('[data-panel="loop"] tbody tr').first().waitFor();
  const header = await page.locator('[data-panel="loop"] thead tr').innerText();
  const rows = await page.locator('[data-panel="loop"] tbody tr').allInnerTexts();
  console.log(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${await browser.version()}`);
  console.log([header, ...rows].join('\n'));
} finally {
  await browser.close();
  await server.close();
}
