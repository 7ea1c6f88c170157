// The static site (npm run site -> build/site/) served as plain files, as any host (or vercel.json's
// outputDirectory) serves it: its index links every page, each link answers, each page draws.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { launchChromium } from './chromium.js';
import { serveDir, STRICT_CSP } from './static-server.js';
import { ARTIFACTS } from './page-checks.js';
import { SITE_DIR, SITE_PAGES, siteBuilt, waitForDrawn } from './site-pages.js';

let browser;
let server;

before(async () => {
  assert.ok(siteBuilt(), 'build the site first: bash scripts/build-site.sh');
  browser = await launchChromium();
  server = await serveDir(SITE_DIR, { headers: { 'Content-Security-Policy': STRICT_CSP } });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('vercel.json serves the built folder as it is', async () => {
  const vercel = JSON.parse(await readFile(new URL('../../vercel.json', import.meta.url), 'utf8'));
  assert.equal(vercel.outputDirectory, 'build/site');
  assert.equal(vercel.headers, undefined, 'no special headers needed');
});

test('the index links the explorer, embed.html and both decks; every link answers', async () => {
  const page = await browser.newPage();
  try {
    await page.goto(server.url);
    const links = await page.locator('a').evaluateAll((all) => all.map((a) => a.href));
    const expected = ['web/', 'web/embed.html?panel=heads', 'examples/reveal/', 'examples/slidev/'];
    assert.deepEqual(
      links,
      expected.map((path) => `${server.url}${path}`),
    );
    for (const link of links) assert.equal((await fetch(link)).status, 200, link);
  } finally {
    await page.close();
  }
});

for (const { name, path } of SITE_PAGES) {
  test(`the ${name} works from the site (${path})`, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
    page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()}: ${r.url()}`));
    try {
      await page.goto(`${server.url}${path}`);
      assert.ok((await waitForDrawn(page)) > 0);
      await page.screenshot({ path: `${ARTIFACTS}site-${name.replace(/\W+/g, '-')}.png` });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
