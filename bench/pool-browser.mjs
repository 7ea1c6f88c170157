// The pool benchmark in Debian's Chromium (run by bench/pool.mjs; alone: `node bench/pool-browser.mjs`):
// the cases of bench/pool-sides.mjs on a page that is NOT cross-origin isolated (no
// SharedArrayBuffer: onnxruntime-web cannot start its threads there), then on a cross-origin
// isolated one (COOP/COEP) for reference, where it can. POOL_CASES and POOL_SIZE as bench/pool.mjs.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/browser/chromium.js';
import { serveDir } from '../tests/browser/static-server.js';
import { caseTables, crossoverTable } from './pool-sides.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const cases = process.env.POOL_CASES?.split(',');
const size = process.env.POOL_SIZE ? Number(process.env.POOL_SIZE) : undefined;
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const out = `${here}build/pool-chromium.md`;
mkdirSync(`${here}build`, { recursive: true });
writeFileSync(out, '');
const say = (s = '') => {
  console.log(s);
  appendFileSync(out, `${s}\n`);
};
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const browser = await launchChromium();
try {
  for (const [label, headers, withCrossover] of [
    ['not cross-origin isolated', {}, true],
    ['cross-origin isolated (COOP/COEP), for reference', ISOLATED, false],
  ]) {
    const server = await serveDir(root, { headers });
    const page = await browser.newPage();
    const warnings = [];
    page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    await page.goto(`${server.url}bench/pool-page.html`);
    await page.waitForFunction(() => typeof window.benchPool === 'function');
    say();
    say(`## Chromium ${browser.version()}, page ${label}; load average at start ${load()}`);
    const threads = size ?? 2;
    const r = await page.evaluate((args) => window.benchPool(args), {
      cases,
      size,
      withCrossover,
      ortThreads: threads,
    });
    say(`page: ${JSON.stringify(r.info)}`);
    for (const w of new Set(warnings)) say(`console warning: ${w.slice(0, 200)}`);
    for (const l of caseTables(r.results)) say(l);
    if (withCrossover) {
      say();
      say('### crossover in Chromium: pool against single');
      for (const l of crossoverTable(r.cross)) say(l);
    }
    say(`load average at end ${load()}`);
    await page.close();
    await server.close();
  }
} finally {
  await browser.close();
}
console.log('(saved to bench/build/pool-chromium.md)');
