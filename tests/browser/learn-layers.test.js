// The Learn panel's "1 layer vs 2 layers" (learn-experiment=layers) in Chromium, checked against the
// shipped checkpoints as this test reads them (web/checkpoints/*.json; their numbers may change when
// they are regenerated): the loss curves end where the checkpoints' held-out losses put them on the
// figure's own axes (read from its tick labels), the phase change is marked at the first point below
// half-way, each map's label is the checkpoint's role for that head, the maps are 64 x 64 and drawn
// square, and an induction (duplicate-token) head's map is brightest on the token after (at) the
// earlier occurrence from the repeat (random weights would fail all of these: tests/js/induction-
// charts.test.js). At 1280x720 in an iframe and on a 390 px phone, light and dark: nothing overlaps,
// nothing leaves the frame, figure text >= 11 px. From file:// the classic bundle loads the
// checkpoint scripts; "Train live" trains in workers (file://: a Blob-URL worker; a module page: a
// module worker) without long tasks; under the strict CSP, in workers from a same-origin file
// (tests/browser/strict-csp-worker.test.js).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { chromiumAndWeb } from './web-session.js';
import { WEB_DIR } from './static-server.js';
import { openInDeck } from './page-checks.js';
import { longTasks, traceMainThread } from './main-thread-work.js';
import { until } from '../js/until.js';
import { loadavg } from 'node:os';
import { inductionSequence, repeatQueries } from '../../web/explorer/panels/learn/induction-data.js';
import { loadHeadwise } from '../../web/headwise.js';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);
const web = chromiumAndWeb();
const read = async (name) =>
  JSON.parse(await readFile(new URL(`../../web/checkpoints/${name}.json`, import.meta.url), 'utf8'));
let one;
let two;
let shown; // the sequence the maps are drawn on: the 2-layer checkpoint's first held-out one

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  [one, two] = await Promise.all([read('induction-1-layer'), read('induction-2-layers')]);
  const trainer = await (await loadHeadwise()).loadCheckpoint(two);
  shown = inductionSequence(trainer.heldOutSequence(0), trainer.task.groups);
  trainer.dispose();
});

// In the page (or frame): what the Learn panel drew, item by item, with each canvas's box and scale.
const LOOK = async () => {
  const { textProblems } = await import(new URL('explorer/text-boxes.js', location.href).href).catch(() => ({
    textProblems: null,
  }));
  const host = document.querySelector('headwise-explorer');
  const s = host.shadowRoot.querySelector('#panel-learn');
  const canvases = [...s.querySelectorAll('.figures canvas:not([hidden])')];
  const text = (q) => [...s.querySelectorAll(q)].map((e) => e.getBoundingClientRect().toJSON());
  return {
    state: s.dataset.learnState,
    phaseStep: s.dataset.phaseStep,
    status: s.querySelector('.status').textContent,
    account: s.querySelector('.induction-account').textContent,
    textBoxes: [
      ...text('h2'),
      ...text('.intro'),
      ...text('.status'),
      ...text('.induction .controls'),
      ...text('.induction-account p'),
    ],
    figures: canvases.map((c) => {
      const f = c.headwiseFigure;
      const box = c.getBoundingClientRect().toJSON();
      return {
        title: f.title,
        width: f.width,
        height: f.height,
        box,
        scale: box.width / f.width,
        problems: textProblems ? textProblems(f) : null,
        items: f.items.map((it) => (it.kind === 'grid' ? { ...it, colours: it.colours } : it)),
      };
    }),
    scroll: { w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight },
    view: { w: innerWidth, h: innerHeight },
  };
};

const waitState = (target, states, timeout = 60_000) =>
  target.waitForFunction(
    (want) =>
      want.includes(
        document.querySelector('headwise-explorer')?.shadowRoot.querySelector('#panel-learn')?.dataset.learnState,
      ),
    states,
    { timeout },
  );

// The figure's own axes, from its tick labels: loss value -> y ("0" and "ln 64"), step -> x ("0" and the last step).
function lossAxes(figure, maxSteps) {
  const texts = figure.items.filter((it) => it.kind === 'text');
  const zeroY = texts.find((t) => t.text === '0' && t.anchor === 'end').y;
  const chanceY = texts.find((t) => t.text === 'ln 64').y;
  const zeroX = texts.find((t) => t.text === '0' && t.anchor === 'middle').x;
  const lastX = texts.find((t) => t.text === String(maxSteps) && t.anchor === 'middle').x;
  return {
    x: (step) => zeroX + ((lastX - zeroX) * step) / maxSteps,
    y: (v) => zeroY + ((chanceY - zeroY) * v) / Math.log(64),
  };
}

// The first curve point whose repeat loss is below half-way from the first point's to the last's.
function expectedPhase(curve) {
  const losses = curve.map((p) => p.heldOut.groups.repeat.loss);
  const halfway = (losses[0] + losses.at(-1)) / 2;
  return curve[losses.findIndex((v) => v < halfway)].step;
}

const luminance = (hex) => {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

// From each repeat query, whether the brightest cell of the drawn map is the probe's target.
function hitRate(grid, sequence, probe) {
  const queries = repeatQueries(sequence);
  let hits = 0;
  for (const q of queries) {
    const row = grid.colours.slice(q.query * grid.cols, (q.query + 1) * grid.cols);
    let best = 0;
    row.forEach((c, j) => {
      if (c.startsWith('#') && luminance(c) > luminance(row[best].startsWith('#') ? row[best] : '#000000')) best = j;
    });
    hits += best === q[probe];
  }
  return hits / queries.length;
}

// Everything the figures must show of the checkpoints, and how they sit in the frame. On a 16:9 slide
// the loss chart draws both models, the heads are the 2-layer model's, its two layers side by side
// with maps of at least 120 px (the 1-layer heads, all mixed, wait behind Details with their
// table); elsewhere each model's heads with their score charts.
function checkDrawn(seen, { slide }) {
  const maxSteps = two.steps;
  const [loss, ...rows] = seen.figures;
  const headRows = slide ? 2 : 3;
  assert.equal(seen.figures.length, 1 + headRows, seen.figures.map((f) => f.title).join(' | '));
  if (slide)
    assert.deepEqual(
      rows.map((r) => r.title.split(':')[0]),
      ['2 layers, layer 1', '2 layers, layer 2'],
    );
  // Curves: each model's first copy and repeat, from the first curve point to the last.
  const { x, y } = lossAxes(loss, maxSteps);
  for (const [file, name] of [
    [one, '1 layer'],
    [two, '2 layers'],
  ]) {
    for (const group of ['first copy', 'repeat']) {
      const line = loss.items.find(
        (it) => it.meta?.series === 'loss' && it.meta.model === name && it.meta.group === group,
      );
      assert.ok(line, `${name} ${group} is drawn`);
      assert.equal(line.points.length, file.curve.length);
      for (const [point, p] of [
        [line.points[0], file.curve[0]],
        [line.points.at(-1), file.curve.at(-1)],
      ]) {
        assert.ok(
          Math.abs(point[0] - x(p.step)) < 0.5,
          `${name} ${group} x at step ${p.step}: ${point[0]} vs ${x(p.step)}`,
        );
        const want = y(p.heldOut.groups[group].loss);
        assert.ok(Math.abs(point[1] - want) < 0.5, `${name} ${group} at step ${p.step}: y ${point[1]} vs ${want}`);
      }
    }
  }
  // Chance, and the phase change at the step the rule gives for the 2-layer curve.
  const chance = loss.items.find((it) => it.meta?.marker === 'chance');
  assert.ok(Math.abs(chance.y1 - y(Math.log(64))) < 0.5);
  const phase = expectedPhase(two.curve);
  assert.equal(seen.phaseStep, String(phase));
  const markers = seen.figures.flatMap((f) => f.items.filter((it) => it.meta?.marker === 'phase'));
  // On a slide the layers' maps are drawn without their score charts (the loss chart marks the change).
  assert.equal(markers.length, slide ? 1 : 3, 'on the loss chart (and both 2-layer score charts off a slide)');
  assert.ok(Math.abs(markers[0].x1 - x(phase)) < 0.5, `phase marker at ${markers[0].x1}, step ${phase} at ${x(phase)}`);
  assert.ok(loss.items.some((it) => it.kind === 'text' && it.text === `phase change: step ${phase}`));
  assert.match(seen.account, new RegExp(`phase change, step ${phase}\\b`));
  // Roles: each map's label is the checkpoint's role of that head.
  const models = { '1 layer': one, '2 layers': two };
  const sequence = shown;
  let drawnRoles = 0;
  for (const row of rows) {
    const grids = row.items.filter((it) => it.meta?.map);
    assert.equal(grids.length, 4, row.title);
    for (const grid of grids) {
      const { model, layer, head } = grid.meta;
      const role = row.items
        .filter((it) => it.kind === 'text' && it.meta?.role && it.meta.head === head)
        .map((it) => it.text)
        .join(' ');
      const want = models[model].roles[layer][head].role;
      assert.equal(role, want, `${model} layer ${layer + 1} head ${head + 1}`);
      drawnRoles += 1;
      // The map: 64 x 64 cells, square, at least 48 px on screen.
      assert.deepEqual([grid.rows, grid.cols], [64, 64]);
      assert.equal(grid.cellW, grid.cellH);
      const least = slide ? 120 : 48;
      assert.ok(grid.cellW * 64 * row.scale >= least, `${row.title}: a map of ${grid.cellW * 64 * row.scale} px`);
      // What the role says is what the map shows on the shown sequence.
      if (want === 'induction') assert.ok(hitRate(grid, sequence, 'induction') >= 0.6, `${row.title} h${head + 1}`);
      if (want === 'duplicate token')
        assert.ok(hitRate(grid, sequence, 'duplicate') >= 0.6, `${row.title} h${head + 1}`);
    }
  }
  assert.equal(drawnRoles, 4 * headRows);
  // Side by side on a slide, the two layers' maps start at the same height on screen (a role that
  // wraps in one layer leaves room in the other).
  if (slide) {
    const mapTops = rows.map((r) => r.box.top + r.items.find((it) => it.meta?.map).y * r.scale);
    assert.ok(Math.abs(mapTops[0] - mapTops[1]) < 1, `map tops ${mapTops.join(', ')}`);
  }
  assert.ok(
    two.roles[1].some((h) => h.role === 'induction'),
    'the 2-layer checkpoint has an induction head',
  );
  // Text: >= 11 px on screen, no overlaps, none on a curve or outside its figure.
  const sizes = seen.figures.flatMap((f) => f.items.filter((it) => it.kind === 'text').map((it) => it.size * f.scale));
  assert.ok(Math.min(...sizes) >= 11, `smallest figure text ${Math.min(...sizes).toFixed(1)} px`);
  // (From file:// the page cannot import text-boxes.js: problems is null there.)
  for (const f of seen.figures) if (f.problems !== null) assert.deepEqual(f.problems, [], f.title);
  // In the frame: no scrolling on a slide, figures inside it and apart, the text beside them.
  const overlap = (a, b) =>
    a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const boxes = seen.figures.map((f) => f.box);
  assert.ok(seen.scroll.w <= seen.view.w, JSON.stringify(seen.scroll));
  for (const [i, b] of boxes.entries()) {
    assert.ok(b.left >= 0 && b.right <= seen.view.w, JSON.stringify(b));
    if (slide) assert.ok(b.bottom <= seen.view.h, `figure ${i} ends at ${b.bottom}`);
    assert.ok(
      boxes.every((c, j) => j === i || !overlap(b, c)),
      JSON.stringify(boxes),
    );
    for (const t of seen.textBoxes) assert.ok(!overlap(b, t), `text ${JSON.stringify(t)} under figure ${i}`);
  }
  if (slide) assert.ok(seen.scroll.h <= seen.view.h, JSON.stringify(seen.scroll));
  for (const t of seen.textBoxes)
    assert.ok(t.right <= seen.view.w && (!slide || t.bottom <= seen.view.h), JSON.stringify(t));
}

for (const theme of ['light', 'dark']) {
  test(`embed at 1280x720 (${theme}): the checkpoints' curves, phase change, roles and maps`, async () => {
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    try {
      const src = `embed.html?panel=learn&learn-experiment=layers&theme=${theme}`;
      const frame = await openInDeck(page, web.server.url, src, [1280, 720]);
      await waitState(frame, ['checkpoints']);
      await frame.waitForFunction(() => document.querySelector('headwise-explorer').dataset.ready === 'true');
      await page.screenshot({ path: new URL(`learn-layers-${theme}.png`, ARTIFACTS).pathname });
      const seen = await frame.evaluate(LOOK);
      checkDrawn(seen, { slide: true });
      const state = await frame.evaluate(() => document.querySelector('headwise-explorer').getState());
      assert.equal(state.learnExperiment, 'layers');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test(`embed.html on a 390 px phone (${theme}): readable, inside the width, the page scrolls`, async () => {
    const context = await web.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await context.newPage();
    try {
      await page.goto(`${web.server.url}embed.html?panel=learn&learn-experiment=layers&theme=${theme}`);
      await waitState(page, ['checkpoints']);
      await page.waitForFunction(() => document.querySelector('headwise-explorer').dataset.ready === 'true');
      await page.screenshot({ path: new URL(`learn-layers-phone-${theme}.png`, ARTIFACTS).pathname, fullPage: true });
      checkDrawn(await page.evaluate(LOOK), { slide: false });
    } finally {
      await context.close();
    }
  });
}

// In the page: counts frames while a live run trains, until `steps` steps of both models (a curve
// point each) or `ms` have passed.
const WATCH_LIVE = async ({ steps, ms }) => {
  const host = document.querySelector('headwise-explorer');
  let frames = 0;
  const t0 = performance.now();
  const lengths = [];
  await new Promise((resolve) => {
    const tick = () => {
      frames += 1;
      const st = host.trainingState();
      const line = host.shadowRoot
        .querySelector('#panel-learn canvas')
        ?.headwiseFigure.items.find(
          (it) => it.meta?.series === 'loss' && it.meta.model === '2 layers' && it.meta.group === 'repeat',
        );
      if (line && lengths.at(-1) !== line.points.length) lengths.push(line.points.length);
      // Done when both models passed `steps` and the figure shows the live curve's points so far.
      const drawn = line && st.source === 'live' && line.points.length >= Math.floor(steps / 50);
      if ((st.step >= steps && drawn) || st.state === 'failed' || performance.now() - t0 > ms) resolve();
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const st = host.trainingState();
  return {
    st,
    frames,
    seconds: (performance.now() - t0) / 1000,
    lengths,
    status: host.shadowRoot.querySelector('#panel-learn .status').textContent,
  };
};

// Trains live, tracing the page's main thread: `tasks` are its tasks with their wall and CPU time
// (main-thread-work.js); `long` the long ones as [wall, CPU] ms, printed with the load average.
async function trainLive(page, { steps = 100, ms = 240_000 } = {}) {
  const trace = await traceMainThread(page);
  await page.locator('headwise-explorer #panel-learn button', { hasText: 'Train live' }).click();
  const seen = await page.evaluate(WATCH_LIVE, { steps, ms });
  const { tasks } = await trace.stop();
  const { where, step } = seen.st;
  const long = longTasks(tasks);
  const load = loadavg()[0].toFixed(1);
  console.log(
    `# live ${JSON.stringify({ where, step, seconds: seen.seconds.toFixed(1), frames: seen.frames, load, long })}`,
  );
  return { ...seen, tasks, long, load };
}

const FILE_TITLE =
  'from file://: the classic bundle shows the checkpoints, and "Train live" trains in a Blob-URL worker';
test(FILE_TITLE, async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    await page.goto(`${pathToFileURL(WEB_DIR).href}embed.html?panel=learn&learn-experiment=layers`);
    await waitState(page, ['checkpoints']);
    const seen = await page.evaluate(LOOK);
    const roles = seen.figures.flatMap((f) => f.items.filter((it) => it.meta?.role && it.meta.line === 0));
    assert.equal(roles.length, 8, 'the 2-layer heads on the slide');
    const live = await trainLive(page);
    assert.equal(live.st.where, 'worker', live.status);
    assert.match(live.status, /in 2 workers, off the page/);
    assert.ok(live.st.step >= 100, JSON.stringify(live.st));
    // The 2-layer repeat curve grew point by point while it trained.
    assert.ok(live.lengths.length >= 2 && live.lengths.at(-1) >= 2, JSON.stringify(live.lengths));
    // The page kept its frames: no task near the length of a training step (30-100 ms here) in
    // most frames, none of a blocking size (the worker does the steps). Bounded: each task's CPU
    // time (the page's own work), not its wall time, which other processes stretch on a loaded
    // machine; both are printed.
    const long = JSON.stringify(live.long);
    const message = `load ${live.load}, ${live.frames} frames; [wall, CPU] ms of long tasks ${long}`;
    assert.ok(
      live.tasks.every((t) => t.cpuMs < 300),
      message,
    );
    assert.ok(live.tasks.filter((t) => t.cpuMs >= 50).length <= Math.max(3, 0.05 * live.frames), message);
    // Back to the checkpoints: the workers stop, the checkpoint figures return.
    await page.locator('headwise-explorer #panel-learn button', { hasText: 'Show the checkpoints' }).click();
    await waitState(page, ['checkpoints']);
    checkDrawn(await page.evaluate(LOOK), { slide: true });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// A module page (define.js over http) of one Learn panel in "1 layer vs 2 layers", served as `name`,
// with more attributes on the element.
async function openModulePage(page, name, attributes) {
  const body =
    '<!doctype html><link rel="icon" href="data:,"><body style="margin:0">' +
    `<headwise-explorer panel="learn" learn-experiment="layers" ${attributes} slide></headwise-explorer>` +
    '<script type="module">import "./explorer/define.js";</script>';
  await page.route(`${web.server.url}${name}`, (route) => route.fulfill({ contentType: 'text/html', body }));
  await page.goto(`${web.server.url}${name}`);
}

const MODULE_TITLE =
  'a module page (define.js over http): the checkpoints are fetched, "Train live" uses a module worker';
test(MODULE_TITLE, async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  try {
    await openModulePage(page, 'module-learn.html', '');
    await waitState(page, ['checkpoints']);
    assert.ok(requests.includes('/checkpoints/induction-2-layers.json'), requests.join(' '));
    checkDrawn(await page.evaluate(LOOK), { slide: true });
    const live = await trainLive(page, { steps: 50 });
    assert.equal(live.st.where, 'worker', live.status);
    assert.ok(requests.includes('/pool/worker.js'), 'a module worker from its file');
    await page.evaluate(() => document.querySelector('headwise-explorer').resetTraining());
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('learn-split="data" on a module page: each model trains data-parallel on the shared pool', async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    await openModulePage(page, 'split-learn.html', 'learn-split="data"');
    await waitState(page, ['checkpoints']);
    const live = await trainLive(page, { steps: 50 });
    assert.equal(live.st.where, 'worker', live.status);
    assert.match(live.status, /data-parallel over 2 workers \(the page sums the gradients/);
    assert.ok(live.st.step >= 50, JSON.stringify(live.st));
    // One pool for both models: two workers, not one per model and slice.
    assert.equal(page.workers().length, 2);
    await page.evaluate(() => document.querySelector('headwise-explorer').resetTraining());
    await until(() => page.workers().length === 0, { every: 50 });
    assert.equal(page.workers().length, 0, 'resetting frees the pool');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
