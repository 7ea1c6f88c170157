// The heads panel shows trained heads by default (issue 20): on the lecture's sentence the shipped
// 2-head model's maps are drawn, each titled by the role the core measured, and from "?" (the
// model's read position) the brightest drawn cell of one head is the latest verb ("catch") and of
// the other the latest noun ("ball"); the numbers the panel gives are the drawn maps' values. The
// same reading of the same panel with "Random weights" on fails that check (so the check would
// fail on random weights). GPT-2's 12 heads have no trained model: the panel says so and offers
// the trained heads, a button away on a slide. Read from the canvases' pixels and the figures
// they hold; at 1280x720 in an iframe and on a 390x844 phone, light and dark, the figure text is
// at least 11 px on screen and nothing leaves the frame. Screenshots: test-artifacts/trained-heads-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS } from './page-checks.js';

const web = chromiumAndWeb();
const VERB = 'catch';
const NOUN = 'ball';
const MIN_TEXT = 11;
const DECK = (src, [w, h]) =>
  `<!doctype html><link rel="icon" href="data:,"><body style="margin:0">` +
  `<iframe id="slide" src="${src}" style="border:0;width:${w}px;height:${h}px"></iframe></body>`;

// In the page: the heads panel as drawn. For each shown head map (the figure area's canvases): its
// title, its column labels, and for its last row (from "?") each cell's brightness read from the
// canvas pixels (viridis grows brighter with the weight) and the value the cell was coloured by;
// the panel's text; the smallest figure text on screen; the scroll size.
const READ = () => {
  const panel = document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-heads');
  const maps = [...panel.querySelectorAll('.figures.grid > canvas:not([hidden])')].map((canvas) => {
    const figure = canvas.headwiseFigure;
    const cells = figure.heatmaps[0];
    const scale = canvas.width / figure.width;
    const ctx = canvas.getContext('2d');
    const last = cells.r - 1;
    const row = [];
    for (let j = 0; j < cells.c; j += 1) {
      // A quarter into the cell from its top-left corner: off the printed value in its middle.
      const x = Math.floor((cells.x + (j + 0.25) * cells.cellW) * scale);
      const y = Math.floor((cells.y + (last + 0.25) * cells.cellH) * scale);
      const [r, g, b] = ctx.getImageData(x, y, 1, 1).data;
      row.push({ brightness: 0.3 * r + 0.6 * g + 0.1 * b, value: cells.mean[last * cells.c + j] });
    }
    return { title: figure.title, colLabels: cells.colLabels, row };
  });
  // (Canvases in a hidden area take no room on screen: not drawn for the viewer.)
  const shown = [...panel.querySelectorAll('canvas:not([hidden])')].filter((c) => c.getBoundingClientRect().width > 0);
  const texts = shown.flatMap((canvas) => {
    const f = canvas.headwiseFigure;
    const k = canvas.getBoundingClientRect().width / f.width;
    return f.items.filter((it) => it.kind === 'text').map((it) => it.size * k);
  });
  return {
    weights: panel.dataset.headsWeights,
    model: panel.dataset.trainedModel,
    about: panel.querySelector('.trained-about').textContent,
    toggle: panel.querySelector('.weights-toggle').getAttribute('aria-pressed'),
    toggleDisabled: panel.querySelector('.weights-toggle').disabled,
    trainedToggle: panel.querySelector('.trained-toggle').hidden
      ? null
      : panel.querySelector('.trained-toggle').textContent,
    maps,
    learnedRows: [...panel.querySelectorAll('.learned-table tr[data-kind="trained"]')].length,
    learnedCanvases: shown.filter((c) => c.closest('.learned-maps')).length,
    minText: Math.min(...texts),
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
  };
};

const brightest = (row) => row.reduce((best, c, j) => (c.brightness > row[best].brightness ? j : best), 0);

/**
 * The lesson, as drawn: from "?", one head's brightest cell is the latest verb and another's the
 * latest noun, each with most of its weight there. True or false (random weights give false).
 */
function tellsVerbAndNoun(seen) {
  if (seen.maps.length !== 2) return false;
  const words = seen.maps[0].colLabels;
  const tops = seen.maps.map((m) => words[brightest(m.row)]);
  const shares = seen.maps.map((m) => m.row[brightest(m.row)].value);
  return tops.includes(VERB) && tops.includes(NOUN) && shares.every((v) => v > 0.5);
}

async function openPanel(
  query,
  { viewport = { width: 1280, height: 900 }, colorScheme = 'light', isMobile = false } = {},
) {
  const context = await web.browser.newContext({ viewport, colorScheme, isMobile, hasTouch: isMobile });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${web.server.url}${query}`);
  await page.waitForFunction(
    () => {
      const s = document.querySelector('headwise-explorer')?.shadowRoot?.querySelector('#panel-heads');
      return s && s.dataset.headsWeights && s.dataset.headsWeights !== 'loading';
    },
    null,
    { timeout: 30_000 },
  );
  return { context, page, errors };
}

const settled = async (frame, weights) => {
  await frame.waitForFunction(
    (w) =>
      document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-heads').dataset.headsWeights === w,
    weights,
    { timeout: 30_000 },
  );
  await frame.waitForTimeout(300);
  return frame.evaluate(READ);
};

test('by default the heads panel draws trained heads that differ; random weights fail the same check', async () => {
  const { context, page, errors } = await openPanel('index.html?panel=heads');
  try {
    const trained = await settled(page, 'trained');
    await page.locator('headwise-explorer #panel-heads').screenshot({ path: `${ARTIFACTS}trained-heads-page.png` });
    assert.equal(trained.model, 'verb-noun-2-heads');
    assert.equal(trained.toggle, 'false');
    // The lecture's sentence in the model's words, "?" last; the roles the core measured, in the titles.
    assert.deepEqual(trained.maps[0].colLabels, 'the dog chase the ball and it and and catch it ?'.split(' '));
    assert.deepEqual(
      trained.maps.map((m) => m.title),
      ['head 1: latest verb', 'head 2: latest noun'],
    );
    assert.match(trained.about, /"chased" as "chase", by stem; "but", "could" and "not" unknown, read as "and"/);
    // From "?": head 1's brightest cell is "catch", head 2's "ball", as the titles say.
    const words = trained.maps[0].colLabels;
    assert.equal(words[brightest(trained.maps[0].row)], VERB);
    assert.equal(words[brightest(trained.maps[1].row)], NOUN);
    assert.ok(tellsVerbAndNoun(trained), JSON.stringify(trained.maps.map((m) => m.row.map((c) => c.value))));
    // The numbers said are the drawn cells' values: each head's share on "catch" and "ball", and the
    // rows' distance (total variation) computed here from the drawn rows.
    const at = { verb: words.lastIndexOf(VERB), noun: words.lastIndexOf(NOUN) };
    for (const [h, m] of trained.maps.entries()) {
      const [verb, noun] = [m.row[at.verb].value.toFixed(2), m.row[at.noun].value.toFixed(2)];
      const said = `puts ${verb} on "${VERB}", ${noun} on "${NOUN}"`;
      assert.ok(
        trained.about.includes(`head ${h + 1} (`) && trained.about.includes(said),
        `${said} in: ${trained.about}`,
      );
    }
    const distance =
      trained.maps[0].row.reduce((s, c, j) => s + Math.abs(c.value - trained.maps[1].row[j].value), 0) / 2;
    assert.ok(distance > 0.9, `the heads' rows from "?" differ by ${distance}`);
    assert.ok(trained.about.includes(`differ by ${distance.toFixed(2)}`), trained.about);

    // "Random weights": the same shapes, the same words; the check above fails.
    await page.locator('headwise-explorer #panel-heads .weights-toggle').click();
    const random = await settled(page, 'random');
    await page
      .locator('headwise-explorer #panel-heads')
      .screenshot({ path: `${ARTIFACTS}trained-heads-page-random.png` });
    assert.equal(random.toggle, 'true');
    assert.equal(random.maps.length, 2);
    assert.deepEqual(random.maps[0].colLabels, trained.maps[0].colLabels);
    assert.deepEqual(
      random.maps.map((m) => m.title),
      ['head 1: mixed', 'head 2: mixed'],
    );
    assert.equal(tellsVerbAndNoun(random), false, JSON.stringify(random.maps.map((m) => m.row.map((c) => c.value))));
    assert.match(random.about, /before training/);
    // And back.
    await page.locator('headwise-explorer #panel-heads .weights-toggle').click();
    assert.ok(tellsVerbAndNoun(await settled(page, 'trained')));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('heads-weights=random in the URL and 1 head: the 1-head model, named by its measured role', async () => {
  const { context, page, errors } = await openPanel('index.html?panel=heads&heads=1');
  try {
    const one = await settled(page, 'trained');
    assert.equal(one.model, 'verb-noun-1-head');
    assert.equal(one.maps.length, 1);
    assert.match(one.maps[0].title, /^head 1: /);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
  const opened = await openPanel('index.html?panel=heads&heads-weights=random');
  try {
    const random = await settled(opened.page, 'random');
    assert.equal(random.toggle, 'true');
    assert.equal(tellsVerbAndNoun(random), false);
    assert.deepEqual(opened.errors, []);
  } finally {
    await opened.context.close();
  }
});

test('GPT-2 (768 x 12): no trained model, said so; the trained heads beside the random ones', async () => {
  // On a page, the trained model's rows from "?" under the text.
  const { context, page, errors } = await openPanel('index.html?panel=heads&preset=gpt2');
  try {
    const seen = await settled(page, 'configuration');
    assert.equal(seen.maps.length, 12);
    assert.match(seen.about, /^No trained model exists for 12 heads \(768 = 12 x 64\): these are random/);
    // "Random weights" drawn ticked over the random maps, with no trained weights to switch to.
    assert.equal(seen.toggle, 'true');
    assert.equal(seen.toggleDisabled, true);
    assert.match(
      seen.about,
      /head 1 \(latest verb\) 1\.00 on "catch", 0\.00 on "ball"; head 2 \(latest noun\) 0\.00, 1\.00/,
    );
    assert.equal(seen.learnedCanvases, 1);
    assert.equal(seen.learnedRows, 2);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

for (const colorScheme of ['light', 'dark']) {
  test(`a 1280x720 slide (${colorScheme}): trained maps legible inside the frame; GPT-2's a button away`, async () => {
    const theme = `&theme=${colorScheme}`;
    for (const [query, weights] of [
      [`embed.html?panel=heads${theme}`, 'trained'],
      [`embed.html?panel=heads&preset=gpt2${theme}`, 'configuration'],
    ]) {
      const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme });
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.route(`${web.server.url}deck.html`, (route) =>
        route.fulfill({ contentType: 'text/html', body: DECK(query, [1280, 720]) }),
      );
      try {
        await page.goto(`${web.server.url}deck.html`);
        const frame = page.frame({ url: /embed\.html/ });
        await frame.waitForFunction(() => document.querySelector('headwise-explorer')?.dataset.ready === 'true');
        const seen = await settled(frame, weights);
        const name = `${weights === 'trained' ? 'lecture' : 'gpt2'}-${colorScheme}`;
        await page.screenshot({ path: `${ARTIFACTS}trained-heads-slide-${name}.png` });
        assert.ok(seen.minText >= MIN_TEXT, `${name}: smallest figure text ${seen.minText.toFixed(1)} px`);
        assert.deepEqual(seen.scroll, [1280, 720], `${name}: the slide does not scroll`);
        if (weights === 'trained') assert.ok(tellsVerbAndNoun(seen), name);
        else {
          assert.equal(seen.trainedToggle, 'Show the trained heads');
          await frame.locator('#panel-heads .trained-toggle').click();
          await frame.waitForTimeout(300);
          const shown = await frame.evaluate(READ);
          await page.screenshot({ path: `${ARTIFACTS}trained-heads-slide-${name}-trained.png` });
          assert.equal(shown.maps.length, 0, 'the trained heads take the figure column');
          assert.equal(shown.learnedCanvases, 1);
          assert.ok(shown.minText >= MIN_TEXT, `${name}, trained shown: figure text ${shown.minText.toFixed(1)} px`);
          assert.deepEqual(shown.scroll, [1280, 720]);
        }
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    }
  });
}

test('a 390x844 phone: the trained maps drawn, figure text legible, nothing wider than the screen', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { context, page, errors } = await openPanel(`embed.html?panel=heads&theme=${colorScheme}`, {
      viewport: { width: 390, height: 844 },
      colorScheme,
      isMobile: true,
    });
    try {
      const seen = await settled(page, 'trained');
      await page.screenshot({ path: `${ARTIFACTS}trained-heads-phone-${colorScheme}.png`, fullPage: true });
      assert.ok(tellsVerbAndNoun(seen));
      assert.ok(seen.minText >= MIN_TEXT, `phone: smallest figure text ${seen.minText.toFixed(1)} px`);
      assert.ok(seen.scroll[0] <= 390, `the page is ${seen.scroll[0]} px wide`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});
