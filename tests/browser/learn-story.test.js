// The Learn panel's "1, 2 and 4 heads: story" (learn-experiment=story) in Chromium, checked against
// the shipped story checkpoints as this test reads them (web/checkpoints/story-*.json): one chart per
// probe and one of the attention on the antecedent, each with a line per model ending at the
// checkpoint's last curve point on the chart's own axes (read from its tick labels); each head's map
// on the lecture's sentence titled with the checkpoint's role, the antecedent head's row from
// "catch" brightest on "ball" (> 0.8; the 1-head model's one head > 0.5) and its row from "but" on
// "dog"; the ablation table's numbers
// the checkpoints' (a fall marked). Random weights fail the roles, the rows and the table. Then
// "Train live" replays the three models in the page's trainer workers: the curves grow, and the step and
// time at which the 4-head model's best head first puts >= 0.8 on the antecedent are printed (the
// issue's budget: 20 s; measured, not asserted), with the page's long tasks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { chromiumAndWeb } from './web-session.js';
import { longTasks, traceMainThread } from './main-thread-work.js';

const web = chromiumAndWeb();
const read = async (name) =>
  JSON.parse(await readFile(new URL(`../../web/checkpoints/${name}.json`, import.meta.url), 'utf8'));
const SKILLS = ['subject', 'object', 'possessive', 'agreement', 'name'];

const LOOK = () => {
  const s = document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn');
  const canvases = [...s.querySelectorAll('.figures canvas:not([hidden])')];
  return {
    state: s.dataset.learnState,
    status: s.querySelector('.status').textContent,
    account: s.querySelector('.induction-account').textContent,
    table: [...s.querySelectorAll('table.story-ablation tr[data-model]')].map((tr) => ({
      model: tr.dataset.model,
      zeroed: tr.dataset.zeroed,
      cells: [...tr.querySelectorAll('td')].map((td) => ({ text: td.textContent, falls: td.className === 'falls' })),
    })),
    figures: canvases.map((c) => {
      const f = c.headwiseFigure;
      return {
        title: f.title,
        box: c.getBoundingClientRect().toJSON(),
        texts: f.items.filter((it) => it.kind === 'text').map(({ text, x, y, anchor }) => ({ text, x, y, anchor })),
        lines: f.items.filter((it) => it.kind === 'polyline').map((it) => it.points),
        maps: f.heatmaps.map((m) => ({
          rows: m.rows,
          cols: m.cols,
          values: Array.from(m.values),
          rowLabels: m.rowLabels,
          colLabels: m.colLabels,
        })),
      };
    }),
    scrollWidth: document.documentElement.scrollWidth,
  };
};

const waitState = (page, states, timeout = 60_000) =>
  page.waitForFunction(
    (want) =>
      want.includes(
        document.querySelector('headwise-explorer')?.shadowRoot.querySelector('#panel-learn')?.dataset.learnState,
      ),
    states,
    { timeout },
  );

// A chart's y axis from its tick labels "0%" and "100%".
function yAxis(fig) {
  const zero = fig.texts.find((t) => t.text === '0%').y;
  const full = fig.texts.find((t) => t.text === '100%').y;
  return (v) => zero + (full - zero) * v;
}

function checkDrawn(seen, models) {
  const charts = 6;
  assert.equal(seen.figures.length, charts + models.length, seen.figures.map((f) => f.title).join(' | '));
  // The probe charts: each model's line ends at its last curve point's accuracy.
  SKILLS.forEach((skill, i) => {
    const fig = seen.figures[i];
    const y = yAxis(fig);
    assert.equal(fig.lines.length, models.length, fig.title);
    models.forEach((m, r) => {
      const want = m.curve.at(-1).heldOut.groups[skill].candidateAccuracy;
      assert.ok(Math.abs(fig.lines[r].at(-1)[1] - y(want)) < 1, `${fig.title} ${m.name}`);
      assert.equal(fig.lines[r].length, m.curve.length);
    });
  });
  // The maps: each head titled by its role; the antecedent head's rows on the lecture's sentence.
  models.forEach((m, i) => {
    const fig = seen.figures[charts + i];
    const roles = m.roles[0].map((h) => h.role);
    assert.equal(fig.maps.length, roles.length, fig.title);
    roles.forEach((role, h) =>
      assert.ok(
        fig.texts.some((t) => t.text.includes(`head ${h + 1}: ${role}`)),
        `${fig.title}: head ${h + 1} ${role}`,
      ),
    );
    // One head (named for its name copy) holds "catch" less sharply: .61 on "ball" (seed 1).
    const head = m.options.heads === 1 ? 0 : roles.findIndex((r) => /antecedent/.test(r));
    assert.ok(head >= 0, roles.join());
    const map = fig.maps[head];
    const top = (label) => {
      const i = map.rowLabels.indexOf(label);
      assert.ok(i >= 0, map.rowLabels.join());
      const row = map.values.slice(i * map.cols, (i + 1) * map.cols);
      const j = row.indexOf(Math.max(...row));
      return { word: map.colLabels[j], weight: row[j] };
    };
    const fromCatch = top('catch → it');
    assert.equal(fromCatch.word, 'ball', JSON.stringify(fromCatch));
    assert.ok(fromCatch.weight > (m.options.heads === 1 ? 0.5 : 0.8), JSON.stringify(fromCatch));
    assert.equal(top('but → it').word, 'dog');
  });
  // The ablation table: every head's row, the checkpoint's numbers to 2 decimals, falls marked.
  for (const m of models) {
    const rows = seen.table.filter((r) => r.model === m.name);
    assert.equal(rows.length, 1 + m.options.heads);
    const all = rows.find((r) => r.zeroed === '');
    SKILLS.forEach((skill, i) =>
      assert.equal(all.cells[i + 1].text, m.evaluation.groups[skill].candidateAccuracy.toFixed(2)),
    );
    for (const a of m.ablation) {
      const row = rows.find((r) => r.zeroed === String(a.head));
      SKILLS.forEach((skill, i) => {
        const without = a.evaluation.groups[skill].candidateAccuracy;
        assert.equal(row.cells[i + 1].text, without.toFixed(2), `${m.name} head ${a.head + 1} ${skill}`);
        const falls = without - m.evaluation.groups[skill].candidateAccuracy <= -0.1;
        assert.equal(row.cells[i + 1].falls, falls);
      });
    }
  }
  // Zeroing the 4-head model's antecedent head (head 1) drops the possessive: marked and said.
  assert.ok(seen.table.find((r) => r.model === '4 heads' && r.zeroed === '0').cells[3].falls);
  assert.match(seen.account, /4 heads, step 3000: .*possessive 0\.99/);
  assert.match(seen.account, /on "ball"/);
}

const TITLE =
  "learn-experiment=story: probe curves, each head on the lecture's sentence, the ablation table; " +
  '"Train live" in workers';
test(TITLE, async () => {
  const models = await Promise.all(['story-1-head', 'story-2-heads', 'story-4-heads'].map(read));
  models.forEach((m) => (m.name = `${m.options.heads} head${m.options.heads === 1 ? '' : 's'}`));
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    // As a page panel (slide=0): the charts, every model's heads and the table (the slide: below).
    await page.goto(`${web.server.url}embed.html?panel=learn&learn-experiment=story&slide=0`);
    await waitState(page, ['checkpoints']);
    await page.waitForFunction(
      () =>
        document
          .querySelector('headwise-explorer')
          .shadowRoot.querySelectorAll('#panel-learn .figures canvas:not([hidden])').length === 9,
    );
    const seen = await page.evaluate(LOOK);
    checkDrawn(seen, models);
    assert.ok(seen.scrollWidth <= 1280, `scrollWidth ${seen.scrollWidth}`);
    // Train live: both models in workers, for 200 steps (four points of the curves, about 10 s
    // here), traced throughout; or until the 4-head model has a head at >= 0.8 on the antecedent,
    // should that come first (it takes about 2,000 steps: over 100 s here, see docs/story.md); or 30 s.
    const trace = await traceMainThread(page);
    await page.locator('headwise-explorer #panel-learn button', { hasText: 'Train live' }).click();
    const live = await page.evaluate(async () => {
      const host = document.querySelector('headwise-explorer');
      const t0 = performance.now();
      for (;;) {
        const st = host.trainingState();
        if (st.source === 'live' && (st.antecedentStep !== null || st.step >= 200)) break;
        if (st.state === 'failed' || performance.now() - t0 > 30_000) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      return { st: host.trainingState(), seconds: (performance.now() - t0) / 1000 };
    });
    const { tasks } = await trace.stop();
    const long = longTasks(tasks);
    console.log(
      `# story live ${JSON.stringify({
        where: live.st.where,
        step: live.st.step,
        antecedentStep: live.st.antecedentStep,
        antecedentMs: live.st.antecedentMs,
        seconds: live.seconds.toFixed(1),
        load: loadavg()[0].toFixed(1),
        long,
      })}`,
    );
    assert.equal(live.st.where, 'worker', JSON.stringify(live.st));
    assert.equal(live.st.source, 'live');
    assert.ok(live.st.step >= 50, JSON.stringify(live.st));
    const after = await page.evaluate(LOOK);
    // The live curves are drawn (a point every 50 steps).
    assert.ok(after.figures[0].lines.every((l) => l.length >= 1));
    await page.evaluate(() => document.querySelector('headwise-explorer').resetTraining());
    await waitState(page, ['checkpoints']);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// On a 16:9 slide: the six charts alone (each head's map is the story panel's slide), and the point
// says when each model first had every probe at 0.90 or more held out, read here from the checkpoints.
test('learn-experiment=story on a slide: the six charts, and when each model learned every probe', async () => {
  const models = await Promise.all(['story-1-head', 'story-2-heads', 'story-4-heads'].map(read));
  const when = models.map((m) => {
    const point = m.curve.find((p) => SKILLS.every((k) => p.heldOut.groups[k].candidateAccuracy >= 0.9));
    const name = `${m.options.heads} head${m.options.heads === 1 ? '' : 's'}`;
    return `${name} ${point ? `at step ${point.step}` : `not by step ${m.curve.at(-1).step}`}`;
  });
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  try {
    await page.goto(`${web.server.url}embed.html?panel=learn&learn-experiment=story`);
    await waitState(page, ['checkpoints']);
    const seen = await page.evaluate(() => {
      const s = document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-learn');
      const shown = [...s.querySelectorAll('.figures canvas:not([hidden])')];
      return { point: s.querySelector('.point').textContent, titles: shown.map((c) => c.headwiseFigure.title) };
    });
    assert.equal(seen.point, `Every probe right 90% of the time, held out: ${when.join(', ')}.`);
    assert.equal(seen.titles.length, 6, seen.titles.join(' | '));
    assert.deepEqual(seen.titles.slice(0, 5), [
      'subject pronoun',
      'object pronoun',
      'possessive',
      'agreement',
      'name copy',
    ]);
  } finally {
    await context.close();
  }
});
