// The npm package in a real app: pack, install the tarball offline into a fresh project, bundle a
// tiny app with Vite (the root's vite, the temporary project as its root; any warning fails), serve
// the build as static files under the strict CSP and check it in Chromium: the compute API's numbers, two
// elements sharing one module, lazy start near the viewport and no work while out of view.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from './chromium.js';
import { serveDir, STRICT_CSP } from './static-server.js';
import { ARTIFACTS } from './page-checks.js';
import { packAndInstall, ROOT, TARBALL_LIMIT_BYTES } from '../package/install-tarball.js';

const APP_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>an app using headwise</title>
<script type="module" src="./main.js"></script></head>
<body>
  <pre id="numbers"></pre>
  <headwise-explorer id="near" panel="heads"></headwise-explorer>
  <div style="height: 4000px"></div>
  <headwise-explorer id="far" panel="steps"></headwise-explorer>
</body>
</html>`;

// The lecture's example through the compute API, then the element from its registering entry.
const APP_MAIN = `import { loadHeadwise } from 'headwise';
import { HeadwiseExplorer } from 'headwise/explorer/define';

async function main() {
  const hw = await loadHeadwise();
  const mha = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 1 });
  const x = hw.randomInput(mha.config, 1);
  const y = mha.forward(x);
  const yLoop = mha.forwardLoop(x);
  document.querySelector('#numbers').textContent = JSON.stringify({ y: Array.from(y), yLoop: Array.from(yLoop) });
  mha.dispose();
  window.appReady = customElements.get('headwise-explorer') === HeadwiseExplorer;
}
main().catch((error) => { document.querySelector('#numbers').textContent = 'failed: ' + error.message; });
`;

let installed;
let server;
let browser;
let nodeOutput;

before(async () => {
  installed = packAndInstall('headwise-app-');
  assert.ok(installed.bytes <= TARBALL_LIMIT_BYTES, `tarball ${installed.bytes} bytes`);
  writeFileSync(join(installed.app, 'index.html'), APP_HTML);
  writeFileSync(join(installed.app, 'main.js'), APP_MAIN);
  // At --logLevel warn a clean build prints nothing: any line is a warning (e.g. a Node module
  // "externalized for browser compatibility") and fails the test.
  const build = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', installed.app, '--logLevel', 'warn'],
    { cwd: installed.app, encoding: 'utf8' },
  );
  assert.equal(build.status, 0, `vite build failed: ${build.stderr}`);
  assert.equal(`${build.stdout}${build.stderr}`.trim(), '', 'vite build printed warnings');
  // The same numbers from the same installed package in Node, to compare with the browser's.
  nodeOutput = JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
    import { loadHeadwise } from 'headwise';
    const hw = await loadHeadwise();
    const mha = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 1 });
    console.log(JSON.stringify(Array.from(mha.forward(hw.randomInput(mha.config, 1)))));
  `,
      ],
      { cwd: installed.app, encoding: 'utf8' },
    ),
  );
  server = await serveDir(join(installed.app, 'dist'), { headers: { 'Content-Security-Policy': STRICT_CSP } });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  installed?.remove();
});

test('the bundled app: no eval in its JS, the wasm as a file next to it', () => {
  const assets = join(installed.app, 'dist/assets');
  const files = readdirSync(assets);
  assert.ok(
    files.some((f) => f.endsWith('.wasm')),
    `assets: ${files.join(', ')}`,
  );
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    assert.doesNotMatch(readFileSync(join(assets, file), 'utf8'), /\bnew Function\b|\beval\s*\(/, file);
  }
});

test('in Chromium under the strict CSP: numbers, one shared module, lazy start, pause out of view', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // Count wasm instantiations: every element and the app's own loadHeadwise() must share one.
  await page.addInitScript(() => {
    window.instantiations = 0;
    for (const name of ['instantiate', 'instantiateStreaming']) {
      const original = WebAssembly[name];
      WebAssembly[name] = function counted(...args) {
        window.instantiations += 1;
        return original.apply(this, args);
      };
    }
  });
  try {
    await page.goto(`${server.url}index.html`);
    await page.waitForFunction(() => window.appReady === true, null, { timeout: 20_000 });
    const numbers = JSON.parse(await page.locator('#numbers').innerText());
    assert.equal(numbers.y.length, 72);
    // Browser and Node run the same module on the same seeds: the same numbers.
    const worst = Math.max(
      ...numbers.y.map((v, i) => Math.abs(v - nodeOutput[i]) / (1e-5 + 1e-5 * Math.abs(nodeOutput[i]))),
    );
    assert.ok(worst <= 1, `browser vs Node: worst |a - b| / (atol + rtol |ref|) = ${worst}`);
    assert.ok(Math.max(...numbers.y.map((v, i) => Math.abs(v - numbers.yLoop[i]))) < 1e-5, 'loop = fused');

    // The element near the viewport renders; the one 4000 px below has not started.
    await page.waitForSelector('#near[data-ready]', { timeout: 20_000 });
    const heatmaps = await page
      .locator('#near')
      .evaluate((el) => el.shadowRoot.querySelectorAll('[data-panel="heads"] canvas:not([hidden])').length);
    assert.ok(heatmaps >= 2, `heads panel canvases: ${heatmaps}`);
    assert.equal(
      await page
        .locator('#far')
        .evaluate((el) => ({ ready: el.dataset.ready ?? null, active: el.getState().active }))
        .then(JSON.stringify),
      JSON.stringify({ ready: null, active: false }),
    );

    // Scrolled into view it starts, on the same module instance.
    await page.locator('#far').scrollIntoViewIfNeeded();
    await page.waitForSelector('#far[data-ready]', { timeout: 20_000 });
    assert.equal(
      await page.evaluate(() => window.instantiations),
      1,
      'one module instance for the app and both elements',
    );
    assert.match(await page.locator('#far [data-panel="steps"]').innerText(), /\(2, 2, 6, 3\)/);

    // Out of view: changes and steps are remembered, nothing is computed or drawn until it is back.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForFunction(() => document.querySelector('#far').getState().active === false);
    const hidden = await page.locator('#far').evaluate(async (el) => {
      let renders = 0;
      el.addEventListener('headwise-render', () => {
        renders += 1;
      });
      el.setConfig({ heads: 3 });
      el.nextStep();
      const before = el.shadowRoot.querySelector('.steps li.current strong').textContent;
      await new Promise((resolve) => setTimeout(resolve, 300));
      window.farRenders = () => renders;
      return { renders, before, state: el.getState() };
    });
    assert.equal(hidden.renders, 0, 'no render while out of view');
    assert.equal(hidden.before, 'project', 'not redrawn while out of view');
    assert.equal(hidden.state.heads, 3);
    assert.equal(hidden.state.stepName, 'split');
    await page.locator('#far').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => window.farRenders() >= 1, null, { timeout: 10_000 });
    assert.equal(
      await page.locator('#far').evaluate((el) => el.shadowRoot.querySelector('.steps li.current strong').textContent),
      'split',
    );
    assert.match(await page.locator('#far [data-panel="steps"]').innerText(), /\(2, 3, 6, 2\)/);

    // Validated configuration: refused values change nothing and say why.
    const refused = await page.locator('#far').evaluate((el) => {
      const errors = [];
      for (const bad of [{ width: 7 }, { heads: -1 }, { colour: 'red' }, { preset: 'gpt9' }, { seed: {} }, null]) {
        try {
          el.setConfig(bad);
          errors.push('accepted');
        } catch (error) {
          errors.push(`${error.name}: ${error.message}`);
        }
      }
      // Before it is ever connected, an element already takes steps and configuration.
      const fresh = document.createElement('headwise-explorer');
      const early = [fresh.nextStep().stepName, fresh.setConfig({ preset: 'gpt2' }).heads, fresh.getState().ready];
      return { errors, heads: el.getState().heads, early };
    });
    assert.deepEqual(refused.early, ['split', 12, false]);
    assert.equal(refused.heads, 3);
    assert.match(refused.errors[0], /RangeError: width 7 is not divisible by 3 heads/);
    assert.match(refused.errors[1], /RangeError: heads="-1" was ignored/);
    assert.match(refused.errors[2], /TypeError: unknown option "colour"/);
    assert.match(refused.errors[3], /RangeError: preset="gpt9" is not a preset/);
    assert.match(refused.errors[4], /TypeError: option "seed" must be a string, a number or a boolean/);
    assert.match(refused.errors[5], /TypeError: the configuration must be an object/);
    await page.screenshot({ path: `${ARTIFACTS}package-app-1280x800.png` });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
