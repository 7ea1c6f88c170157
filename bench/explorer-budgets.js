// Prints the explorer's budgets (figures, not assertions): the page's bytes gzipped, the time
// from navigation to the first heatmap on screen, and the time to recompute and redraw after a
// change of heads or sentence. Needs the built bundle: bash scripts/build-explorer.sh.
// Run: node bench/explorer-budgets.js. The size budget is also a test (tests/js/explorer-page-budget.test.js),
// which imports PAGE_BUDGET_GZIP_BYTES and pageSize from here (importing runs nothing).
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const WEB_DIR = fileURLToPath(new URL('../web/', import.meta.url));

/**
 * The page's size budget: everything index.html requests before any training, gzipped (level 9).
 * 200 KiB until 2026-12-04, when the page reached 211,334 B: the module grew by the KV cache,
 * grouped-query attention and the cache sizes (issue 37, wasm 264,709 -> 278,478 B raw) and the heads
 * panel gained the story model's section (issue 33, ~4.7 KB gzipped). 210 KiB until the second
 * sitting of 2026-12-04, when the page reached 217,481 B with two new panels, the story panel (issue
 * 33, +1.9 KB) and "Sharing keys and values" (issue 37, +1.5 KB), and per-figure exports (+0.6 KB).
 * 220 KiB until the third sitting, when createAttention({ attention: 'mla' }) put the core's latent
 * attention operator into the module (until then unreferenced and stripped) with its layer and
 * bindings (wasm 277,612 -> 296,726 B raw, 108,591 -> 116,357 B gzipped) and the kv panel gained
 * its latent row (~0.3 KB): the page reached ~227,000 B. 230 KiB until LatentAttention.backward
 * (issue 37) linked the latent operator's backward into the module (until then only the native
 * tests called it; wasm 115,728 -> 118,091 B gzipped): the page reached 237,124 B.
 */
export const PAGE_BUDGET_GZIP_BYTES = 234 * 1024;
/** What index.html requests (the bundle carries the wasm; checkpoints and the worker load later). */
export const PAGE_FILES = ['index.html', 'build/explorer/explorer.js'];

/** The page's bytes, raw and gzipped, as { raw, gzip, files } (per file: name, raw, gzip). */
export function pageSize(dir = WEB_DIR) {
  const files = PAGE_FILES.map((name) => {
    const bytes = readFileSync(dir + name);
    return { name, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const sum = (key) => files.reduce((total, f) => total + f[key], 0);
  return { raw: sum('raw'), gzip: sum('gzip'), files };
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

async function main() {
  const { launchChromium } = await import('../tests/browser/chromium.js');
  const { serveWeb } = await import('../tests/browser/static-server.js');
  // 1. Size: everything index.html requests (the bundle carries the wasm).
  const size = pageSize();
  console.log(
    `page size: ${PAGE_FILES.join(' + ')} = ${kb(size.raw)} raw, ${kb(size.gzip)} gzipped ` +
      `(budget ${kb(PAGE_BUDGET_GZIP_BYTES)} gzipped)`,
  );

  const browser = await launchChromium();
  const server = await serveWeb();
  try {
    // 2. First heatmap: performance mark set when the first figure is drawn, relative to navigation.
    const firsts = [];
    const readies = [];
    for (let i = 0; i < 7; i += 1) {
      const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
      const page = await context.newPage();
      await page.goto(`${server.url}index.html`);
      await page.waitForSelector('headwise-explorer[data-first-heatmap]');
      firsts.push(await page.evaluate(() => performance.getEntriesByName('headwise-first-heatmap')[0].startTime));
      readies.push(await page.evaluate(() => performance.getEntriesByName('headwise-module-ready')[0].startTime));
      await context.close();
    }
    console.log(
      `first heatmap painted after navigation: median ${median(firsts).toFixed(0)} ms of ${firsts.length} fresh ` +
        `loads (min ${Math.min(...firsts).toFixed(0)}, max ${Math.max(...firsts).toFixed(0)}; budget 500 ms); the ` +
        `module was ready at ${median(readies).toFixed(0)} ms`,
    );

    // 3. Recompute and redraw, synchronously, after a change (T = 32 tokens, width 256): heads walk
    // through 2, 4, 8, 16, 8, 4 (every change is a new layer), the sentence alternates one word.
    const sentence = Array.from({ length: 32 }, (_, i) => `w${i % 20}`).join(' ');
    for (const panel of ['heads', 'steps', '']) {
      const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
      const page = await context.newPage();
      await page.goto(
        `${server.url}index.html?width=256&heads=8&panel=${panel}&sentence=${encodeURIComponent(sentence)}`,
      );
      await page.waitForSelector('headwise-explorer[data-ready]');
      const r = await page.evaluate(async (words) => {
        const el = document.querySelector('headwise-explorer');
        let detail = null;
        el.addEventListener('headwise-render', (e) => {
          detail = e.detail;
        });
        // total: the synchronous part, what lands in the frame of the change (the panels on screen);
        // panels off screen follow one per frame, and the render event says when all are drawn.
        const time = async (change) => {
          detail = null;
          const t0 = performance.now();
          el.setOptions(change, { immediate: true });
          const total = performance.now() - t0;
          while (!detail) await new Promise((done) => requestAnimationFrame(done));
          return { total, ...detail };
        };
        const heads = [];
        const sentences = [];
        const cycle = [2, 4, 8, 16, 8, 4];
        for (let i = 0; i < 36; i += 1) {
          heads.push(await time({ heads: cycle[i % cycle.length] }));
          await new Promise((done) => requestAnimationFrame(done));
          sentences.push(await time({ sentence: `${words.split(' ').slice(1).join(' ')} ${i % 2 ? 'x' : 'y'}` }));
          await new Promise((done) => requestAnimationFrame(done));
        }
        const med = (v, k) => {
          const s = v
            .slice(6)
            .map((x) => x[k])
            .sort((a, b) => a - b);
          return s[s.length >> 1];
        };
        return ['total', 'computeMs', 'panelsMs'].map((k) => [med(heads, k), med(sentences, k)]);
      }, sentence);
      const f = (v) => v.toFixed(1);
      console.log(
        `recompute + redraw in the frame of the change ` +
          `(${panel ? `panel=${panel}` : 'all six panels, at the top of the page'}, T = 32, width 256): heads change ` +
          `median ${f(r[0][0])} ms, sentence change median ${f(r[0][1])} ms (budget 16 ms); layer + forward ` +
          `${f(r[1][0])} / ${f(r[1][1])} ms; all panels drawn, counting those off screen that follow one per frame: ` +
          `${f(r[2][0])} / ${f(r[2][1])} ms after the forward pass`,
      );
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.log(
    `measured in headless Chromium on this machine just now (${new Date().toISOString()}); command: node ` +
      `bench/explorer-budgets.js`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
