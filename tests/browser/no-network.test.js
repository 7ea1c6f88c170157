// Nothing at run time comes from the internet: the explorer, embed.html and both decks, from the
// built site, with every request outside the site's own origin blocked (and recorded). Each page
// still draws, and none was attempted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './chromium.js';
import { serveDir } from './static-server.js';
import { SITE_DIR, SITE_PAGES, siteBuilt, waitForDrawn } from './site-pages.js';

let browser;
let server;

before(async () => {
  assert.ok(siteBuilt(), 'build the site first: bash scripts/build-site.sh');
  browser = await launchChromium();
  server = await serveDir(SITE_DIR);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

for (const { name, path } of SITE_PAGES) {
  test(`the ${name} makes no request outside its own origin`, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const outside = [];
    const origin = new URL(server.url).origin;
    // Every request of the page and its frames (and their workers) passes through here.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      outside.push(url);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    page.on('request', (r) => {
      if (!/^(data|blob|about):/.test(r.url()) && new URL(r.url()).origin !== origin) outside.push(r.url());
    });
    try {
      await page.goto(`${server.url}${path}`);
      await waitForDrawn(page);
      await page.waitForTimeout(1000); // late requests (fonts, icons, analytics) would come now
      assert.deepEqual([...new Set(outside)], []);
    } finally {
      await context.close();
    }
  });
}
