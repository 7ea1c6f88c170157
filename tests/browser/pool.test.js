// The pool in Chromium on pages that are NOT cross-origin isolated (no SharedArrayBuffer): over
// http (module workers from the same origin), under the strict CSP (Blob workers refused, module
// workers allowed), and opened from file:// (Blob-URL workers with the module inside). Each time:
// the split forward equals one instance, dispose ends every worker, and over http a worker that
// stops answering is replaced.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';
import { launchChromium } from './chromium.js';
import { serveDir, STRICT_CSP } from './static-server.js';
import { until } from '../js/until.js';
import { dropCheckpointUrls, dropDefaultWasmUrl, inlineWasm, noNodeFs } from '../../scripts/explorer-bundle.config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGE = 'tests/browser/pool-page.html';
let browser;
let plain;
let strict;
let fileDir;

before(async () => {
  browser = await launchChromium();
  plain = await serveDir(ROOT);
  strict = await serveDir(ROOT, { headers: { 'Content-Security-Policy': STRICT_CSP } });
  // The page for file://: pool-page.js and the module in one classic script.
  fileDir = mkdtempSync(`${tmpdir()}/headwise-pool-file-`);
  await build({
    root: ROOT,
    logLevel: 'warn',
    configFile: false,
    plugins: [inlineWasm, dropDefaultWasmUrl, dropCheckpointUrls, noNodeFs],
    build: {
      outDir: fileDir,
      emptyOutDir: false,
      minify: false,
      lib: {
        entry: `${ROOT}tests/browser/pool-page-file.js`,
        name: 'PoolPage',
        formats: ['iife'],
        fileName: () => 'page.js',
      },
    },
  });
  const html = readFileSync(`${ROOT}${PAGE}`, 'utf8').replace(
    '<script type="module" src="./pool-page.js"></script>',
    '<script src="./page.js"></script>',
  );
  writeFileSync(`${fileDir}/index.html`, html);
});

after(async () => {
  await browser?.close();
  await plain?.close();
  await strict?.close();
  if (fileDir) rmSync(fileDir, { recursive: true, force: true });
});

async function openPage(url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => typeof window.poolCheck === 'function');
  return { page, errors };
}

function assertEqualToOne(seen, label) {
  console.log(`${label}: ${JSON.stringify({ ...seen, results: undefined })}`);
  for (const r of seen.results) {
    console.log(`  ${JSON.stringify(r.config)}: max |diff| ${r.worst}`);
    assert.equal(r.length, true);
    assert.equal(r.outside, 0, `${label} ${JSON.stringify(r.config)}: max |diff| ${r.worst}`);
  }
  assert.equal(seen.crossOriginIsolated, false);
  assert.equal(seen.sharedArrayBuffer, 'undefined');
}

async function assertDisposeEndsWorkers(page) {
  assert.equal(page.workers().length, 2);
  await page.evaluate(() => window.poolDispose());
  // By the clock: a loaded machine reports a worker's end late.
  await until(() => page.workers().length === 0, { every: 50 });
  assert.equal(page.workers().length, 0);
}

test('over http, not cross-origin isolated: 2 module workers, results equal to one instance', async () => {
  const { page, errors } = await openPage(`${plain.url}${PAGE}`);
  const seen = await page.evaluate(() => window.poolCheck({ size: 2 }));
  assertEqualToOne(seen, 'http');
  assert.deepEqual([seen.size, seen.fallbackReason], [2, null]);
  // Each worker holds a part of every layer the page made (one per config, none disposed yet).
  const parts = seen.results.length;
  assert.deepEqual(seen.workers, [`worker 0.0: ${parts}`, `worker 1.0: ${parts}`]);
  await assertDisposeEndsWorkers(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test("under script-src 'self' 'wasm-unsafe-eval': Blob workers refused, the pool's module workers run", async () => {
  const { page, errors } = await openPage(`${strict.url}${PAGE}`);
  assert.equal(await page.evaluate(() => window.blobWorkerStarts()), false);
  const seen = await page.evaluate(() => window.poolCheck({ size: 2 }));
  assertEqualToOne(seen, 'strict CSP');
  assert.deepEqual([seen.size, seen.fallbackReason], [2, null]);
  await assertDisposeEndsWorkers(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('opened from file://: Blob-URL workers with the module inside, results equal to one instance', async () => {
  const { page, errors } = await openPage(pathToFileURL(`${fileDir}/index.html`).href);
  const seen = await page.evaluate(() => window.poolCheck({ size: 2 }));
  assertEqualToOne(seen, 'file://');
  assert.deepEqual([seen.size, seen.fallbackReason], [2, null]);
  assert.ok(page.workers().every((w) => w.url().startsWith('blob:')));
  await assertDisposeEndsWorkers(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a worker that stops at its first forward (self.close(): no event) is replaced after its deadline', async () => {
  const { page } = await openPage(`${plain.url}${PAGE}`);
  const workerUrl = `${plain.url}tests/js/pool-workers/exits-once.js`;
  // The deadline also bounds each worker's init (loading and compiling the module): 2 s ran out on a
  // loaded machine before any forward was asked.
  const seen = await page.evaluate((url) => window.poolCheck({ size: 2, workerUrl: url, timeoutMs: 6000 }), workerUrl);
  assertEqualToOne(seen, 'exits-once');
  assert.deepEqual([seen.size, seen.fallbackReason, seen.replacements], [2, null, 2]);
  // Each worker holds a part of every layer the page made (one per config, none disposed yet).
  const parts = seen.results.length;
  assert.deepEqual(seen.workers, [`worker 0.1: ${parts}`, `worker 1.1: ${parts}`]);
  await page.evaluate(() => window.poolDispose());
  await page.close();
});

test('workers that cannot load: one instance, with the reason', async () => {
  const { page } = await openPage(`${plain.url}${PAGE}`);
  const seen = await page.evaluate(
    (url) => window.poolCheck({ size: 2, workerUrl: url, timeoutMs: 3000 }),
    `${plain.url}no-such-worker.js`,
  );
  assertEqualToOne(seen, 'no worker file');
  assert.equal(seen.size, 1);
  assert.match(seen.fallbackReason, /no worker could start \(module workers: worker 0\.0 (could not be loaded|threw)/);
  await page.close();
});

test('data-parallel training over http: repeatable, one worker is Trainer.step(), two within 1e-4 of it', async () => {
  const { page, errors } = await openPage(`${plain.url}${PAGE}`);
  const seen = await page.evaluate(() => window.poolTrainCheck({ size: 2 }));
  console.log(`train: ${JSON.stringify(seen)}`);
  assert.deepEqual([seen.size, seen.fallbackReason, seen.instances], [2, null, 2]);
  assert.equal(seen.repeatable, true);
  assert.equal(seen.oneWorkerIsStep, true);
  assert.ok(seen.maxDiffFromOne > 0 && seen.maxDiffFromOne < 1e-4, String(seen.maxDiffFromOne));
  assert.deepEqual(seen.liveTrainers, [0, 0]);
  await assertDisposeEndsWorkers(page);
  assert.deepEqual(errors, []);
  // A worker that stops in a training step (self.close(): no event) is replaced after its
  // deadline, the step asked again: the same weights as with healthy workers.
  const failing = await openPage(`${plain.url}${PAGE}`);
  const workerUrl = `${plain.url}tests/js/pool-workers/exits-in-step.js`;
  const replaced = await failing.page.evaluate(
    (url) => window.poolTrainCheck({ size: 2, workerUrl: url, timeoutMs: 2000 }),
    workerUrl,
  );
  console.log(`train, a worker stops: ${JSON.stringify(replaced)}`);
  assert.deepEqual([replaced.size, replaced.fallbackReason], [2, null]);
  assert.ok(replaced.replacements >= 1);
  assert.deepEqual(replaced.weights, seen.weights);
  await assertDisposeEndsWorkers(failing.page);
  await failing.page.close();
  await page.close();
});
