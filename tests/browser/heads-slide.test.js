// The "GPT-2 small: 12 heads of 64" slide tells its lesson: the 12 head maps get the space. Measured
// in the embed's own document (what the audience sees), on the decks' heads slides (reveal.js and
// Slidev, at 1280x720) and in a 1280x720 iframe: every map's grid of cells at least MAP_PX px on each
// side, the figure text (text-boxes.js sizes times the canvas's scale on screen) at least 11 px with a
// median of at least 14 px, no two figures on each other or on the text, text boxes apart, nothing
// outside the frame. The W_out mixing figure is a button away, and then it is as readable. On a
// 390x844 phone no figure text is under 11 px, with or without the mixing figure, and nothing is
// wider than the screen. The lecture's 2-head panel keeps its product figure beside its maps.
// Screenshots: test-artifacts/heads-slide-*.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.js';
import { serveDir, STRICT_CSP, WEB_DIR } from './static-server.js';
import { ARTIFACTS, openInDeck, twoFrames } from './page-checks.js';
import { until } from '../js/until.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SITE = `${ROOT}build/site/`;
const MAP_PX = 130; // the side of a head map's cells on a 1280x720 slide
// reveal.js draws the 1280x720 slide at 0.95 (its margin) and its heading takes 90 px: the heads
// iframe is 1148x613 px, and the maps have about 0.85 of a full frame's height.
const MAP_PX_REVEAL = 115;
const TOGGLE = '[data-panel="heads"] button.mix-toggle';
const TRAINED_TOGGLE = '[data-panel="heads"] button.trained-toggle';

let browser;
const servers = {};

before(async () => {
  browser = await launchChromium();
  servers.web = await serveDir(WEB_DIR, { headers: { 'Content-Security-Policy': STRICT_CSP } });
  servers.root = await serveDir(ROOT, { headers: { 'Content-Security-Policy': STRICT_CSP } });
  if (existsSync(`${SITE}examples/slidev/index.html`))
    servers.site = await serveDir(SITE, { headers: { 'Content-Security-Policy': STRICT_CSP } });
});

after(async () => {
  await browser?.close();
  for (const server of Object.values(servers)) await server.close();
});

// The measuring code is the explorer's own text-boxes.js, served on every origin under one path
// (the static site has no sources): the figures folder's modules, which import each other.
async function newPage(viewport, { isMobile = false, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport, isMobile, hasTouch: isMobile, colorScheme });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route(/\/__headwise-test\/[a-z-]+\.js$/, async (route) => {
    const name = /\/__headwise-test\/([a-z-]+\.js)$/.exec(route.request().url())[1];
    route.fulfill({
      contentType: 'text/javascript',
      body: await readFile(`${WEB_DIR}explorer/figures/${name}`, 'utf8'),
    });
  });
  return { context, page, errors };
}

// In the embed's document: every shown canvas of the heads panel (the maps: those of the grid), the
// text drawn on it at its size on screen, the boxes of the panel's text blocks, and what overlaps or
// leaves the frame.
const MEASURE = async () => {
  const { textProblems } = await import('/__headwise-test/text-boxes.js');
  const host = document.querySelector('headwise-explorer');
  const section = host.shadowRoot.querySelector('[data-panel="heads"]');
  const shown = (e) => e.getClientRects().length > 0;
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const canvases = [...section.querySelectorAll('canvas:not([hidden])')].filter(shown);
  const maps = [];
  const texts = [];
  const problems = [];
  const figures = canvases.map((canvas) => {
    const figure = canvas.headwiseFigure;
    const scale = canvas.getBoundingClientRect().width / figure.width;
    const isMap = canvas.parentElement.classList.contains('grid');
    for (const it of figure.items)
      if (it.kind === 'text' && it.text.trim()) texts.push({ size: it.size * scale, text: it.text, in: figure.title });
    if (isMap) {
      const grid = figure.items.find((it) => it.kind === 'grid');
      maps.push({ width: grid.cols * grid.cellW * scale, height: grid.rows * grid.cellH * scale });
    }
    problems.push(...textProblems(figure).map((p) => `${figure.title}: ${p}`));
    return { name: isMap ? figure.title : `figure "${figure.title}"`, element: canvas, ...box(canvas) };
  });
  const blocks = [
    ...section.querySelectorAll(
      ':scope > :is(h2, .intro, .status, .panel-body), .mixing, .learned > .controls, button.mix-toggle',
    ),
  ]
    .filter(shown)
    .map((e) => ({ name: e.className || e.localName, element: e, ...box(e) }));
  const apart = (a, b) =>
    Math.min(a.right, b.right) - Math.max(a.left, b.left) < 1 ||
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) < 1;
  const overlaps = [];
  const all = [...figures, ...blocks];
  for (let i = 0; i < all.length; i += 1)
    for (let j = i + 1; j < all.length; j += 1) {
      const nested = all[i].element.contains(all[j].element) || all[j].element.contains(all[i].element);
      if (!nested && !apart(all[i], all[j])) overlaps.push(`${all[i].name} on ${all[j].name}`);
    }
  for (const b of all) delete b.element;
  const outside = all
    .filter((b) => b.left < -0.5 || b.top < -0.5 || b.right > innerWidth + 0.5 || b.bottom > innerHeight + 0.5)
    .map((b) => `${b.name} at ${[b.left, b.top, b.right, b.bottom].map(Math.round).join(',')}`);
  texts.sort((a, b) => a.size - b.size);
  const toggle = section.querySelector('button.mix-toggle');
  return {
    view: [innerWidth, innerHeight],
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    maps,
    figures: canvases.length,
    mixFigures: [...section.querySelectorAll('.figures.mix canvas:not([hidden])')].filter(shown).length,
    minText: texts[0]?.size ?? null,
    medianText: texts.length ? texts[Math.floor(texts.length / 2)].size : null,
    smallest: texts.slice(0, 3).map((t) => `${t.size.toFixed(1)} px ${JSON.stringify(t.text)} in "${t.in}"`),
    textFit: section.style.getPropertyValue('--text-fit') || '1',
    toggle: toggle && shown(toggle) ? toggle.textContent : null,
    problems,
    overlaps,
    outside,
  };
};

/** The heads embed's frame, once it has drawn and its layout stopped moving; what MEASURE says. */
async function settle(frame) {
  await frame.waitForSelector('headwise-explorer[data-ready]', { timeout: 30_000 });
  let last = '';
  for (let k = 0; k < 20; k += 1) {
    await frame.evaluate(twoFrames);
    const m = await frame.evaluate(MEASURE);
    const now = JSON.stringify(m);
    if (now === last && m.figures > 0) return m;
    last = now;
    await frame.waitForTimeout(250);
  }
  return JSON.parse(last);
}

const headsFrame = (page) => page.frames().find((f) => /embed\.html\?panel=heads/.test(f.url()));

const say = (name, m) =>
  console.log(
    `# ${name}: ${m.maps.length} maps ` +
      `${m.maps.length ? `${Math.min(...m.maps.map((s) => Math.min(s.width, s.height))).toFixed(0)} px` : ''}, ` +
      `${m.figures} figures (${m.mixFigures} mixing), figure text ${m.minText?.toFixed(1)}-` +
      `${m.medianText?.toFixed(1)} px (min-median), text fit ${m.textFit}, document ${m.scroll.join('x')} in ` +
      `${m.view.join('x')}`,
  );

/** A readable slide: text sizes, boxes apart, inside the frame without scrolling. */
function assertReadableSlide(name, m) {
  assert.ok(m.minText >= 11, `${name}: smallest figure text ${m.minText?.toFixed(1)} px: ${m.smallest}`);
  assert.ok(m.medianText >= 14, `${name}: median figure text ${m.medianText?.toFixed(1)} px`);
  assert.deepEqual(m.problems, [], `${name}: text boxes`);
  assert.deepEqual(m.overlaps, [], `${name}: figures and text apart`);
  assert.deepEqual(m.outside, [], `${name}: inside the frame`);
  assert.ok(m.scroll[0] <= m.view[0] && m.scroll[1] <= m.view[1], `${name}: ${m.scroll} in ${m.view}`);
}

/**
 * The decks' GPT-2 slide (heads-column=trained) opens on the trained story model's heads in place of
 * the 12 random maps: one figure, no map, readable; its button then shows the 12 maps.
 */
async function trainedThenMaps(name, frame, px) {
  const t = await settle(frame);
  say(`${name}, trained heads`, t);
  assert.equal(t.maps.length, 0, `${name}: the trained heads in place of the random maps`);
  assert.equal(t.figures, 1, `${name}: the trained heads' figure`);
  assertReadableSlide(`${name}, trained heads`, t);
  await frame.locator(TRAINED_TOGGLE).click();
  const m = await settle(frame);
  say(name, m);
  assertMapsTellIt(name, m, px);
  return m;
}

/** The 12 maps, each at least `px` on each side, and the slide readable. */
function assertMapsTellIt(name, m, px) {
  assert.equal(m.maps.length, 12, `${name}: 12 head maps`);
  const least = Math.min(...m.maps.map((s) => Math.min(s.width, s.height)));
  assert.ok(least >= px, `${name}: the smallest head map is ${least.toFixed(1)} px (at least ${px})`);
  assertReadableSlide(name, m);
  assert.ok(m.toggle, `${name}: a button shows the W_out mixing`);
}

async function framed(src, size, colorScheme) {
  const opened = await newPage({ width: size[0], height: size[1] }, { colorScheme });
  await openInDeck(opened.page, servers.web.url, src, size);
  await opened.page.waitForFunction(() => document.getElementById('slide').contentDocument);
  return opened;
}

describe('GPT-2 heads on a 1280x720 slide', () => {
  test('in a 1280x720 iframe: 12 readable maps; the W_out mixing a click away, as readable', async () => {
    const { context, page, errors } = await framed('embed.html?panel=heads&preset=gpt2', [1280, 720]);
    try {
      const frame = headsFrame(page);
      const m = await settle(frame);
      say('iframe 1280x720', m);
      await page.screenshot({ path: `${ARTIFACTS}heads-slide-1280x720.png` });
      assertMapsTellIt('iframe 1280x720', m, MAP_PX);
      await frame.locator(TOGGLE).click();
      const mix = await settle(frame);
      say('iframe 1280x720, mixing shown', mix);
      await page.screenshot({ path: `${ARTIFACTS}heads-slide-1280x720-mixing.png` });
      assert.equal(mix.mixFigures, 1, 'the product figure is drawn');
      assertReadableSlide('the mixing at 1280x720', mix);
      // And back: the maps again, as large as before.
      await frame.locator(TOGGLE).click();
      const back = await settle(frame);
      assert.deepEqual(back.maps, m.maps);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('the reveal.js deck heads slide, light and dark', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const { context, page, errors } = await newPage({ width: 1280, height: 720 }, { colorScheme });
      try {
        await page.goto(`${servers.root.url}examples/reveal/index.html#/3`);
        await page.waitForFunction(() => document.querySelector('.reveal .slides > section.present h2'));
        const frame = headsFrame(page);
        await settle(frame);
        await page.screenshot({ path: `${ARTIFACTS}heads-slide-reveal-${colorScheme}-trained.png` });
        await trainedThenMaps(`reveal.js ${colorScheme}`, frame, MAP_PX_REVEAL);
        await page.screenshot({ path: `${ARTIFACTS}heads-slide-reveal-${colorScheme}.png` });
        await frame.locator(TOGGLE).click();
        const mix = await settle(frame);
        say(`reveal.js ${colorScheme}, mixing shown`, mix);
        await page.screenshot({ path: `${ARTIFACTS}heads-slide-reveal-${colorScheme}-mixing.png` });
        assertReadableSlide(`reveal.js ${colorScheme}, mixing`, mix);
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    }
  });

  test(
    'the Slidev deck heads slide (build/site)',
    { skip: !existsSync(`${SITE}examples/slidev/index.html`) },
    async () => {
      const { context, page, errors } = await newPage({ width: 1280, height: 720 });
      try {
        await page.goto(`${servers.site.url}examples/slidev/#/3`);
        await page.waitForSelector('.slidev-page-3 iframe');
        let frame;
        await until(() => (frame = headsFrame(page)), { ms: 30_000, every: 100 });
        await settle(frame);
        await page.screenshot({ path: `${ARTIFACTS}heads-slide-slidev-trained.png` });
        await trainedThenMaps('Slidev', frame, MAP_PX);
        await page.screenshot({ path: `${ARTIFACTS}heads-slide-slidev.png` });
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    },
  );
});

describe('GPT-2 heads on a 390x844 phone (embed.html, a slide held upright)', () => {
  test('no figure text under 11 px, maps or mixing, nothing wider than the screen', async () => {
    const { context, page, errors } = await newPage({ width: 390, height: 844 }, { isMobile: true });
    try {
      await page.goto(`${servers.web.url}embed.html?panel=heads&preset=gpt2`);
      const frame = page.mainFrame();
      for (const mixing of [false, true]) {
        if (mixing) {
          const toggle = frame.locator(TOGGLE);
          if (await toggle.count()) await toggle.click();
        }
        const m = await settle(frame);
        const name = `phone${mixing ? ', mixing shown' : ''}`;
        say(name, m);
        await page.screenshot({ path: `${ARTIFACTS}heads-slide-phone${mixing ? '-mixing' : ''}.png`, fullPage: true });
        if (mixing) assert.equal(m.mixFigures, 1, `${name}: the product figure is drawn`);
        else assert.equal(m.maps.length, 12);
        assert.ok(m.minText >= 11, `${name}: smallest figure text ${m.minText?.toFixed(1)} px: ${m.smallest}`);
        assert.deepEqual(m.problems, [], `${name}: text boxes`);
        assert.deepEqual(m.overlaps, [], `${name}: figures and text apart`);
        assert.ok(m.scroll[0] <= 390, `${name}: the page is ${m.scroll[0]} px wide`);
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});

describe('the lecture 2-head panel', () => {
  test('at 1280x720 its product figure stays beside its two maps, no button', async () => {
    const { context, page, errors } = await framed('embed.html?panel=heads', [1280, 720]);
    try {
      const m = await settle(headsFrame(page));
      say('2 heads 1280x720', m);
      assert.equal(m.maps.length, 2);
      assert.equal(m.mixFigures, 1, 'the product figure is drawn');
      assert.equal(m.toggle, null, 'no button: nothing is hidden');
      assertReadableSlide('2 heads 1280x720', m);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
