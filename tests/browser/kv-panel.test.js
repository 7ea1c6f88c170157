// The "Sharing keys and values" panel as a reader meets it, on a 1280x720 slide (embed.html?panel=kv
// in a deck's iframe) and on a phone (390x844), light and dark. What is drawn is checked against what
// this test computes itself through the public API in the page (not through the panel's code): one
// box per K/V head holding exactly the query heads that share it (the slider's count), each map's
// cells the test's own grouped-query attention (K and V mean-pooled per group, the test's loop); the
// printed multi-head equality (0) and decode difference the test's own; the cache bars the test's
// own decode steps; the presets' bars hw.cacheBytes' and as long as their bytes say. The panel ends
// inside its frame with no horizontal scroll. "Time generation": pressed once, the figure's bars
// are the numbers the panel reports, and the page's own work stays in short tasks (the worker times).
// Screenshots: test-artifacts/kv-panel-*.png.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS, openExplorer, openSlide, settle } from './page-checks.js';
import { longTasks, traceMainThread } from './main-thread-work.js';

const web = chromiumAndWeb();
function open(size, colorScheme, { phone = false, kv = null } = {}) {
  const src = `embed.html?panel=kv&theme=${colorScheme}${kv ? `&kv-heads=${kv}` : ''}`;
  return openSlide(web.browser, web.server.url, src, size, { colorScheme, phone });
}

// What the page shows, and what the test computes itself through the API for the same sentence,
// seed and K/V heads.
const LOOK = async () => {
  const { loadHeadwise } = await import('/headwise.js');
  const { tokenize } = await import('/explorer/lecture/tokenizer.js');
  const { embedTokens } = await import('/explorer/lecture/token-embeddings.js');
  const { DEFAULT_SENTENCE } = await import('/explorer/lecture/presets.js');
  const element = document.querySelector('headwise-explorer');
  const section = element.shadowRoot.querySelector('[data-panel="kv"]');
  const state = element.getState();
  const canvases = [...section.querySelectorAll('.figures canvas:not([hidden])')];
  const figures = canvases.map((c) => c.headwiseFigure);
  const groups = figures.filter((f) => f.group);
  const growth = figures.find((f) => f.bars && f.bars[0]?.token !== undefined);
  const presets = figures.find((f) => f.bars && f.bars[0]?.model !== undefined);

  // The test's own computation.
  const hw = await loadHeadwise();
  const H = 8;
  const D = 32;
  const hd = D / H;
  const kv = state.kvHeads;
  const { tokens } = tokenize(DEFAULT_SENTENCE);
  const T = tokens.length;
  const x = embedTokens(hw, tokens, D).map((v) => v * 4);
  const config = { batch: 1, tokens: T, dModel: D, heads: H, causal: true, seed: state.seed };
  const mha = hw.createAttention(config);
  const base = mha.forward(x, { intermediates: true });
  const weights = mha.getWeights();
  // Each query head's K/V columns the mean over its group, repeated: multi-head on them is GQA.
  const repeated = (m, rows) => {
    const out = new Float32Array(m.length);
    const group = H / kv;
    for (let r = 0; r < rows; r += 1)
      for (let h = 0; h < H; h += 1)
        for (let d = 0; d < hd; d += 1) {
          let s = 0;
          for (let j = 0; j < group; j += 1) s += m[r * D + (Math.floor(h / group) * group + j) * hd + d];
          out[r * D + h * hd + d] = s / group;
        }
    return out;
  };
  const pooled = { wk: repeated(weights.wk, D), wv: repeated(weights.wv, D) };
  for (const b of ['bk', 'bv']) if (weights[b]) pooled[b] = repeated(weights[b], 1);
  mha.setWeights(pooled);
  const gqa = mha.forward(x, { intermediates: true });
  mha.dispose();
  // kvHeads = heads through the API, the same weights: the equality the panel prints.
  const same = hw.createAttention({ ...config, kvHeads: H });
  same.setWeights(weights);
  const sameOut = same.forward(x, { intermediates: true }).output;
  same.dispose();
  const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
  // Decoding the grouped layer (its own K/V heads, from the pooled weights) one token at a time.
  const shared = hw.createAttention({ ...config, kvHeads: kv });
  const sharedWeights = { ...weights };
  const pool = (m, rows) => {
    const out = new Float32Array(rows * kv * hd);
    for (let r = 0; r < rows; r += 1)
      for (let g = 0; g < kv; g += 1)
        for (let d = 0; d < hd; d += 1) out[r * kv * hd + g * hd + d] = pooled[m][r * D + g * (H / kv) * hd + d];
    return out;
  };
  sharedWeights.wk = pool('wk', D);
  sharedWeights.wv = pool('wv', D);
  for (const b of ['bk', 'bv']) if (weights[b]) sharedWeights[b] = pool(b, 1);
  shared.setWeights(sharedWeights);
  const forward = shared.forward(x, { intermediates: true }).output;
  const decoded = new Float32Array(T * D);
  const cache = [];
  for (let t = 0; t < T; t += 1) {
    decoded.set(shared.decode(x.subarray(t * D, (t + 1) * D)), t * D);
    const c = shared.cache;
    cache.push((c.length * c.bytes) / c.capacity);
  }
  shared.dispose();
  // Multi-head latent attention beside it: the panel's latent layer, its two forms, its decode steps.
  const latent = hw.createAttention({ ...config, attention: 'mla', kvLatent: 8, ropeDim: 2 });
  const explicit = latent.forward(x);
  const latentCache = [];
  const forms = maxDiff(explicit, latent.forward(x, { form: 'absorbed' }));
  for (let t = 0; t < T; t += 1) {
    latent.decode(x.subarray(t * D, (t + 1) * D));
    const c = latent.cache;
    latentCache.push((c.length * c.bytes) / c.capacity);
  }
  latent.dispose();
  const mapMisfit = groups.flatMap((f) =>
    f.heatmaps.map((m) => {
      const h = m.offset / (T * T);
      let worst = 0;
      for (let i = 0; i < T * T; i += 1) {
        const drawn = m.values[m.offset + i];
        const own = gqa.attention[h * T * T + i];
        if (!(Number.isFinite(own) || Number.isFinite(drawn))) continue;
        worst = Math.max(worst, Math.abs(drawn - own));
      }
      return worst;
    }),
  );
  const rects = (f) => f.items.filter((it) => it.kind === 'rect');
  const scroller = document.scrollingElement;
  return {
    kv,
    T,
    tokens,
    groups: groups.map((f) => ({
      kv: f.group.kv,
      queryHeads: f.group.queryHeads,
      mapHeads: f.heatmaps.map((m) => m.offset / (T * T)),
      frame: rects(f).find((r) => r.stroke)?.stroke,
    })),
    mapMisfit,
    equalText: section.querySelector('.kv-equal').innerText,
    movedText: section.querySelector('.kv-moved').innerText,
    decodeText: section.querySelector('.kv-decode').innerText,
    latentText: section.querySelector('.kv-latent').textContent,
    point: section.querySelector('.point').innerText,
    own: {
      equal: maxDiff(sameOut, base.output),
      moved: maxDiff(gqa.output, base.output),
      decode: maxDiff(decoded, forward),
      cache,
      forms,
      latentCache,
      presets: hw.cachePresets().map((p) => [p.label, hw.cacheBytes(p.name)]),
    },
    growth: growth && { bars: growth.bars },
    presets: presets && { bars: presets.bars },
    bottom: section.getBoundingClientRect().bottom,
    frameHeight: innerHeight,
    scrollWidth: scroller.scrollWidth,
    clientWidth: scroller.clientWidth,
    sectionRight: section.getBoundingClientRect().right,
    canvasRight: Math.max(...canvases.map((c) => c.getBoundingClientRect().right)),
    innerWidth,
  };
};

const printed = (v) =>
  v === 0 ? '0' : Math.abs(v) >= 1e-3 && Math.abs(v) < 1e4 ? v.toPrecision(3) : v.toExponential(2);

function assertLook(look, where) {
  const { kv, groups } = look;
  // One box per K/V head, holding the query heads that share it, 8 maps in all.
  assert.equal(groups.length, kv, `${where}: boxes`);
  groups.forEach((g, i) => {
    const heads = Array.from({ length: 8 / kv }, (_, j) => i * (8 / kv) + j);
    assert.equal(g.kv, i);
    assert.deepEqual(g.queryHeads, heads, `${where}: box ${i + 1}`);
    assert.deepEqual(g.mapHeads, heads, `${where}: box ${i + 1}'s maps`);
    assert.equal(g.frame, `head${i % 8}`, `${where}: box ${i + 1} in its K/V head's colour`);
  });
  assert.equal(groups.flatMap((g) => g.mapHeads).length, 8);
  assert.ok(Math.max(...look.mapMisfit) <= 1e-5, `${where}: maps against the test's own GQA: ${look.mapMisfit}`);
  // The printed numbers are the test's own.
  assert.equal(look.own.equal, 0);
  assert.match(look.equalText, /max \|difference\| of the outputs 0 \(identical, bit for bit\)/);
  if (kv === 8) assert.match(look.movedText, /nothing is shared/);
  else {
    assert.ok(look.own.moved > 0);
    assert.ok(look.movedText.includes(`max |difference| ${printed(look.own.moved)},`), look.movedText);
  }
  assert.ok(look.own.decode <= 1e-5 * 10, `decode: ${look.own.decode}`);
  assert.ok(
    look.decodeText.includes(
      `${look.T} decode steps equal the full causal forward pass: max |difference| ${printed(look.own.decode)}.`,
    ),
    look.decodeText,
  );
  // The cache bars: the test's own decode steps' bytes, growing by the same step each token.
  assert.deepEqual(
    look.growth.bars.map((b) => b.bytes),
    look.own.cache,
  );
  // Latent attention beside it: the two forms' difference printed as the test computed it, and its
  // cache (8 + 2 numbers a token, float32) as narrow bars.
  assert.ok(look.own.forms < 1e-6, `forms: ${look.own.forms}`);
  assert.ok(look.latentText.includes(`differ by max |difference| ${printed(look.own.forms)},`), look.latentText);
  assert.match(look.latentText, /holds 10 numbers per token \(40 B\) against multi-head's 64 \(256 B/);
  assert.deepEqual(
    look.growth.bars.map((b) => b.latentBytes),
    look.own.latentCache,
  );
  assert.equal(look.own.latentCache[0], 40);
  const step = look.own.cache[0];
  assert.equal(step, 2 * kv * 4 * 4); // K and V, kvHeads heads of head_dim 4, float32
  look.growth.bars.forEach((b, t) => assert.ok(Math.abs(b.height - (t + 1) * look.growth.bars[0].height) < 1e-6));
  // The presets: hw.cacheBytes' bytes, each bar's length in proportion.
  const expected = look.own.presets.flatMap(([label, s]) =>
    s.mhaBytesPerToken === s.bytesPerToken
      ? [[label, s.bytesPerToken]]
      : [
          [label, s.bytesPerToken],
          [label, s.mhaBytesPerToken],
        ],
  );
  assert.deepEqual(
    look.presets.bars.map((b) => [b.model, b.bytes]),
    expected,
  );
  const longest = Math.max(...look.presets.bars.map((b) => b.width));
  const most = Math.max(...look.presets.bars.map((b) => b.bytes));
  for (const b of look.presets.bars)
    assert.ok(Math.abs(b.width / longest - Math.max(1 / longest, b.bytes / most)) < 1e-6, `${b.model} ${b.name}`);
  assert.ok(expected.some(([label, bytes]) => /70B/.test(label) && bytes === 327680));
  assert.ok(expected.some(([label, bytes]) => /70B/.test(label) && bytes === 2621440));
  // No horizontal scroll, nothing drawn past the right edge.
  assert.ok(
    look.scrollWidth <= look.clientWidth,
    `${where}: scrolls sideways (${look.scrollWidth} > ${look.clientWidth})`,
  );
  assert.ok(look.canvasRight <= look.innerWidth + 0.5, `${where}: a figure ends at ${look.canvasRight}`);
}

describe('kv panel', () => {
  for (const scheme of ['light', 'dark']) {
    test(`1280x720 slide, ${scheme}: boxes by K/V head, the equality, the cache, the presets; it fits`, async () => {
      const { context, page, frame, errors } = await open([1280, 720], scheme);
      try {
        await settle(frame);
        let look = await frame.evaluate(LOOK);
        assert.equal(look.kv, 2); // the default
        assertLook(look, `slide ${scheme}, 2 K/V heads`);
        assert.ok(look.bottom <= look.frameHeight, `the panel ends at ${look.bottom} in ${look.frameHeight}`);
        assert.match(look.point, /8 query heads share 2 K\/V heads: a 4x smaller KV cache/);
        await page.screenshot({ path: `${ARTIFACTS}/kv-panel-slide-${scheme}.png` });
        // The slider, as a reader moves it: every divisor of 8.
        for (const [index, kv] of [
          [0, 8],
          [1, 4],
          [3, 1],
        ]) {
          await frame.evaluate((i) => {
            const s = document.querySelector('headwise-explorer').shadowRoot.querySelector('.kv-heads');
            s.value = String(i);
            s.dispatchEvent(new Event('input', { bubbles: true }));
          }, index);
          await settle(frame);
          look = await frame.evaluate(LOOK);
          assert.equal(look.kv, kv);
          assertLook(look, `slide ${scheme}, ${kv} K/V heads`);
          assert.ok(look.bottom <= look.frameHeight, `${kv} K/V heads: the panel ends at ${look.bottom}`);
          if (kv === 8) assert.match(look.point, /is multi-head attention: max \|difference\| 0\./);
          await page.screenshot({ path: `${ARTIFACTS}/kv-panel-slide-${scheme}-${kv}.png` });
        }
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });

    test(`phone 390x844, ${scheme}: the same figures, no horizontal scroll`, async () => {
      const { context, page, frame, errors } = await open([390, 844], scheme, { phone: true, kv: 1 });
      try {
        await settle(frame);
        const look = await frame.evaluate(LOOK);
        assert.equal(look.kv, 1);
        assertLook(look, `phone ${scheme}`);
        await page.screenshot({ path: `${ARTIFACTS}/kv-panel-phone-${scheme}.png`, fullPage: true });
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }
});

// "Time generation" on the panel as a page shows it (its Details open on a slide hold the button).
test("Time generation: timed in a worker, the figure the panel's numbers, no long task of the page", async () => {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(`${web.server.url}embed.html?panel=kv`);
    await page.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
    await page.waitForFunction(
      () => document.querySelector('headwise-explorer').shadowRoot.querySelector('.kv-equal')?.textContent,
    );
    // On a slide-sized page the panel is a slide: the button is behind its Details.
    const details = page.locator('headwise-explorer #panel-kv .details-toggle');
    if (await details.isVisible()) await details.click();
    const trace = await traceMainThread(page);
    const t0 = Date.now();
    await page.locator('headwise-explorer .kv-time').click();
    // While it runs: the button is disabled and a second press (a click on it) starts nothing.
    const during = await page.evaluate(() => {
      const root = document.querySelector('headwise-explorer').shadowRoot;
      const button = root.querySelector('.kv-time');
      const before = root.querySelector('.kv-timing').textContent;
      button.click();
      return { disabled: button.disabled, state: root.querySelector('#panel-kv').dataset.timing, before };
    });
    assert.equal(during.disabled, true);
    assert.match(during.state, /starting|running/);
    assert.match(during.before, /Timing generation in a worker: /);
    await page.waitForFunction(
      () =>
        ['done', 'failed'].includes(
          document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-kv').dataset.timing,
        ),
      null,
      { timeout: 60_000, polling: 250 },
    );
    const seconds = (Date.now() - t0) / 1000;
    const { tasks } = await trace.stop();
    // Back to the figures (a slide lays them out when they are shown).
    if (await details.isVisible()) await details.click();
    await settle(page.mainFrame());
    const seen = await page.evaluate(() => {
      const root = document.querySelector('headwise-explorer').shadowRoot;
      const line = root.querySelector('.kv-timing');
      const figure = [...root.querySelectorAll('#panel-kv .figures canvas')]
        .map((c) => c.headwiseFigure)
        .find((f) => /tokens per second/.test(f?.title ?? ''));
      return {
        state: root.querySelector('#panel-kv').dataset.timing,
        text: line.textContent,
        rows: line.dataset.rows ? JSON.parse(line.dataset.rows) : null,
        bars: figure?.bars ?? null,
        title: figure?.title ?? '',
        texts: figure ? figure.items.filter((it) => it.kind === 'text').map((it) => it.text) : [],
        disabled: root.querySelector('.kv-time').disabled,
      };
    });
    assert.equal(seen.state, 'done', seen.text);
    assert.equal(seen.disabled, false);
    const rows = seen.rows;
    assert.deepEqual(
      rows.map((r) => r.T),
      [128, 256, 512, 1024],
    );
    // The bars are the reported rows: each T's two, tokens/s = 1000 / ms, lengths in proportion.
    assert.deepEqual(
      seen.bars.map((b) => [b.T, b.side, b.perSecond, b.ms]),
      rows.flatMap((r) => [
        [r.T, 'cache', r.cachedPerSecond, r.cachedMs],
        [r.T, 'forward', r.forwardPerSecond, r.forwardMs],
      ]),
    );
    const longest = Math.max(...seen.bars.map((b) => b.width));
    const fastest = Math.max(...seen.bars.map((b) => b.perSecond));
    for (const b of seen.bars)
      assert.ok(Math.abs(b.width / longest - Math.max(2 / longest, b.perSecond / fastest)) < 1e-6);
    for (const r of rows) {
      assert.ok(
        Math.abs(r.cachedPerSecond * r.cachedMs - 1000) < 1e-6 && Math.abs(r.ratio - r.forwardMs / r.cachedMs) < 1e-9,
      );
    }
    // Every bar's label is drawn, and the words name the largest T's numbers as the figure does.
    for (const b of seen.bars) assert.ok(seen.texts.includes(b.label), b.label);
    const last = seen.bars.filter((b) => b.T === 1024);
    assert.ok(
      seen.text.includes(`at T 1024 the next token takes ${last[0].label.match(/, ([^ ]+) ms/)[1]} ms`),
      seen.text,
    );
    assert.match(seen.text, /faster with the cache/);
    assert.match(seen.text, /Whatever else this machine runs/);
    // A forward pass over 1,024 tokens is far more work than one decode step (about 100x here).
    assert.ok(rows.at(-1).ratio > 5, JSON.stringify(rows.at(-1)));
    // The page's own work (each task's CPU time; wall time, stretched by other processes, printed).
    const long = longTasks(tasks);
    const measured = rows.map((r) => [r.T, +r.cachedMs.toFixed(2), +r.forwardMs.toFixed(1)]);
    console.log(
      `# time generation: ${seconds.toFixed(1)} s, load ${loadavg()[0].toFixed(1)}, ` +
        `long [wall, CPU] ${JSON.stringify(long)}; [T, cached ms, forward ms] ${JSON.stringify(measured)}`,
    );
    assert.ok(
      tasks.every((t) => t.cpuMs < 50),
      `tasks of 50 ms CPU or more: ${JSON.stringify(long)}`,
    );
    // On the slide the timing figure takes the presets' place: the panel still ends inside the frame.
    const slide = await page.evaluate(() => {
      const root = document.querySelector('headwise-explorer').shadowRoot;
      const titles = [...root.querySelectorAll('#panel-kv .figures canvas:not([hidden])')].map(
        (c) => c.headwiseFigure?.title,
      );
      return { titles, bottom: root.querySelector('#panel-kv').getBoundingClientRect().bottom, height: innerHeight };
    });
    assert.ok(
      slide.titles.some((t) => /tokens per second/.test(t)),
      JSON.stringify(slide.titles),
    );
    assert.ok(slide.bottom <= slide.height, `the panel ends at ${slide.bottom} in ${slide.height}`);
    await page.screenshot({ path: `${ARTIFACTS}/kv-panel-timing.png`, fullPage: true });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// What sharing costs trained models, on the page (a slide keeps it in the table), wide and on a
// phone: the figure's bars and the paragraph's numbers are the shipped results' means, read here from
// the results file; every text of the figure ends inside it, and it is drawn at its own size.
for (const [w, h] of [
  [1280, 900],
  [390, 844],
]) {
  test(`${w}x${h}: trained with 4, 2 and 1 K/V heads: bars and words are the shipped results`, async () => {
    const url = `${web.server.url}index.html?panel=kv`;
    const { page, context, problems } = await openExplorer(web.browser, url, { width: w, height: h });
    try {
      await page.waitForFunction(
        () => document.querySelector('headwise-explorer').shadowRoot.querySelector('.kv-equal')?.textContent,
      );
      const seen = await page.evaluate(async () => {
        const { default: results } = await import('/explorer/panels/kv/kv-sharing-results.js');
        const { FONT } = await import('/explorer/figures/figure.js');
        const root = document.querySelector('headwise-explorer').shadowRoot;
        const canvas = [...root.querySelectorAll('#panel-kv .figures canvas:not([hidden])')].find((c) =>
          /^Held-out accuracy, \d+ steps/.test(c.headwiseFigure?.title ?? ''),
        );
        const figure = canvas?.headwiseFigure;
        const texts = figure ? figure.items.filter((i) => i.kind === 'text') : [];
        const ctx = document.createElement('canvas').getContext('2d');
        const overflow = texts.flatMap((t) => {
          ctx.font = `${t.weight} ${t.size}px ${FONT}`;
          const width = ctx.measureText(t.text).width;
          const [left, right] = t.anchor === 'end' ? [t.x - width, t.x] : [t.x, t.x + width];
          return left < -0.5 || right > figure.width + 0.5
            ? [`"${t.text}" ${left.toFixed(1)}-${right.toFixed(1)}`]
            : [];
        });
        return {
          results,
          bars: figure?.bars ?? null,
          title: figure?.title ?? '',
          texts: texts.map((i) => i.text),
          overflow,
          shown: canvas ? canvas.getBoundingClientRect().width / figure.width : 0,
          words: root.querySelector('#panel-kv .kv-trained').textContent,
        };
      });
      assert.ok(seen.bars, 'no figure of the trained models');
      assert.deepEqual(seen.overflow, [], `${w}: texts past the figure's edge`);
      assert.ok(seen.shown > 0.97, `${w}: the figure is drawn at ${seen.shown.toFixed(2)} of its size`);
      const skills = ['subject', 'object', 'possessive', 'agreement', 'name'];
      // The step the figure's title names, read at that step in the results.
      const step = Number(/^Held-out accuracy, (\d+) steps/.exec(seen.title)?.[1]);
      assert.ok(
        seen.results.models[0].seeds[0].points.some((p) => p.step === step),
        seen.title,
      );
      const at = (s) => s.points.find((p) => p.step === step);
      const means = seen.results.models.map((m) =>
        skills.map((skill) => m.seeds.reduce((a, s) => a + at(s).skills[skill], 0) / m.seeds.length),
      );
      const widest = Math.max(...seen.bars.map((b) => b.width));
      const most = Math.max(...means.flat());
      skills.forEach((skill, s) =>
        seen.results.models.forEach((m, i) => {
          const bar = seen.bars.find((b) => b.skill === skill && b.kvHeads === m.kvHeads);
          assert.ok(Math.abs(bar.value - means[i][s]) < 1e-12, `${skill}, ${m.kvHeads} K/V heads`);
          assert.ok(Math.abs(bar.width / widest - means[i][s] / most) < 1e-6, `${skill}, ${m.kvHeads}: length`);
          assert.ok(seen.texts.includes(means[i][s].toFixed(2)), `${skill}, ${m.kvHeads}: value printed`);
        }),
      );
      const pronouns = (i) => (means[i][0] + means[i][1] + means[i][2]) / 3;
      assert.ok(seen.words.includes(`at step ${step}: `), seen.words);
      for (const i of [0, 1, 2])
        assert.ok(
          seen.words.includes(`pronouns ${pronouns(i).toFixed(2)}, agreement ${means[i][3].toFixed(2)}`),
          seen.words,
        );
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
