// Heavy configurations keep the page responsive (issue 14): width 4096 with 64 heads froze the
// page for 1.6-2.1 s per change. Through the input panel's own controls, in Chromium: every preset
// (toy, GPT-2, GPT-3), a new seed, width 4096 with 64 heads, width 8192 and back to the toy; the
// page's main-thread tasks (a trace: wall and CPU time) are recorded during each change and
// printed, and each change must end with the numbers drawn or a message that says why not and
// names the limit, after which the module still computes. Then ?width=4096&heads=64 opened from
// file://.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { WEB_DIR } from './static-server.js';
import { canvasColourCounts } from './page-checks.js';
import { traceMainThread } from './main-thread-work.js';

// Measured with the page computing in slices (its longest steps are one GPT-2 call: creating the
// layer, the loop forward, 20-45 ms on a quiet run): no long task over 50 ms in any change at a
// load average of 4-8, the longest 162 ms (from a trace) at a load average of 14. Before, width
// 4096 gave tasks of 270-1230 ms. The bound is on each task's CPU time (the page's own work, which
// other processes on a loaded machine do not stretch, unlike its wall time), and gross.
const GROSS_BOUND_MS = 250;
const PAGE_LIMIT = /this page computes layers of up to 4,194,304 \(width 1024\)/;

const web = chromiumAndWeb();

// Before the page's scripts: the renders and every notice the page shows while it works.
function recordRenders() {
  window.__heavy = { renders: 0, notices: [] };
}

// The tasks of 50 ms or more (wall or CPU) as [wall, CPU] ms, and the longest CPU time.
const longOnes = (tasks) =>
  tasks.filter((t) => t.ms >= 50 || t.cpuMs >= 50).map((t) => [Math.round(t.ms), Math.round(t.cpuMs)]);
const longestCpu = (tasks) => Math.round(Math.max(0, ...tasks.map((t) => t.cpuMs)));

// After the element is ready: count its renders and note the loading/notice paragraph's text.
function watchElement() {
  const element = document.querySelector('headwise-explorer');
  element.addEventListener('headwise-render', () => {
    window.__heavy.renders += 1;
  });
  const notice = element.shadowRoot.querySelector('.loading');
  new MutationObserver(() => {
    if (!notice.hidden) window.__heavy.notices.push(notice.textContent);
  }).observe(notice, { attributes: true, childList: true, characterData: true, subtree: true });
}

const renders = (page) => page.evaluate(() => window.__heavy.renders);

// Waits for a render after `count` renders, with every panel drawn, then a moment for late tasks.
async function settled(page, count) {
  await page.waitForFunction(
    (n) => window.__heavy.renders > n && !document.querySelector('headwise-explorer').dataset.drawing,
    count,
    { timeout: 60_000 },
  );
  await page.waitForTimeout(300);
}

async function typeNumber(page, label, value) {
  const input = page.locator('[data-panel="input"] label.field', { hasText: label }).locator('input');
  const count = await renders(page);
  await input.fill(String(value));
  await input.press('Tab'); // the change event: the value is taken as meant
  return count;
}

const CHANGES = [
  {
    name: 'preset gpt2',
    act: async (page) => {
      const count = await renders(page);
      await page.locator('[data-panel="input"] select:not(.export-which)').selectOption('gpt2');
      return count;
    },
    state: { width: 768, heads: 12 },
    shows: 'numbers',
  },
  {
    name: 'gpt2, seed 7',
    act: (page) => typeNumber(page, 'Seed', 7),
    state: { width: 768, seed: 7 },
    shows: 'numbers',
  },
  {
    name: 'preset gpt3',
    act: async (page) => {
      const count = await renders(page);
      await page.locator('[data-panel="input"] select:not(.export-which)').selectOption('gpt3');
      return count;
    },
    state: { width: 12288, heads: 96 },
    shows: /Shapes only: this configuration needs 2\.3 GB, more than the memory budget of 1\.0 GB/,
  },
  {
    name: 'width 4096, 64 heads',
    act: async (page) => {
      await typeNumber(page, 'Width', 4096);
      return typeNumber(page, 'Heads', 64);
    },
    state: { width: 4096, heads: 64 },
    shows: PAGE_LIMIT,
    orNumbers: true, // computing it within the bound would do as well
  },
  {
    name: 'width 8192, 64 heads',
    act: (page) => typeNumber(page, 'Width', 8192),
    state: { width: 8192, heads: 64 },
    shows: /Shapes only: .*(memory budget|this page computes layers of up to)/,
  },
  {
    name: 'preset toy',
    act: async (page) => {
      const count = await renders(page);
      await page.locator('[data-panel="input"] select:not(.export-which)').selectOption('toy');
      return count;
    },
    state: { width: 6, heads: 2 },
    shows: 'numbers',
  },
];

// The heads panel as a reader sees it: its status line, whether its maps are drawn, the loop's check.
async function headsSeen(page) {
  const status = await page.locator('[data-panel="heads"] .status').first().innerText();
  const colours = await canvasColourCounts(page, 'heads');
  const diff = await page.locator('[data-panel="loop"] .loop-diff').getAttribute('data-value');
  return { status, colours, loopDiff: diff === null ? null : Number(diff) };
}

function assertNumbersDrawn(seen, { width, heads }) {
  assert.match(seen.status, new RegExp(`^${heads} heads`), seen.status);
  assert.ok(seen.colours.length >= 3 && seen.colours.every((n) => n >= 4), `blank heads maps: ${seen.colours}`);
  assert.ok(seen.loopDiff !== null && seen.loopDiff < 1e-4, `loop and fused at width ${width}: ${seen.loopDiff}`);
}

test('every preset, width 4096 with 64 heads and width 8192: no long freeze; numbers or a clear limit', async () => {
  const context = await web.browser.newContext({ viewport: { width: 1920, height: 1080 } });
  await context.addInitScript(recordRenders);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    await page.goto(`${web.server.url}index.html`);
    await page.waitForSelector('headwise-explorer[data-ready]:not([data-drawing])', { timeout: 20_000 });
    await page.evaluate(watchElement);
    const report = [];
    for (const change of CHANGES) {
      const trace = await traceMainThread(page);
      const count = await change.act(page);
      await settled(page, count);
      const { tasks } = await trace.stop();
      const { notices } = await page.evaluate(() => window.__heavy);
      const during = longOnes(tasks);
      const state = await page.locator('headwise-explorer').evaluate((e) => e.getState());
      const seen = await headsSeen(page);
      report.push({ change: change.name, status: state.status, longTasksMs: during, notices: [...new Set(notices)] });
      await page.evaluate(() => {
        window.__heavy.notices = [];
      });
      for (const [key, value] of Object.entries(change.state))
        assert.equal(state[key], value, `${change.name}: ${key}`);
      if (change.shows === 'numbers' || (change.orNumbers && state.status === 'ok')) {
        assert.equal(state.status, 'ok', change.name);
        assertNumbersDrawn(seen, state);
      } else {
        assert.equal(state.status, 'shapes-only', change.name);
        assert.match(seen.status, change.shows, change.name);
        assert.deepEqual(seen.colours, [], `${change.name}: no maps are drawn for a layer that was not computed`);
      }
      const longest = longestCpu(tasks);
      const load = loadavg()[0].toFixed(1);
      assert.ok(
        longest < GROSS_BOUND_MS,
        `${change.name}: a task of ${longest} ms of CPU (load ${load}; [wall, CPU] ${JSON.stringify(during)})`,
      );
    }
    console.log(`# heavy configurations (Chromium 1920x1080, load average ${loadavg()[0].toFixed(1)}):`);
    for (const r of report) {
      const longest = r.longTasksMs.length
        ? `long tasks [wall, CPU] ms ${JSON.stringify(r.longTasksMs)}`
        : 'no long task';
      console.log(`#   ${r.change}: ${r.status}, ${longest}; notices ${JSON.stringify(r.notices)}`);
    }
    // GPT-2 is prepared with a visible notice while its layer is created and run.
    assert.ok(report[0].notices.includes('Computing a layer of width 768...'), JSON.stringify(report[0].notices));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('from file://: ?width=4096&heads=64 says why it is not computed, then GPT-2 computes', async () => {
  const url = `${pathToFileURL(WEB_DIR).href}index.html?width=4096&heads=64`;
  const context = await web.browser.newContext({ viewport: { width: 1920, height: 1080 } });
  await context.addInitScript(recordRenders);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    const trace = await traceMainThread(page);
    await page.goto(url);
    await page.waitForSelector('headwise-explorer[data-ready]:not([data-drawing])', { timeout: 20_000 });
    await page.waitForTimeout(300);
    // The first render's tasks: those that end after the module is ready (loading it is not the
    // configuration's work).
    const { tasks: all, marks } = await trace.stop();
    const ready = marks['headwise-module-ready'];
    assert.ok(ready !== undefined, `no headwise-module-ready mark in the trace: ${Object.keys(marks)}`);
    const tasks = all.filter((t) => t.start + t.ms > ready);
    const render = longOnes(tasks);
    const loading = longOnes(all.filter((t) => t.start + t.ms <= ready));
    console.log(
      `# file:// ?width=4096&heads=64 (load average ${loadavg()[0].toFixed(1)}): long tasks [wall, CPU] ms while ` +
        `the module loads ${JSON.stringify(loading)}, in the first render ${JSON.stringify(render)}`,
    );
    const first = await headsSeen(page);
    assert.match(first.status, PAGE_LIMIT);
    assert.match(
      await page.locator('[data-panel="input"] .status').first().innerText(),
      /^Shapes only: width 4096 has 67,108,864 weights/,
    );
    assert.ok(
      longestCpu(tasks) < GROSS_BOUND_MS,
      `first render at width 4096: tasks [wall, CPU] ${JSON.stringify(render)} ms (load ${loadavg()[0].toFixed(1)})`,
    );
    await page.locator('[data-panel="input"] select:not(.export-which)').selectOption('gpt2');
    await page.waitForFunction(() => document.querySelector('headwise-explorer').getState().status === 'ok');
    await page.waitForSelector('headwise-explorer:not([data-drawing])');
    assertNumbersDrawn(await headsSeen(page), { width: 768, heads: 12 });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
