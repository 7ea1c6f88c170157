// The input panel's "The lecture's sentence" button (issue 23): after typing another sentence, one
// click brings the lecture's back: the textarea holds it and the tokens drawn are its tokens again
// (the lecture's text is the sentence option's default, read from the options schema), in a page
// and on a 390 px phone embed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS } from './page-checks.js';
import { optionRow } from '../../web/explorer/options.js';
import { sentenceBatch, DEFAULT_TOKEN_LIMIT } from '../../web/explorer/lecture/tokenizer.js';

const web = chromiumAndWeb();
const LECTURE = optionRow('sentence').fallback;

const tokensShown = (page) =>
  page
    .locator('headwise-explorer')
    .evaluate((host) =>
      [...host.shadowRoot.querySelectorAll('[data-panel="input"] ol.tokens')].map((ol) =>
        [...ol.querySelectorAll('li')].map((li) => li.textContent),
      ),
    );
// Waits until the input panel draws these tokens (at most 10 s), then returns what it draws.
const tokensBecome = async (page, want) => {
  await page
    .waitForFunction(
      (expected) =>
        JSON.stringify(
          [
            ...document
              .querySelector('headwise-explorer')
              .shadowRoot.querySelectorAll('[data-panel="input"] ol.tokens'),
          ].map((ol) => [...ol.querySelectorAll('li')].map((li) => li.textContent)),
        ) === expected,
      JSON.stringify(want),
      { timeout: 10_000 },
    )
    .catch(() => {});
  return tokensShown(page);
};

for (const [name, url, viewport] of [
  ['index.html', 'index.html?panel=input', { width: 1280, height: 900 }],
  ['a phone embed', 'embed.html?panel=input', { width: 390, height: 844 }],
]) {
  test(`${name}: "The lecture's sentence" brings its tokens back after another sentence`, async () => {
    const context = await web.browser.newContext({ viewport });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(`${web.server.url}${url}`);
      await page.waitForFunction(() => document.querySelector('headwise-explorer')?.dataset.ready === 'true');
      const lecture = sentenceBatch(LECTURE, DEFAULT_TOKEN_LIMIT).sentences;
      assert.deepEqual(await tokensShown(page), lecture, 'the page starts with the lecture sentence');
      const button = page.locator('headwise-explorer [data-panel="input"] button.default-sentence');
      assert.equal(await button.isDisabled(), true, 'nothing to bring back yet');

      const textarea = page.locator('headwise-explorer [data-panel="input"] textarea');
      await textarea.fill('a cat sat on the mat');
      const cat = [['a', 'cat', 'sat', 'on', 'the', 'mat']];
      assert.deepEqual(await tokensBecome(page, cat), cat);
      assert.equal(await button.isDisabled(), false);
      const box = await button.boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= viewport.width && box.height >= 30, JSON.stringify(box));

      await button.click();
      assert.deepEqual(await tokensBecome(page, lecture), lecture, "the lecture's tokens again");
      assert.equal(await textarea.inputValue(), LECTURE);
      assert.equal(await page.evaluate(() => document.querySelector('headwise-explorer').options.sentence), LECTURE);
      assert.equal(await button.isDisabled(), true);
      await page.screenshot({ path: `${ARTIFACTS}default-sentence-${viewport.width}.png` });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
