// The heads panel's story section (issue 33): on the lecture's sentence (the page's default) the
// shipped story model's 4 maps are drawn, each titled by the role the core measured; the text says
// every word was known; from "but" the antecedent head's brightest drawn cell is "dog" and from
// "catch" it is "ball", and the numbers the text gives are the drawn cells' values; the ablation
// switch (on the antecedent head by default) gives which skill falls and which stays, in numbers,
// and another head's switch changes them. A typed sentence with a word outside the vocabulary has
// it marked unknown, left out of the maps (never read as another word).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS } from './page-checks.js';

const web = chromiumAndWeb();

const READ = () => {
  const panel = document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-heads');
  const story = panel.querySelector('.story-heads');
  const maps = [...story.querySelectorAll('.story-maps > canvas:not([hidden])')].map((canvas) => {
    const cells = canvas.headwiseFigure.heatmaps[0];
    return { title: canvas.headwiseFigure.title, labels: cells.colLabels, c: cells.c, mean: [...cells.mean] };
  });
  return {
    reading: story.querySelector('.story-reading').textContent,
    unknown: [...story.querySelectorAll('.story-token.unknown')].map((s) => s.textContent),
    vocabulary: story.querySelector('.story-vocabulary summary')?.textContent ?? '',
    rows: story.querySelector('.story-rows').textContent,
    switches: [...story.querySelectorAll('.story-switch')].map((b) => [b.textContent, b.getAttribute('aria-pressed')]),
    ablation: story.querySelector('.story-ablation').textContent,
    maps,
  };
};

async function open(query) {
  const context = await web.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${web.server.url}${query}`);
  await page.waitForFunction(
    () =>
      document
        .querySelector('headwise-explorer')
        ?.shadowRoot?.querySelectorAll('#panel-heads .story-maps > canvas:not([hidden])').length === 4,
    null,
    { timeout: 60_000 },
  );
  return { context, page, errors, read: () => page.evaluate(READ) };
}

// Named heads, 'but' -> dog and 'catch' -> ball drawn and said, the ablation in numbers.
test("the lecture's sentence read by the story model", async () => {
  const { context, page, errors, read } = await open('index.html?panel=heads');
  try {
    const seen = await read();
    await page
      .locator('headwise-explorer #panel-heads .story-heads')
      .screenshot({ path: `${ARTIFACTS}story-heads.png` });
    assert.match(seen.reading, /story-4-heads: 1 layer of 4 heads of 16, trained 3000 steps/);
    assert.match(seen.reading, /every word is in its vocabulary/);
    assert.deepEqual(seen.unknown, []);
    assert.match(seen.vocabulary, /^Its vocabulary \(338 words\)$/);
    const titles = seen.maps.map((m) => m.title);
    assert.deepEqual(titles, [
      'head 1: possessive antecedent',
      'head 2: name copy',
      'head 3: name copy',
      'head 4: name copy',
    ]);
    const words = seen.maps[0].labels;
    assert.deepEqual(words, 'the dog chased the ball , but it could not catch it'.split(' '));
    // Head 1's drawn rows: the brightest cell from "but" is "dog", from "catch" "ball".
    const head = seen.maps[0];
    const row = (q) => head.mean.slice(q * head.c, (q + 1) * head.c);
    const top = (q) => row(q).reduce((best, v, j, r) => (v > r[best] ? j : best), 0);
    const [BUT, CATCH] = [words.indexOf('but'), words.indexOf('catch')];
    assert.equal(words[top(BUT)], 'dog');
    assert.equal(words[top(CATCH)], 'ball');
    assert.ok(row(BUT)[1] > 0.8 && row(CATCH)[4] > 0.8, JSON.stringify([row(BUT), row(CATCH)]));
    // The text gives the drawn values.
    assert.ok(seen.rows.includes(`From "but" (before "it"): head 1 ${row(BUT)[1].toFixed(2)} on "dog"`), seen.rows);
    assert.ok(
      seen.rows.includes(`From "catch" (before "it"): head 1 ${row(CATCH)[4].toFixed(2)} on "ball"`),
      seen.rows,
    );
    // Ablation: head 1 switched off by default; the possessive falls, the name copy stays.
    assert.deepEqual(
      seen.switches.map(([, pressed]) => pressed),
      ['true', 'false', 'false', 'false'],
    );
    assert.match(
      seen.ablation,
      /^Without head 1 \(possessive antecedent\), falls: .*possessive 0\.99 -> 0\.55.*; stays: .*name copy 0\.92/,
    );
    await page.locator('headwise-explorer #panel-heads .story-switch').nth(1).click();
    const other = await read();
    assert.deepEqual(
      other.switches.map(([, pressed]) => pressed),
      ['false', 'true', 'false', 'false'],
    );
    assert.match(other.ablation, /^Without head 2 \(name copy\), nothing falls; stays: subject pronoun 0\.96/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a typed sentence: a word outside the vocabulary is marked unknown and left out of the maps', async () => {
  const sentence = encodeURIComponent('The girl kicked the frisbee and she found her bone');
  const { context, errors, read } = await open(`index.html?panel=heads&sentence=${sentence}`);
  try {
    const seen = await read();
    assert.deepEqual(seen.unknown, ['frisbee']);
    assert.match(seen.reading, /1 unknown \(not in its vocabulary: "frisbee"\), left out/);
    assert.ok(!seen.maps[0].labels.includes('frisbee'));
    assert.deepEqual(seen.maps[0].labels.slice(0, 4), ['the', 'girl', 'kicked', 'the']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
