// The static site's pages (scripts/build-site.sh, build/site/) and what each shows once it works:
// the explorer's element has drawn, in the page itself or in the first embed on it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SITE_DIR = fileURLToPath(new URL('../../build/site/', import.meta.url));
export const siteBuilt = () => existsSync(`${SITE_DIR}examples/slidev/index.html`);

export const SITE_PAGES = [
  { name: 'explorer', path: 'web/' },
  { name: 'embed', path: 'web/embed.html?panel=heads' },
  { name: 'reveal deck', path: 'examples/reveal/#/1' },
  { name: 'slidev deck', path: 'examples/slidev/#/2' },
];

/** Waits until the page's explorer (or the one in its first iframe) has drawn; returns its canvases. */
export async function waitForDrawn(page) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      const drawn = await frame
        .evaluate(() => {
          const el = document.querySelector('headwise-explorer[data-ready]');
          return el ? el.shadowRoot.querySelectorAll('canvas:not([hidden])').length : 0;
        })
        .catch(() => 0);
      if (drawn > 0) return drawn;
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`nothing drawn on ${page.url()}`);
}
