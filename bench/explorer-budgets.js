// Prints the explorer's budgets (figures, not assertions): the page's bytes gzipped, the time
// from navigation to the first heatmap on screen, and the time to recompute and redraw after a
// change of heads or sentence. Needs the built bundle: bash scripts/build-explorer.sh.
// Run: node bench/explorer-budgets.js
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../tests/browser/chromium.js';
import { serveWeb, WEB_DIR } from '../tests/browser/static-server.js';

const median = (v) => { const s = [...v].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

// 1. Size: everything index.html requests (the bundle carries the wasm).
const files = ['index.html', 'build/explorer/explorer.js'];
let raw = 0; let gz = 0;
for (const f of files) { const b = readFileSync(WEB_DIR + f); raw += b.length; gz += gzipSync(b, { level: 9 }).length; }
console.log(`page size: ${files.join(' + ')} = ${kb(raw)} raw, ${kb(gz)} gzipped (budget 200 KB gzipped)`);

const browser = await launchChromium();
const server = await serveWeb();
try {
  // 2. First heatmap: performance mark set when the first figure is drawn, relative to navigation.
  const firsts = [];
  for (let i = 0; i < 7; i += 1) {
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    const page = await context.newPage();
    await page.goto(`${server.url}index.html`);
    await page.waitForSelector('headwise-explorer[data-first-heatmap]');
    firsts.push(await page.evaluate(() => performance.getEntriesByName('headwise-first-heatmap')[0].startTime));
    await context.close();
  }
  console.log(`first heatmap on screen after navigation: median ${median(firsts).toFixed(0)} ms of ${firsts.length} fresh loads (min ${Math.min(...firsts).toFixed(0)}, max ${Math.max(...firsts).toFixed(0)}; budget 500 ms)`);

  // 3. Recompute and redraw, synchronously, after a change (T = 32 tokens, width 256).
  const sentence = Array.from({ length: 32 }, (_, i) => `w${i % 20}`).join(' ');
  for (const panel of ['heads', '']) {
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    const page = await context.newPage();
    await page.goto(`${server.url}index.html?width=256&heads=8&panel=${panel}&sentence=${encodeURIComponent(sentence)}`);
    await page.waitForSelector('headwise-explorer[data-ready]');
    const result = await page.evaluate(async (words) => {
      const el = document.querySelector('headwise-explorer');
      const time = (change) => { const t0 = performance.now(); el.setOptions(change, { immediate: true }); return performance.now() - t0; };
      const heads = []; const sentences = [];
      for (let i = 0; i < 30; i += 1) {
        heads.push(time({ heads: i % 2 ? 8 : 16 }));
        sentences.push(time({ sentence: `${words} ${i % 2 ? 'x' : 'y'}`.split(' ').slice(1).join(' ') }));
        await new Promise((r) => requestAnimationFrame(r));
      }
      const med = (v) => { const s = [...v].slice(5).sort((a, b) => a - b); return s[s.length >> 1]; };
      return { heads: med(heads), sentence: med(sentences), tokens: el.shadowRoot.querySelectorAll('.tokens li').length || 32 };
    }, sentence);
    console.log(`recompute + redraw (${panel ? `panel=${panel}` : 'all six panels'}, T = 32, width 256, 8 <-> 16 heads): heads change median ${result.heads.toFixed(1)} ms, sentence change median ${result.sentence.toFixed(1)} ms (budget 16 ms)`);
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`measured in headless Chromium on this machine just now (${new Date().toISOString()}); command: node bench/explorer-budgets.js`);
