// The reveal.js example deck (examples/reveal/) in Chromium at 1280x720, the repository's root
// served as the site (reveal.js from node_modules, the panels from web/) under the strict CSP:
// eight slides, each one's figures drawn inside it, panels as iframes (embed.html) and as
// <headwise-explorer> elements; reveal.js fragments walk the five steps by postMessage; the Learn
// panel trains on its slide only; the arrows move the deck after a click inside a panel and stay in
// a text field; the print view (?print-pdf) draws every figure, one page per slide and fragment.
// Screenshots: test-artifacts/reveal-slide-1.png ... -7.png, reveal-print-page-N.png, reveal-deck.pdf.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.js';
import { serveDir, STRICT_CSP } from './static-server.js';
import { ARTIFACTS, watchPage } from './page-checks.js';
import { assertPinnedDevDependencies, pressOnAndBack, STAGES as STEPS } from './deck-checks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DECK = 'examples/reveal/index.html';
const VIEWPORT = { width: 1280, height: 720 };
// What each slide shows: a title, or its panel and how it is embedded.
const SLIDES = [
  null,
  { panel: 'why', as: 'iframe' },
  { panel: 'steps', as: 'iframe' },
  { panel: 'heads', as: 'iframe' },
  { panel: 'order', as: 'element' },
  { panel: 'learn', as: 'iframe' },
  { panel: 'story', as: 'iframe' },
  { panel: 'kv', as: 'iframe' },
  { panel: 'input', as: 'element' },
];

let browser;
let server;

before(async () => {
  browser = await launchChromium();
  server = await serveDir(ROOT, { headers: { 'Content-Security-Policy': STRICT_CSP } });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function openDeck(suffix = '') {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  const problems = watchPage(page, [server.url, 'data:', 'blob:', 'about:'], { warnings: true });
  await page.goto(`${server.url}${DECK}${suffix}`);
  return { page, context, problems };
}

/** The slide on screen (1-based), once reveal.js's transition has put it in place. */
async function waitForSlide(page, n, timeout = 30_000) {
  await page.waitForFunction(
    (index) => {
      const slides = document.querySelectorAll('.reveal .slides > section');
      const box = slides[index]?.getBoundingClientRect();
      return slides[index]?.classList.contains('present') && Math.abs(box.left) < 1 && Math.abs(box.top) < 1;
    },
    n - 1,
    // Generous: on a loaded machine (CI's 2 cores) opening the deck on a slide can take over 10 s.
    { timeout },
  );
}

/**
 * The open deck goes to slide n by its address. reveal.js writes the hash up to a second after a
 * move (a debounced replaceState): a write still pending can land between the goto and reveal.js's
 * reading of the hash, which then names the slide it is on, and it stays there (a CI run waited
 * 30 s for such a slide, the press before having come a second earlier). So first the hash is let
 * catch up with the present slide (slides have no ids: reveal.js writes #/index, or none on the
 * first); should it not within 3 s, going again once the write is out lands.
 */
async function goToSlide(page, n) {
  await page
    .waitForFunction(
      () => {
        const slide = document.querySelector('.reveal .slides > section.present');
        return Number(/^#\/(\d+)/.exec(location.hash)?.[1] ?? 0) === [...slide.parentNode.children].indexOf(slide);
      },
      null,
      { timeout: 3_000 },
    )
    .catch(() => {});
  for (const end = Date.now() + 60_000; ;) {
    // A goto to the address the page has already is no navigation at all: clear a stale hash first.
    await page.evaluate(() => history.replaceState(null, '', location.pathname));
    await page.goto(`${server.url}${DECK}#/${n - 1}`);
    const left = end - Date.now();
    try {
      return await waitForSlide(page, n, Math.max(Math.min(left, 5_000), 1));
    } catch (error) {
      const at = `slide ${await presentSlide(page)}, hash "${await page.evaluate(() => location.hash)}"`;
      if (Date.now() >= end)
        throw new Error(`slide ${n} not reached by its address (the deck at ${at})`, { cause: error });
      console.log(`# slide ${n} not reached by its address (the deck at ${at}): going again`);
    }
  }
}

const presentSlide = (page) =>
  page.evaluate(
    () => [...document.querySelectorAll('.reveal .slides > section')].findIndex((s) => s.matches('.present')) + 1,
  );
// Where the deck is: the present slide and its fragments shown. Not the hash, which reveal.js
// writes at most once a second (its debounced replaceState): waiting for it took a second a press.
const deckPlace = () => {
  const slide = document.querySelector('.reveal .slides > section.present');
  return `${[...slide.parentNode.children].indexOf(slide)}/${slide.querySelectorAll('.fragment.visible').length}`;
};
const DECK_KEYS = { shown: presentSlide, waitFor: waitForSlide, place: deckPlace };

/**
 * What slide n's panel shows once drawn: the host's box, the heading's, and for each canvas of the
 * shown panel its box in the deck's viewport and how many colours it has (1: blank).
 */
async function panelOn(page, n) {
  const { panel, as } = SLIDES[n - 1];
  const slide = page.locator('.reveal .slides > section').nth(n - 1);
  const host = slide.locator(as === 'iframe' ? 'iframe' : 'headwise-explorer');
  const root = as === 'iframe' ? await (await host.elementHandle()).contentFrame() : null;
  const element = as === 'iframe' ? root.locator('headwise-explorer') : host;
  await (
    as === 'iframe' ? root.locator('headwise-explorer[data-ready]') : slide.locator('headwise-explorer[data-ready]')
  ).waitFor({ timeout: 30_000 });
  const offset = as === 'iframe' ? await host.boundingBox() : { x: 0, y: 0 };
  const canvases = await element.evaluate((el, id) => {
    const section = el.shadowRoot.querySelector(`[data-panel="${id}"]`);
    return [...section.querySelectorAll('canvas:not([hidden])')].map((canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const colours = new Set();
      for (let i = 0; i < data.length && colours.size < 64; i += 4 * 7)
        colours.add((data[i] << 24) | (data[i + 1] << 16) | (data[i + 2] << 8) | data[i + 3]);
      const { x, y, width, height } = canvas.getBoundingClientRect();
      return { x, y, width, height, colours: colours.size };
    });
  }, panel);
  return {
    host: await host.boundingBox(),
    heading: await slide.locator(':scope > h2').boundingBox(),
    canvases: canvases.map((c) => ({ ...c, x: c.x + offset.x, y: c.y + offset.y })),
    shown: await element.evaluate((el) => el.getState().panel),
  };
}

function assertDrawnInSlide(n, { host, heading, canvases, shown }) {
  const { panel } = SLIDES[n - 1];
  assert.equal(shown, panel, `slide ${n} shows its panel`);
  const inside = (box) => box.x >= -0.5 && box.y >= -0.5 && box.x + box.width <= 1280.5 && box.y + box.height <= 720.5;
  assert.ok(inside(host), `slide ${n}: the panel lies within the slide: ${JSON.stringify(host)}`);
  assert.ok(heading.y + heading.height <= host.y + 0.5, `slide ${n}: the heading is above the panel, not over it`);
  assert.ok(host.height > 400 && host.width > 1100, `slide ${n}: the panel fills the slide: ${JSON.stringify(host)}`);
  assert.ok(canvases.length > 0, `slide ${n}: ${panel} has figures`);
  for (const [i, c] of canvases.entries()) assert.ok(c.colours > 2, `slide ${n}: figure ${i + 1} is drawn`);
  // Every figure shown is wholly on the slide, where the audience sees it (not cut by its bottom).
  for (const [i, c] of canvases.entries()) {
    if (c.width === 0 || c.height === 0) continue; // in a closed <details>
    const box = JSON.stringify(c);
    assert.ok(
      c.y >= host.y - 0.5 && c.y + c.height <= host.y + host.height + 0.5,
      `slide ${n}: figure ${i + 1} ${box}`,
    );
    assert.ok(c.x >= host.x - 0.5 && c.x + c.width <= host.x + host.width + 0.5, `slide ${n}: figure ${i + 1} ${box}`);
  }
}

/** Asks slide n's embed (a request of its postMessage protocol, as any deck could). */
function ask(page, n, method, params) {
  return page.evaluate(
    ({ index, method, params }) => {
      const frame = document.querySelectorAll('.reveal .slides > section')[index].querySelector('iframe');
      const id = `test-${method}-${performance.now()}`;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${method}: no reply`)), 5000);
        addEventListener('message', function onReply(event) {
          if (event.source !== frame.contentWindow || event.data?.id !== id) return;
          removeEventListener('message', onReply);
          clearTimeout(timer);
          if (event.data.ok) resolve(event.data.result);
          else reject(new Error(event.data.error));
        });
        frame.contentWindow.postMessage({ headwise: 1, id, method, params }, location.origin);
      });
    },
    { index: n - 1, method, params },
  );
}

async function stepShown(page, n) {
  const frame = await (
    await page
      .locator('.reveal .slides > section')
      .nth(n - 1)
      .locator('iframe')
      .elementHandle()
  ).contentFrame();
  return frame.locator('[data-panel="steps"] .steps > li.current strong').innerText();
}

async function waitForStep(page, n, name) {
  const frame = await (
    await page
      .locator('.reveal .slides > section')
      .nth(n - 1)
      .locator('iframe')
      .elementHandle()
  ).contentFrame();
  await frame
    .locator(`[data-panel="steps"] .steps > li.current strong:text-is("${name}")`)
    .waitFor({ state: 'attached', timeout: 10_000 }); // on a slide the list waits behind Details
}

async function waitForTraining(page, n, test) {
  const deadline = Date.now() + 30_000;
  let state;
  while (Date.now() < deadline) {
    state = await ask(page, n, 'getTraining');
    if (test(state)) return state;
    await page.waitForTimeout(100);
  }
  throw new Error(`training never reached the state wanted: ${JSON.stringify(state)}`);
}

/** Slide n's panel once drawn and (an embed) forwarding keys, then a click inside it: focus leaves the deck. */
async function clickIntoPanel(page, n) {
  const { panel, as } = SLIDES[n - 1];
  await panelOn(page, n);
  const slide = page.locator('.reveal .slides > section').nth(n - 1);
  if (as === 'iframe') {
    await slide.locator('iframe[data-headwise-keys="forwarded"]').waitFor({ timeout: 30_000 });
    const frame = await (await slide.locator('iframe').elementHandle()).contentFrame();
    await frame.locator(`[data-panel="${panel}"]`).click({ position: { x: 4, y: 4 } });
    assert.equal(
      await page.evaluate(() => document.activeElement?.tagName),
      'IFRAME',
      `slide ${n}: focus in the frame`,
    );
  } else {
    await slide.locator(`headwise-explorer [data-panel="${panel}"]`).click({ position: { x: 4, y: 4 } });
  }
}

describe('the reveal.js example deck', () => {
  test('reveal.js is a pinned dev dependency only: not in the package, installed by npm ci', async () => {
    await assertPinnedDevDependencies(['reveal.js'], /reveal|examples\//i);
  });

  test('eight slides with their figures; fragments walk the five steps; Learn trains on its slide', async () => {
    const { page, context, problems } = await openDeck();
    try {
      assert.equal(await page.locator('.reveal .slides > section').count(), SLIDES.length);
      await waitForSlide(page, 1);
      await page.screenshot({ path: `${ARTIFACTS}reveal-slide-1.png` });
      for (let n = 2; n <= SLIDES.length; n += 1) {
        await page.keyboard.press('ArrowRight');
        await waitForSlide(page, n);
        assertDrawnInSlide(n, await panelOn(page, n));
        if (SLIDES[n - 1].panel === 'steps') {
          // Each press shows the next fragment, and the embed goes to its step.
          await waitForStep(page, n, STEPS[0]);
          for (let s = 1; s < STEPS.length; s += 1) {
            await page.keyboard.press('ArrowRight');
            await waitForStep(page, n, STEPS[s]);
            assert.equal(await presentSlide(page), n, 'fragments first, then the next slide');
          }
          assertDrawnInSlide(n, await panelOn(page, n));
        }
        if (SLIDES[n - 1].panel === 'learn') {
          const started = await waitForTraining(page, n, (t) => t.state === 'training' && t.step > 0);
          // Left: paused, and it stays where it was.
          await page.keyboard.press('ArrowRight');
          await waitForSlide(page, n + 1);
          const left = await ask(page, n, 'getTraining');
          assert.equal(left.state, 'paused', 'paused when its slide is left');
          await page.waitForTimeout(1000);
          assert.equal((await ask(page, n, 'getTraining')).step, left.step, 'no training while away');
          await page.keyboard.press('ArrowLeft');
          await waitForSlide(page, n);
          const done = await waitForTraining(page, n, (t) => t.state === 'done');
          console.log(
            `# Learn: started at step ${started.step}, paused at ${left.step}, done at ${done.step}: ${done.verdict}`,
          );
          assert.ok(done.step > left.step, 'training resumed on coming back');
          assertDrawnInSlide(n, await panelOn(page, n));
        }
        await page.screenshot({ path: `${ARTIFACTS}reveal-slide-${n}.png` });
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('opened on a fragment, the embed shows its step; back into the slide, all of them', async () => {
    const { page, context, problems } = await openDeck('#/2/0/2');
    try {
      await waitForSlide(page, 3);
      await waitForStep(page, 3, 'merge');
      await page.keyboard.press('ArrowLeft');
      await waitForStep(page, 3, 'attend');
      for (let i = 0; i < 3; i += 1) await page.keyboard.press('ArrowRight');
      await waitForSlide(page, 4);
      await page.keyboard.press('ArrowLeft');
      await waitForSlide(page, 3);
      await waitForStep(page, 3, 'out-project');
      assert.equal((await ask(page, 3, 'getState')).stepName, 'out-project');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the keyboard stays with reveal.js after a click in a panel, and with a text field while typing', async () => {
    const { page, context, problems } = await openDeck('#/1');
    try {
      await waitForSlide(page, 2);
      await panelOn(page, 2);
      await page.locator('.present iframe[data-headwise-keys="forwarded"]').waitFor({ timeout: 30_000 });
      // An embed: focus goes into the iframe, where the deck's own keydown cannot hear the keys.
      const frame = await (await page.locator('.present iframe').elementHandle()).contentFrame();
      await frame.locator('[data-panel="why"] .point').click();
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'IFRAME');
      await page.keyboard.press('ArrowRight');
      await waitForSlide(page, 3);
      await panelOn(page, 3);
      await page.locator('.present iframe[data-headwise-keys="forwarded"]').waitFor({ timeout: 30_000 });
      const steps = await (await page.locator('.present iframe').elementHandle()).contentFrame();
      await steps.locator('[data-panel="steps"] .point').click();
      await page.keyboard.press('ArrowRight');
      await waitForStep(page, 3, 'split');
      await page.keyboard.press('ArrowLeft');
      await waitForStep(page, 3, 'project');
      await page.keyboard.press('ArrowLeft');
      await waitForSlide(page, 2);

      // An element in the deck's page: a click inside its shadow root, then the arrows.
      await goToSlide(page, 5);
      await panelOn(page, 5);
      // At the point's first words, away from the slide's controls (the mask and the kinds, just
      // below it): a click that landed on one would focus it, and its arrows are its own.
      await page
        .locator('.present headwise-explorer')
        .locator('[data-panel="order"] .point')
        .click({ position: { x: 4, y: 4 } });
      const focused = await page.evaluate(() => {
        const active = document.activeElement;
        return (active?.shadowRoot?.activeElement ?? active)?.tagName;
      });
      assert.ok(!['INPUT', 'SELECT', 'TEXTAREA'].includes(focused), `the click focused a ${focused}`);
      await page.keyboard.press('ArrowRight');
      await waitForSlide(page, 6);

      // In the last slide's sentence field the arrows and Space edit the text; the deck stays.
      const last = SLIDES.length;
      await goToSlide(page, last);
      await panelOn(page, last);
      const sentence = page.locator('.present headwise-explorer').locator('textarea');
      await sentence.fill('one head');
      await sentence.press('ArrowLeft');
      await sentence.press('ArrowLeft');
      await sentence.press('Space');
      await sentence.press('ArrowRight');
      await page.waitForTimeout(300);
      assert.equal(await sentence.inputValue(), 'one he ad');
      assert.equal(await presentSlide(page), last, 'typing did not move the deck');
      await page.locator('.present > h2').click(); // out of the field: the arrows move the deck again
      await page.keyboard.press('ArrowLeft');
      await waitForSlide(page, last - 1);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('after a click inside any panel, the arrows and Space move the deck on, then back', async () => {
    const { page, context, problems } = await openDeck();
    try {
      for (let n = 2; n <= SLIDES.length; n += 1) {
        await goToSlide(page, n);
        await clickIntoPanel(page, n);
        await pressOnAndBack(page, n, SLIDES.length, DECK_KEYS, { through: n === 2 });
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('print view (?print-pdf): the figures of every page drawn, one page per slide and per step', async () => {
    const { page, context, problems } = await openDeck('?print-pdf');
    try {
      const t0 = Date.now();
      await page.waitForSelector('html[data-headwise-print]', { timeout: 120_000 });
      console.log(`# print view ready in ${Date.now() - t0} ms`);
      assert.equal(await page.evaluate(() => document.documentElement.dataset.headwisePrint), 'ready');
      const pages = await page.evaluate(() =>
        [...document.querySelectorAll('.reveal .pdf-page')].map((p) => {
          const box = p.getBoundingClientRect();
          return { top: box.top + scrollY, height: box.height, width: box.width };
        }),
      );
      const stepPages = STEPS.length - 1; // the steps slide's page is copied once per fragment
      assert.equal(pages.length, SLIDES.length + stepPages);
      let pageIndex = 0;
      const seenSteps = [];
      for (const [s, slide] of SLIDES.entries()) {
        const copies = slide?.panel === 'steps' ? STEPS.length : 1;
        for (let c = 0; c < copies; c += 1, pageIndex += 1) {
          const box = pages[pageIndex];
          assert.ok(Math.abs(box.width - 1280) < 1 && Math.abs(box.height - 720) < 2, JSON.stringify(box));
          if (!slide) continue;
          // This page's panel, its canvases drawn and inside the page.
          const figures = await page.evaluate(
            async ({ index, panel }) => {
              const host = document
                .querySelectorAll('.reveal .pdf-page')
                [index].querySelector('iframe, headwise-explorer');
              const element = host.matches('iframe') ? host.contentDocument.querySelector('headwise-explorer') : host;
              const offset = host.matches('iframe') ? host.getBoundingClientRect() : { left: 0, top: 0 };
              const section = element.shadowRoot.querySelector(`[data-panel="${panel}"]`);
              const step = section.querySelector('.steps > li.current strong')?.textContent ?? null;
              return {
                step,
                host: host.getBoundingClientRect().toJSON(),
                canvases: [...section.querySelectorAll('canvas:not([hidden])')].map((canvas) => {
                  const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
                  const colours = new Set();
                  for (let i = 0; i < data.length && colours.size < 64; i += 4 * 7)
                    colours.add((data[i] << 24) | (data[i + 1] << 16) | (data[i + 2] << 8) | data[i + 3]);
                  const box = canvas.getBoundingClientRect();
                  return { top: box.top + offset.top, left: box.left + offset.left, colours: colours.size };
                }),
              };
            },
            { index: pageIndex, panel: slide.panel },
          );
          const where = `page ${pageIndex + 1} (slide ${s + 1}, ${slide.panel})`;
          assert.ok(figures.canvases.length > 0, `${where}: figures`);
          for (const c of figures.canvases) assert.ok(c.colours > 2, `${where}: a figure is blank`);
          const pageTop = box.top - (await page.evaluate(() => scrollY));
          const first = figures.canvases[0];
          assert.ok(
            first.top >= pageTop && first.top + 40 < pageTop + box.height,
            `${where}: first figure on its page`,
          );
          if (slide.panel === 'steps') seenSteps.push(figures.step);
          if (slide.panel === 'learn') {
            const training = await page.evaluate(
              (index) =>
                document
                  .querySelectorAll('.reveal .pdf-page')
                  [index].querySelector('iframe')
                  .contentDocument.querySelector('headwise-explorer')
                  .trainingState(),
              pageIndex,
            );
            console.log(`# print: Learn page at training step ${training.step} (${training.state})`);
            assert.equal(training.state, 'done', 'printed after training');
            const { min, max } = training.steps; // trained until settled, between these
            assert.ok(training.step >= min && training.step <= max, `step ${training.step} in [${min}, ${max}]`);
          }
        }
      }
      assert.deepEqual(seenSteps, STEPS, 'the steps slide prints once per step');
      for (let n = 1; n <= pages.length; n += 1) {
        await page.evaluate((top) => scrollTo(0, top), pages[n - 1].top);
        await page.screenshot({ path: `${ARTIFACTS}reveal-print-page-${n}.png` });
      }
      await page.evaluate(() => scrollTo(0, 0));
      const note = page.locator('.headwise-print-note');
      assert.match(await note.innerText(), /^Every figure is drawn: print now/);
      await page.emulateMedia({ media: 'print' });
      assert.equal(await note.isVisible(), false, 'the note is not printed');
      const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
      await writeFile(`${ARTIFACTS}reveal-deck.pdf`, pdf);
      const text = pdf.toString('latin1');
      // The page tree's root counts every page (the other /Pages nodes count their part of it).
      const counts = [...text.matchAll(/\/Type\s*\/Pages\s*\/Count\s+(\d+)/g)].map((m) => Number(m[1]));
      const images = (text.match(/\/Subtype\s*\/Image/g) ?? []).length;
      console.log(`# PDF: ${pdf.length} bytes, ${Math.max(...counts)} pages, ${images} images`);
      assert.equal(Math.max(...counts), pages.length, 'one PDF page per printed page');
      const mediaBoxes = [...text.matchAll(/\/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]/g)].map(
        (m) => `${m[1]}x${m[2]}`,
      );
      assert.deepEqual([...new Set(mediaBoxes)], ['960x540'], '16:9 pages: 1280 x 720 px at 96 dpi');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
