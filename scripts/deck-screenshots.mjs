// Screenshots of every slide of both example decks at 1280x720 and 1920x1080, light and dark, for a person to
// look at (the deck tests check what is drawn; this is the rehearsal view). Needs the wasm module,
// the explorer bundle and the site built (npm test builds them, or scripts/build-*.sh).
// Usage: node scripts/deck-screenshots.mjs  ->  test-artifacts/decks/{reveal,slidev}-{1280,1920}-{light,dark}-N.png
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/browser/chromium.js';
import { serveDir, STRICT_CSP } from '../tests/browser/static-server.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = `${ROOT}test-artifacts/decks/`;
const DECKS = [
  { name: 'reveal', root: ROOT, path: 'examples/reveal/index.html', slides: [0, 1, 2, 3, 4, 5, 6] },
  { name: 'slidev', root: `${ROOT}build/site/`, path: 'examples/slidev/', slides: [1, 2, 3, 4, 5] },
];
const SHOTS = [1280, 1920].flatMap((w) => ['light', 'dark'].map((c) => [w, (w * 9) / 16, c]));
const SETTLE_MS = 3000; // long enough for every panel on a slide to draw (the deck tests wait on it exactly)

await mkdir(OUT, { recursive: true });
const browser = await launchChromium();
try {
  for (const deck of DECKS) {
    const server = await serveDir(deck.root, { headers: { 'Content-Security-Policy': STRICT_CSP } });
    try {
      for (const [width, height, colorScheme] of SHOTS) {
        const context = await browser.newContext({ viewport: { width, height }, colorScheme });
        const page = await context.newPage();
        for (const n of deck.slides) {
          await page.goto(`${server.url}${deck.path}#/${n}`);
          await page.waitForTimeout(SETTLE_MS);
          const file = `${OUT}${deck.name}-${width}-${colorScheme}-${n}.png`;
          await page.screenshot({ path: file });
          console.log(file);
        }
        await context.close();
      }
    } finally {
      await server.close();
    }
  }
} finally {
  await browser.close();
}
