// Odd inputs on a slide (embed.html in a 1280x720 deck frame): heads that do not divide the width,
// lines of different lengths and an empty sentence keep the last good figures on screen (same
// pixels), say what is wrong, and offer the valid choices as buttons that fix it; a first load with
// an invalid configuration offers them too. A 40-word sentence fits the 16:9 frame on every panel
// it feeds; Japanese without spaces is split into words.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS, openSlide, settle } from './page-checks.js';

const web = chromiumAndWeb();
const openOddSlide = (query, size = [1280, 720], colorScheme = 'light') =>
  openSlide(web.browser, web.server.url, `embed.html?${query}`, size, { colorScheme });

// What the panel shows: its figures (count, a digest of their pixels), the odd-input box's text and buttons.
const LOOK = (panel) => {
  const host = document.querySelector('headwise-explorer');
  const section = host.shadowRoot.querySelector(`[data-panel="${panel}"]`);
  const canvases = [...section.querySelectorAll('.figures canvas:not([hidden])')];
  const digest = canvases.map((c) => {
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    let h = 0;
    for (let i = 0; i < data.length; i += 97) h = (h * 31 + data[i]) >>> 0;
    return `${c.width}x${c.height}:${h}`;
  });
  const box = section.querySelector('.odd-input');
  return {
    figures: canvases.length,
    digest,
    box: box ? box.innerText : null,
    buttons: box ? [...box.querySelectorAll('button')].map((b) => b.textContent) : [],
    tokens: [...host.shadowRoot.querySelectorAll('[data-panel="input"] .tokens li')].map((li) => li.textContent),
    state: host.getState(),
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    view: [innerWidth, innerHeight],
  };
};

const setOptions = async (frame, partial) => {
  await frame.evaluate((p) => document.querySelector('headwise-explorer').setOptions(p), partial);
  await settle(frame);
};
const choose = async (frame, panel, label) => {
  await frame.evaluate(
    ([id, text]) =>
      [
        ...document
          .querySelector('headwise-explorer')
          .shadowRoot.querySelectorAll(`[data-panel="${id}"] .odd-input button`),
      ]
        .find((b) => b.textContent === text)
        .click(),
    [panel, label],
  );
  await settle(frame);
};

describe('odd inputs on a slide', () => {
  test('heads that do not divide the width: the figures stay, the valid heads are buttons', async () => {
    const { context, page, frame, errors } = await openOddSlide('panel=heads');
    try {
      // The trained heads (the panel's default) load after the first render: the figures kept are theirs.
      await frame.waitForFunction(() => {
        const panel = document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-heads');
        return panel.dataset.headsWeights === 'trained';
      });
      const before = await frame.evaluate(LOOK, 'heads');
      assert.ok(before.figures > 0 && before.box === null);
      await setOptions(frame, { heads: 4 });
      const odd = await frame.evaluate(LOOK, 'heads');
      await page.screenshot({ path: `${ARTIFACTS}odd-heads-1280.png` });
      assert.deepEqual(odd.digest, before.digest, 'the last good figures are kept, pixel for pixel');
      assert.match(odd.box, /Width 6 cannot be split into 4 heads/);
      assert.match(odd.box, /Still showing the last input that worked: width 6, 2 heads\./);
      assert.deepEqual(odd.buttons, ['1 head', '2 heads', '3 heads', '6 heads']);
      assert.ok(odd.scroll[1] <= odd.view[1], `${odd.scroll[1]} px tall in ${odd.view[1]}`);
      await choose(frame, 'heads', '3 heads');
      const fixed = await frame.evaluate(LOOK, 'heads');
      assert.equal(fixed.state.heads, 3);
      assert.equal(fixed.box, null);
      assert.notDeepEqual(fixed.digest, before.digest, 'redrawn for 3 heads');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('lines of different lengths and an empty sentence: the figures stay, a button fixes it', async () => {
    const { context, page, frame, errors } = await openOddSlide('panel=steps');
    try {
      const before = await frame.evaluate(LOOK, 'steps');
      await setOptions(frame, { sentence: 'The dog chased the ball,\nbut it could not' });
      const odd = await frame.evaluate(LOOK, 'steps');
      await page.screenshot({ path: `${ARTIFACTS}odd-lines-1280.png` });
      assert.deepEqual(odd.digest, before.digest);
      assert.match(odd.box, /the same number of tokens; these have 6, 4/);
      assert.deepEqual(odd.buttons, ['Join the lines into one sentence', "Use the lecture's sentence"]);
      await choose(frame, 'steps', 'Join the lines into one sentence');
      const joined = await frame.evaluate(LOOK, 'steps');
      assert.equal(joined.state.sentence, 'The dog chased the ball, but it could not');
      assert.equal(joined.box, null);
      assert.ok(joined.figures > 0);
      await setOptions(frame, { sentence: '   ' });
      const empty = await frame.evaluate(LOOK, 'steps');
      assert.deepEqual(empty.digest, joined.digest);
      assert.match(empty.box, /The sentence is empty/);
      assert.deepEqual(empty.buttons, ["Use the lecture's sentence"]);
      await choose(frame, 'steps', "Use the lecture's sentence");
      assert.equal((await frame.evaluate(LOOK, 'steps')).box, null);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('a first load with width 6 and 4 heads offers 1, 2, 3, 6 heads; a click draws', async () => {
    const { context, page, frame, errors } = await openOddSlide('panel=heads&width=6&heads=4', [1280, 720], 'dark');
    try {
      const odd = await frame.evaluate(LOOK, 'heads');
      await page.screenshot({ path: `${ARTIFACTS}odd-first-load-1280-dark.png` });
      assert.equal(odd.figures, 0);
      assert.deepEqual(odd.buttons, ['1 head', '2 heads', '3 heads', '6 heads']);
      await choose(frame, 'heads', '6 heads');
      const fixed = await frame.evaluate(LOOK, 'heads');
      assert.equal(fixed.state.heads, 6);
      assert.ok(fixed.figures >= 6, `${fixed.figures} figures for 6 heads`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('a 40-word sentence fits the 16:9 frame on every panel it feeds', async () => {
    const words = Array.from({ length: 40 }, (_, i) => ['the', 'dog', 'chased', 'a', 'red', 'ball'][i % 6]);
    const sentence = encodeURIComponent(`${words.join(' ')}.`);
    for (const panel of ['input', 'steps', 'heads', 'loop']) {
      const { context, page, frame, errors } = await openOddSlide(`panel=${panel}&sentence=${sentence}`);
      try {
        const m = await frame.evaluate(LOOK, panel);
        await page.screenshot({ path: `${ARTIFACTS}odd-40-words-${panel}.png` });
        assert.equal(m.state.sentence.split(' ').length, 40);
        assert.equal(m.box, null);
        assert.ok(m.scroll[0] <= m.view[0] && m.scroll[1] <= m.view[1], `${panel}: ${m.scroll} in ${m.view}`);
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    }
  });

  test('Japanese without spaces is split into words (Intl.Segmenter)', async () => {
    const { context, page, frame } = await openOddSlide(
      `panel=input&sentence=${encodeURIComponent('猫が好きです')}`,
      [390, 844],
    );
    try {
      const m = await frame.evaluate(LOOK, 'input');
      await page.screenshot({ path: `${ARTIFACTS}odd-japanese-phone.png` });
      assert.deepEqual(m.tokens, ['猫', 'が', '好き', 'です']);
      assert.ok(m.figures > 0);
    } finally {
      await context.close();
    }
  });
});
