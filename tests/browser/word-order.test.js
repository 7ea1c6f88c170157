// The word-order panel as a reader meets it, on a 1280x720 slide (embed.html in a deck frame) and
// a phone, light and dark, and on the reveal deck's slide: the claim comes first and holds (each
// word the same in both sentences within the stated float32 bound, the words clearly apart); the
// mask is its own source of order and the panel says why (Haviv et al. 2022); the selector offers
// every kind the core lists, each drawn where it enters; at every setting the difference figure's
// printed numbers, its colours and the words agree. Screenshots: test-artifacts/word-order-*.png.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { serveDir, STRICT_CSP } from './static-server.js';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, openSlide, settle } from './page-checks.js';
import { loadHeadwise } from '../../web/headwise.js';

const web = chromiumAndWeb();
const KIND_INFO = (await loadHeadwise()).positionKinds();
const KINDS = KIND_INFO.map((kind) => kind.name);
// What the panel says of each of the lecture's kinds; of another kind it says what the core's `about` says.
const WHERE = {
  learned: /added to x before Wq, Wk, Wv\. P\(i\) \. P\(j\) follows no distance/,
  sinusoidal: /added to x before Wq, Wk, Wv\. P\(i\) \. P\(j\) depends only on \|i - j\|/,
  rope: /turns q and k.*V is untouched.*the scores stay \(max \|difference\| [\d.e-]+: float32 rounding\)/,
  alibi: /nothing enters x, q, k or v.*slopes m_h = 2\^\(-8h\/H\): 0\.0625, 0\.00391/,
};

const openOrderSlide = (size, colorScheme, { phone = false } = {}) =>
  openSlide(web.browser, web.server.url, `embed.html?panel=order&theme=${colorScheme}`, size, { colorScheme, phone });

// What the panel shows: texts, controls, and for the difference figure (the third map) each row's
// printed cell values and whether any of its cells is coloured (not the colour of 0).
const LOOK = async () => {
  const { textProblems } = await import('/explorer/figures/text-boxes.js');
  const section = document.querySelector('headwise-explorer').shadowRoot.querySelector('[data-panel="order"]');
  const canvases = [...section.querySelectorAll('.figures canvas:not([hidden])')];
  const figures = canvases.map((c) => c.headwiseFigure);
  const diff = figures[2];
  const grid = diff?.items.find((it) => it.kind === 'grid');
  const rows = [];
  if (grid) {
    for (let i = 0; i < grid.rows; i += 1) {
      const colours = grid.colours.slice(i * grid.cols, (i + 1) * grid.cols);
      const y0 = grid.y + i * grid.cellH;
      const printed = diff.items
        .filter((it) => it.kind === 'text' && it.y > y0 && it.y < y0 + grid.cellH && it.x > grid.x)
        .map((it) => it.text);
      rows.push({ colours, printed });
    }
  }
  const box = (sel) => section.querySelector(sel).getBoundingClientRect();
  // Figure text as drawn on screen (font size times the canvas's scale), and overlaps.
  const textSizes = canvases.flatMap((c) => {
    const scale = c.getBoundingClientRect().width / c.headwiseFigure.width;
    return c.headwiseFigure.items.filter((it) => it.kind === 'text').map((it) => it.size * scale);
  });
  return {
    claim: section.querySelector('.order-claim').innerText,
    claimData: { ...section.querySelector('.order-claim').dataset },
    claimTop: box('.order-claim').top,
    controlsTop: box('.controls').top,
    mask: section.querySelector('.order-mask').checked,
    kinds: [...section.querySelectorAll('.order-kind option')].map((o) => o.value),
    result: section.querySelector('.order-diff').innerText,
    value: Number(section.querySelector('.order-diff').dataset.value),
    why: section.querySelector('.order-why').innerText,
    verdicts: [...section.querySelectorAll('.order-verdicts li')].map((li) => li.innerText),
    titles: figures.map((f) => f.title),
    rows,
    minText: Math.min(...textSizes),
    textProblems: figures.flatMap((f) => textProblems(f).map((p) => `${f.title}: ${p}`)),
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    view: [innerWidth, innerHeight],
  };
};

async function choose(frame, { kind, mask }) {
  await frame.evaluate(
    ([k, m]) => {
      const section = document.querySelector('headwise-explorer').shadowRoot.querySelector('[data-panel="order"]');
      const select = section.querySelector('.order-kind');
      const box = section.querySelector('.order-mask');
      if (box.checked !== m) {
        box.checked = m;
        box.dispatchEvent(new Event('change'));
      }
      if (select.value !== k) {
        select.value = k;
        select.dispatchEvent(new Event('change'));
      }
    },
    [kind, mask],
  );
  await settle(frame);
}

// The neutral colour: a row of a word the verdicts call the same is all of it; otherwise the
// colour of 0 is asked from the page's own scale.
const NEUTRAL = () => import('/explorer/figures/colour-scale.js').then(({ diverging }) => diverging(0, 1));

function checkAgreement(look, neutral, setting) {
  assert.equal(look.rows.length, 4, `${setting}: the difference figure has a row per word`);
  look.rows.forEach((row, i) => {
    const changed = /^"[^"]+": changed/.test(look.verdicts[i]);
    const coloured = row.colours.some((c) => c !== neutral);
    assert.equal(coloured, changed, `${setting}: ${look.verdicts[i]} but coloured=${coloured}`);
    if (row.printed.length) {
      const nonZero = row.printed.some((t) => Number(t) !== 0);
      assert.equal(nonZero, changed, `${setting}: ${look.verdicts[i]} but printed ${row.printed.join(' ')}`);
    }
  });
}

describe('word order', () => {
  for (const [name, size, scheme, phone] of [
    ['slide-light', [1280, 720], 'light', false],
    ['slide-dark', [1280, 720], 'dark', false],
    ['phone-light', [390, 844], 'light', true],
    ['phone-dark', [390, 844], 'dark', true],
  ]) {
    test(`${name}: the claim first, the mask and every kind, numbers colours and words agreeing`, async () => {
      const { context, page, frame, errors } = await openOrderSlide(size, scheme, { phone });
      try {
        const neutral = await frame.evaluate(NEUTRAL);
        const first = await frame.evaluate(LOOK);
        // The claim, first and true, with its bound; the words clearly apart.
        assert.equal(first.mask, false, 'the mask starts off: the claim is what the panel first shows');
        assert.ok(first.claimTop < first.controlsTop, 'the claim stands above the controls');
        const { maxDiff, bound, wordGap } = first.claimData;
        assert.ok(Number(maxDiff) < Number(bound), `claim: ${maxDiff} within ${bound}`);
        assert.ok(Number(wordGap) > 0.3, `the words' outputs differ from each other by ${wordGap}`);
        assert.match(first.claim, /same in both sentences.*within float32 rounding \(at most [\d.e-]+/);
        assert.ok(first.value < Number(bound));
        assert.ok(
          first.verdicts.every((v) => v.endsWith(': the same vector.')),
          first.verdicts.join('\n'),
        );
        assert.deepEqual(first.kinds, KINDS);
        checkAgreement(first, neutral, 'none, no mask');
        if (!phone) assert.deepEqual(first.scroll, first.view, 'the slide fits its frame');
        await page.screenshot({ path: `${ARTIFACTS}word-order-${name}-claim.png` });

        // The mask as its own source of order, and why.
        await choose(frame, { kind: 'none', mask: true });
        const masked = await frame.evaluate(LOOK);
        assert.ok(masked.value > Number(bound) * 100, `mask on: ${masked.value}`);
        assert.match(masked.why, /sees only itself and the words before it/);
        assert.match(masked.why, /Haviv et al\. \(2022\)/);
        checkAgreement(masked, neutral, 'none, mask');

        for (const { name: kind, about } of KIND_INFO.filter((k) => k.entersAt !== 'nowhere')) {
          for (const mask of [false, true]) {
            await choose(frame, { kind, mask });
            const look = await frame.evaluate(LOOK);
            const setting = `${kind}, mask ${mask}`;
            assert.ok(WHERE[kind]?.test(look.why) ?? look.why.includes(about), `${setting}: ${look.why}`);
            assert.ok(look.value > Number(bound) * 100, `${setting}: ${look.value}`);
            assert.equal(look.titles.length, 5, `${setting}: outputs, difference and the kind's two maps`);
            assert.match(look.result, new RegExp(`^Mask ${mask ? 'on' : 'off'}`));
            checkAgreement(look, neutral, setting);
            if (!phone) {
              assert.deepEqual(look.scroll, look.view, `${setting}: fits the slide`);
              assert.ok(look.minText >= 11, `${setting}: smallest figure text ${look.minText.toFixed(1)} px`);
              assert.deepEqual(look.textProblems, [], setting);
            }
            if (!mask) await page.screenshot({ path: `${ARTIFACTS}word-order-${name}-${kind}.png` });
          }
        }
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }

  test("the deck's word-order slide: its title and its figure say the same", async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const server = await serveDir(root, { headers: { 'Content-Security-Policy': STRICT_CSP } });
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 720 } });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}examples/reveal/index.html#/4`);
      const slide = page.locator('.reveal .slides > section.present');
      await slide.locator('headwise-explorer[data-ready]').waitFor({ timeout: 30_000 });
      await page.waitForTimeout(300);
      const title = await slide.locator(':scope > h2').innerText();
      assert.match(title, /^Without positions or a mask, attention does not see word order$/);
      const look = await slide.locator('headwise-explorer').evaluate((host) => {
        const section = host.shadowRoot.querySelector('[data-panel="order"]');
        return {
          mask: section.querySelector('.order-mask').checked,
          kind: section.querySelector('.order-kind').value,
          value: Number(section.querySelector('.order-diff').dataset.value),
          bound: Number(section.querySelector('.order-claim').dataset.bound),
          verdicts: [...section.querySelectorAll('.order-verdicts li')].map((li) => li.innerText),
        };
      });
      assert.equal(look.mask, false);
      assert.equal(look.kind, 'none');
      assert.ok(look.value < look.bound, `the figure shows the same outputs: ${look.value} < ${look.bound}`);
      assert.ok(
        look.verdicts.every((v) => v.endsWith(': the same vector.')),
        look.verdicts.join('\n'),
      );
      await page.screenshot({ path: `${ARTIFACTS}word-order-deck.png` });
    } finally {
      await context.close();
      await server.close();
    }
  });
});
