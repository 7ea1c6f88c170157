// The story panel (issue 33, web/explorer/panels/story/): on the lecture's sentence (the page's
// default) the shipped story model's 4 heads are drawn, each titled by the role the core measured,
// their rows from "but" and "catch" (which predict the two "it"s) and from the last "it"; from "but"
// the antecedent head's brightest drawn cell is "dog", from "catch" "ball", and the text says the
// drawn values; the switch (on the antecedent head by default) draws and says which skill falls and
// which stays, in the checkpoint's numbers, and another head's switch changes both. A typed
// sentence with a word outside the vocabulary has it marked unknown and left out of the maps. It
// fits a 390x844 phone without horizontal scroll, and a 1280x720 slide (embed.html), light and
// dark, figure first with its point in two lines of large type, the point's numbers the drawn ones.
// Screenshots: test-artifacts/story-panel*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS } from './page-checks.js';

const web = chromiumAndWeb();
const LECTURE = 'the dog chased the ball , but it could not catch it'.split(' ');

// What a user sees: texts, the drawn maps (title, labels, drawn cells) and the drawn bars' texts.
const READ = () => {
  const panel = document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-story');
  const canvases = [...panel.querySelectorAll('.figures > canvas:not([hidden])')];
  const maps = canvases
    .filter((c) => c.headwiseFigure.heatmaps?.length)
    .map((canvas) => {
      const cells = canvas.headwiseFigure.heatmaps[0];
      return {
        title: canvas.headwiseFigure.title,
        rows: cells.rowLabels,
        labels: cells.colLabels,
        c: cells.c,
        mean: [...cells.mean],
        texts: canvas.headwiseFigure.items.filter((it) => it.kind === 'text').map((it) => it.text),
      };
    });
  const bars = canvases
    .filter((c) => !c.headwiseFigure.heatmaps?.length)
    .map((c) => ({
      title: c.headwiseFigure.title,
      texts: c.headwiseFigure.items.filter((it) => it.kind === 'text').map((it) => it.text),
    }));
  const box = panel.getBoundingClientRect();
  return {
    reading: panel.querySelector('.story-reading').textContent,
    unknown: [...panel.querySelectorAll('.story-token.unknown')].map((s) => s.textContent),
    vocabulary: panel.querySelector('.story-words-toggle').textContent,
    wordsShown: !panel.querySelector('.story-words').hidden,
    words: panel.querySelector('.story-words').textContent,
    rows: panel.querySelector('.story-rows').textContent,
    switches: [...panel.querySelectorAll('.story-switch')].map((b) => [
      b.getAttribute('aria-label'),
      b.getAttribute('aria-pressed'),
    ]),
    ablation: panel.querySelector('.story-ablation').textContent,
    point: panel.querySelector('.point').textContent,
    maps,
    bars,
    widest: Math.max(...canvases.map((c) => c.getBoundingClientRect().right)),
    panelRight: box.right,
    scrollWidth: document.documentElement.scrollWidth,
    scrollHeight: document.documentElement.scrollHeight,
  };
};

const drawn = () =>
  document
    .querySelector('headwise-explorer')
    ?.shadowRoot?.querySelectorAll('#panel-story .figures > canvas:not([hidden])').length === 5;

async function open(query, viewport = { width: 1280, height: 900 }, colorScheme = 'light') {
  const context = await web.browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${web.server.url}${query}`);
  await page.waitForFunction(drawn, null, { timeout: 60_000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return { context, page, errors, read: () => page.evaluate(READ) };
}

// A head's drawn row for the key row labelled `label`.
const rowOf = (map, label) => map.mean.slice(map.rows.indexOf(label) * map.c, (map.rows.indexOf(label) + 1) * map.c);
const top = (row) => row.reduce((best, v, j, r) => (v > r[best] ? j : best), 0);

test("the lecture's sentence: named heads, 'but' -> dog, 'catch' -> ball drawn and said, the switch", async () => {
  const { context, page, errors, read } = await open('index.html?panel=story');
  try {
    const seen = await read();
    await page.locator('headwise-explorer #panel-story').screenshot({ path: `${ARTIFACTS}story-panel.png` });
    assert.match(seen.reading, /story-4-heads: 1 layer of 4 heads of 16, trained 3000 steps/);
    assert.match(seen.reading, /every word is in its vocabulary/);
    assert.deepEqual(seen.unknown, []);
    // The vocabulary, one click away.
    assert.equal(seen.vocabulary, 'Its vocabulary (338 words)');
    assert.equal(seen.wordsShown, false);
    await page.locator('headwise-explorer #panel-story .story-words-toggle').click();
    const words = await read();
    assert.equal(words.wordsShown, true);
    assert.equal(words.words.split(' ').length, 338);
    assert.ok(words.words.split(' ').includes('catch'));
    assert.deepEqual(
      seen.maps.map((m) => m.title),
      ['head 1: possessive antecedent', 'head 2: name copy', 'head 3: name copy', 'head 4: name copy'],
    );
    const head = seen.maps[0];
    assert.deepEqual(head.labels, LECTURE);
    assert.deepEqual(head.rows, ['but → it', 'catch → it', 'it (last)']);
    // Head 1's drawn rows: the brightest cell from "but" is "dog", from "catch" "ball".
    const [but, caught] = [rowOf(head, 'but → it'), rowOf(head, 'catch → it')];
    assert.equal(LECTURE[top(but)], 'dog');
    assert.equal(LECTURE[top(caught)], 'ball');
    assert.ok(but[1] > 0.8 && caught[4] > 0.8 && but[4] < 0.1 && caught[1] < 0.1, JSON.stringify([but, caught]));
    // The text and the slide's point give the drawn values.
    assert.ok(seen.rows.includes(`From "but" (before "it"): head 1 ${but[1].toFixed(2)} on "dog"`), seen.rows);
    assert.ok(seen.rows.includes(`From "catch" (before "it"): head 1 ${caught[4].toFixed(2)} on "ball"`), seen.rows);
    assert.ok(
      seen.point.startsWith(
        `Head 1 puts ${but[1].toFixed(2)} of "but" on "dog", ${caught[4].toFixed(2)} of "catch" on "ball"`,
      ),
      seen.point,
    );
    // Ablation: head 1 switched off by default; the possessive falls, the name copy stays; the bars
    // draw the same numbers (the checkpoint's: possessive 0.99 -> 0.55, name copy 1.00 -> 0.92).
    assert.deepEqual(
      seen.switches.map(([, pressed]) => pressed),
      ['true', 'false', 'false', 'false'],
    );
    assert.equal(seen.switches[0][0], 'Switch off head 1 (possessive antecedent)');
    assert.match(
      seen.ablation,
      /^Without head 1 \(possessive antecedent\), falls: .*possessive 0\.99 -> 0\.55.*; stays: .*name copy 0\.92/,
    );
    assert.match(seen.point, /off, possessive falls 0\.99 → 0\.55/);
    const [bars] = seen.bars;
    assert.equal(bars.title, 'Held-out accuracy');
    for (const v of ['0.99', '0.55', '0.92', 'all 4 heads', 'head 1 off'])
      assert.ok(bars.texts.includes(v), `${v} drawn: ${bars.texts.join(' ')}`);
    await page.locator('headwise-explorer #panel-story .story-switch').nth(1).click();
    const other = await read();
    assert.deepEqual(
      other.switches.map(([, pressed]) => pressed),
      ['false', 'true', 'false', 'false'],
    );
    assert.match(other.ablation, /^Without head 2 \(name copy\), nothing falls; stays: subject pronoun 0\.96/);
    assert.ok(other.bars[0].texts.includes('head 2 off'), other.bars[0].texts.join(' '));
    assert.ok(other.bars[0].texts.includes('0.96'), other.bars[0].texts.join(' '));
    assert.ok(!other.bars[0].texts.includes('0.55'), other.bars[0].texts.join(' '));
    assert.match(other.point, /^Head 2 puts .*; off, nothing falls/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a typed sentence: a word outside the vocabulary is marked unknown and left out of the maps', async () => {
  const { context, page, errors, read } = await open('index.html?panel=story');
  try {
    const input = page.locator('headwise-explorer #panel-story .story-input');
    await input.fill('The girl kicked the frisbee and she found her bone');
    await input.press('Enter');
    await page.waitForFunction(
      () =>
        document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-story .story-token.unknown')
          ?.textContent === 'frisbee',
      null,
      { timeout: 30_000 },
    );
    const seen = await read();
    assert.deepEqual(seen.unknown, ['frisbee']);
    assert.match(seen.reading, /1 unknown \(not in its vocabulary: "frisbee"\), left out/);
    assert.ok(!seen.maps[0].labels.includes('frisbee'));
    assert.deepEqual(seen.maps[0].labels.slice(0, 4), ['the', 'girl', 'kicked', 'the']);
    assert.deepEqual(seen.maps[0].rows, ['and → she', 'found → her', 'her (last)']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a 390x844 phone: no horizontal scroll, every figure inside the panel', async () => {
  const { context, page, errors, read } = await open('index.html?panel=story', { width: 390, height: 844 });
  try {
    const seen = await read();
    await page.screenshot({ path: `${ARTIFACTS}story-panel-phone.png`, fullPage: true });
    assert.ok(seen.scrollWidth <= 390, `page ${seen.scrollWidth} px wide on a 390 px phone`);
    assert.ok(seen.widest <= seen.panelRight + 0.5, `figures end at ${seen.widest}, the panel at ${seen.panelRight}`);
    assert.equal(seen.maps.length, 4);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

for (const colorScheme of ['light', 'dark']) {
  test(`a 1280x720 slide (${colorScheme}): figure first, a two-line point, its numbers drawn`, async () => {
    const theme = colorScheme === 'dark' ? '&theme=dark' : '';
    const { context, page, errors, read } = await open(
      `embed.html?panel=story${theme}`,
      { width: 1280, height: 720 },
      colorScheme,
    );
    try {
      const seen = await read();
      const m = await page.evaluate(() => {
        const panel = document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-story');
        const point = panel.querySelector('.point');
        const style = getComputedStyle(point);
        const canvases = [...panel.querySelectorAll('.figures > canvas:not([hidden])')];
        const boxes = canvases.map((c) => c.getBoundingClientRect());
        const texts = canvases.flatMap((c) =>
          c.headwiseFigure.items
            .filter((it) => it.kind === 'text')
            .map((it) => (it.size * c.getBoundingClientRect().width) / c.headwiseFigure.width),
        );
        return {
          size: parseFloat(style.fontSize),
          lines: Math.round(point.getBoundingClientRect().height / parseFloat(style.lineHeight)),
          pointBottom: point.getBoundingClientRect().bottom,
          figuresTop: Math.min(...boxes.map((b) => b.top)),
          figuresBottom: Math.max(...boxes.map((b) => b.bottom)),
          smallest: Math.min(...texts),
          introShown: panel.querySelector('.intro').getBoundingClientRect().height > 0,
          switchesShown: panel.querySelector('.story-switches').getBoundingClientRect().height > 0,
          background: getComputedStyle(
            document.querySelector('headwise-explorer').shadowRoot.querySelector('.explorer'),
          ).backgroundColor,
        };
      });
      await page.screenshot({ path: `${ARTIFACTS}story-panel-slide-${colorScheme}.png` });
      console.log(
        `# story slide (${colorScheme}): point ${m.size} px in ${m.lines} lines, smallest figure text ` +
          `${m.smallest.toFixed(1)} px: ${seen.point}`,
      );
      assert.ok(m.size >= 24 && m.lines <= 2, `point ${m.size} px in ${m.lines} lines: ${seen.point}`);
      assert.ok(m.figuresTop >= m.pointBottom - 1, 'the figures under the point');
      assert.ok(m.figuresBottom <= 720, `figures end at ${m.figuresBottom}`);
      assert.ok(seen.scrollHeight <= 720 && seen.scrollWidth <= 1280, `${seen.scrollWidth} x ${seen.scrollHeight}`);
      assert.ok(m.smallest >= 16, `smallest figure text ${m.smallest}`);
      assert.equal(m.introShown, false);
      assert.equal(m.switchesShown, true, 'the switch stays on the slide');
      if (colorScheme === 'dark') assert.notEqual(m.background, 'rgb(255, 255, 255)');
      // The point's numbers are the drawn ones.
      const head = seen.maps[0];
      const [but, caught] = [rowOf(head, 'but → it'), rowOf(head, 'catch → it')];
      assert.ok(
        seen.point.startsWith(
          `Head 1 puts ${but[1].toFixed(2)} of "but" on "dog", ${caught[4].toFixed(2)} of "catch" on "ball"`,
        ),
        seen.point,
      );
      // The words the point names are labelled on the antecedent head's map, with the lecture's.
      for (const word of ['dog', 'ball', 'catch', 'it'])
        assert.ok(head.texts.includes(word), `"${word}" labelled: ${head.texts.join(' ')}`);
      const said = seen.point.match(/falls (\d\.\d\d) → (\d\.\d\d)/);
      assert.ok(said && seen.bars[0].texts.includes(said[1]) && seen.bars[0].texts.includes(said[2]), seen.point);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
