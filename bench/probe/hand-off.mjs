// bench/probe/hand-off-ops.mjs in Chromium (a page not cross-origin isolated).
// Usage: node bench/probe/hand-off.mjs   (`node bench/probe/hand-off-ops.mjs` runs it in Node)
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../tests/browser/chromium.js';
import { serveDir } from '../../tests/browser/static-server.js';
import { handOffLengths } from './hand-off-ops.mjs';

const LENGTHS = handOffLengths(process.env.HANDOFF_LENGTHS);
const root = fileURLToPath(new URL('../..', import.meta.url));
const server = await serveDir(root);
const browser = await launchChromium();
console.log(
  `Chromium ${browser.version()}, ${cpus()[0].model}; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}bench/probe/hand-off.html`);
  await page.waitForFunction(() => typeof window.handOffOps === 'function');
  for (const n of LENGTHS) {
    const ops = await page.evaluate((length) => window.handOffOps(length), n);
    for (const [k, v] of Object.entries(ops)) console.log(`${n} floats: ${k}: ${v.toFixed(2)} ms`);
  }
} finally {
  await browser.close();
  await server.close();
}
