// The example slide deck (examples/) in Chromium: from disk, and cross-origin under the strict
// CSP (the deck from one local origin, the widget's embed.html and bundle from another, which
// adds default-src 'self' as well), every
// embed renders and the deck's "next" walks the steps panel through the five steps by postMessage.
// Bad messages get an error reply or are ignored, and the embed keeps working.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './chromium.js';
import { EXAMPLES_DIR, LOCKED_DOWN_CSP, serveDir, STRICT_CSP, WEB_DIR } from './static-server.js';
import { ARTIFACTS } from './page-checks.js';
import { STAGES as STEPS } from './deck-checks.js';
import { pathToFileURL } from 'node:url';
import { readFile } from 'node:fs/promises';

const PANELS = ['why', 'steps', 'heads', 'loop', 'order', 'steps'];
const CSP = { 'Content-Security-Policy': STRICT_CSP };

let browser;
let deckServer;
let widgetServer;

before(async () => {
  browser = await launchChromium();
  deckServer = await serveDir(EXAMPLES_DIR, { headers: CSP });
  // The widget's origin also sets default-src (stricter still: CSP directives only narrow).
  widgetServer = await serveDir(WEB_DIR, {
    headers: { 'Content-Security-Policy': LOCKED_DOWN_CSP },
    host: 'localhost',
  });
});

after(async () => {
  await browser?.close();
  await deckServer?.close();
  await widgetServer?.close();
});

async function openDeck(url, allowed) {
  const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('request', (r) => {
    if (!allowed.some((prefix) => r.url().startsWith(prefix))) problems.push(`outside request: ${r.url()}`);
  });
  await page.goto(url);
  return { page, context, problems };
}

const currentStep = (frame) => frame.locator('[data-panel="steps"] .steps > li.current strong').innerText();

/** Walks the whole deck with the right arrow; on the steps slide, through the five steps. */
async function walkDeck(page, artifact) {
  const slides = await page.locator('.slide').count();
  const seen = [];
  let walkedSteps = null;
  for (let i = 1; i < slides; i += 1) {
    await page.keyboard.press('ArrowRight');
    assert.match(await page.locator('.counter').innerText(), new RegExp(`^${i + 1} / ${slides}`));
    const iframe = page.locator('.slide.current iframe');
    const frame = page.frameLocator('.slide.current iframe');
    await frame.locator('headwise-explorer[data-ready]').waitFor({ timeout: 20_000 });
    const panel = new URL(await iframe.getAttribute('src'), 'file:///').searchParams.get('panel');
    assert.ok(await frame.locator(`[data-panel="${panel}"]`).isVisible(), `slide ${i + 1}: panel ${panel} shown`);
    const drawn = await frame
      .locator('headwise-explorer')
      .evaluate(
        (host, id) => [...host.shadowRoot.querySelectorAll(`[data-panel="${id}"] canvas:not([hidden])`)].length,
        panel,
      );
    if (panel !== 'loop') assert.ok(drawn > 0, `slide ${i + 1}: ${panel} has figures`);
    seen.push(panel);
    if ((await iframe.getAttribute('data-steps')) !== null) {
      walkedSteps = [await currentStep(frame)];
      for (let s = 1; s < STEPS.length; s += 1) {
        await page.keyboard.press('ArrowRight');
        await frame
          .locator(`[data-panel="steps"] .steps > li.current strong:text-is("${STEPS[s]}")`)
          .waitFor({ state: 'attached', timeout: 5000 }); // on a slide the list waits behind Details
        walkedSteps.push(await currentStep(frame));
        assert.match(await page.locator('.counter').innerText(), new RegExp(`step ${s + 1} of 5$`));
      }
      if (artifact) await page.screenshot({ path: `${ARTIFACTS}${artifact}` });
    }
    if (panel === 'heads') {
      // Every head map of GPT-2's 12 is above the fold of the 16:9 frame.
      const below = await frame
        .locator('headwise-explorer')
        .evaluate(
          (host) =>
            [...host.shadowRoot.querySelectorAll('[data-panel="heads"] .figures.grid canvas:not([hidden])')].filter(
              (c) => c.getBoundingClientRect().bottom > innerHeight + 1,
            ).length,
        );
      assert.equal(below, 0, 'head maps below the fold');
    }
  }
  return { seen, walkedSteps };
}

test('the widget bundle builds no code from strings', async () => {
  const bundle = await readFile(`${WEB_DIR}build/explorer/explorer.js`, 'utf8');
  assert.ok(bundle.length > 100_000, 'the bundle with the wasm inside');
  assert.doesNotMatch(bundle, /\bnew Function\b|\beval\s*\(/);
});

describe('the example slide deck', () => {
  test('from disk: every embed renders; next walks the five steps, then moves on', async () => {
    const { page, context, problems } = await openDeck(pathToFileURL(`${EXAMPLES_DIR}slides.html`).href, [
      'file:',
      'data:',
      'blob:',
    ]);
    try {
      const { seen, walkedSteps } = await walkDeck(page, null);
      assert.deepEqual(seen, PANELS);
      assert.deepEqual(walkedSteps, STEPS);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('cross-origin, strict CSP on both origins: embeds render, postMessage steps, bad messages refused', async () => {
    const widgetOrigin = new URL(widgetServer.url).origin;
    const deckOrigin = new URL(deckServer.url).origin;
    assert.notEqual(widgetOrigin, deckOrigin);
    const { page, context, problems } = await openDeck(
      `${deckServer.url}slides.html?widget=${encodeURIComponent(widgetServer.url)}`,
      [deckServer.url, widgetServer.url, 'data:', 'blob:'],
    );
    try {
      const { seen, walkedSteps } = await walkDeck(page, 'deck-steps-cross-origin-1920x1080.png');
      assert.deepEqual(seen, PANELS);
      assert.deepEqual(walkedSteps, STEPS);
      for (const src of await page.locator('iframe').evaluateAll((frames) => frames.map((f) => f.src))) {
        assert.ok(src.startsWith(`${widgetOrigin}/embed.html?`), src);
        assert.equal(new URL(src).searchParams.get('origins'), deckOrigin);
      }

      // Back on the steps slide (slide 3): talk to its embed directly, as any deck could.
      for (let i = 0; i < 4; i += 1) await page.keyboard.press('ArrowLeft');
      assert.match(await page.locator('.counter').innerText(), /^3 \/ 7, step 5 of 5$/);
      const frame = page.frameLocator('.slide.current iframe');
      await frame.locator('headwise-explorer[data-ready]').waitFor({ timeout: 20_000 });
      const replies = await page.evaluate(async (origin) => {
        const target = document.querySelector('.slide.current iframe').contentWindow;
        const got = new Map();
        window.addEventListener('message', (event) => {
          if (event.source === target && event.origin === origin && event.data?.headwise === 1)
            got.set(event.data.id, event.data);
        });
        const send = (message) => target.postMessage(message, origin);
        send({ headwise: 1, id: 'unknown', method: 'constructor' });
        send({ headwise: 1, id: 'proto', method: '__proto__' });
        send({ headwise: 1, id: 'private', method: 'render' });
        send({ headwise: 1, id: 'width', method: 'setConfig', params: { width: 7 } });
        send({ headwise: 1, id: 'negative', method: 'setConfig', params: { heads: -4 } });
        send({ headwise: 1, id: 'unknown-option', method: 'setConfig', params: { innerHTML: '<b>x</b>' } });
        send({ headwise: 1, id: 'huge', method: 'getState', params: { padding: 'x'.repeat(10_000) } });
        send(JSON.stringify({ headwise: 1, id: 'huge-string', method: 'getState', padding: 'x'.repeat(10_000) }));
        send({ headwise: 2, id: 'version', method: 'getState' });
        send({ headwise: 1, id: 'params', method: 'setConfig', params: [1, 2] });
        send({ something: 'else', id: 'not-ours' });
        send({ headwise: 1, id: 'step', method: 'goToStep', params: { step: 3 } });
        send(JSON.stringify({ headwise: 1, id: 'config', method: 'setConfig', params: { heads: 3 } }));
        send({ headwise: 1, id: 'state', method: 'getState' });
        const deadline = Date.now() + 5000;
        while (got.size < 13 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        await new Promise((resolve) => setTimeout(resolve, 200)); // anything late would show up too
        return Object.fromEntries(got);
      }, widgetOrigin);
      const error = (id) => replies[id]?.ok === false && replies[id].error;
      assert.match(
        error('unknown'),
        /unknown method "constructor"; use one of setConfig, getState, forwardKeys, nextStep, previousStep, goToStep/,
      );
      assert.match(error('proto'), /unknown method "__proto__"/);
      assert.match(error('private'), /unknown method "render"/);
      assert.match(error('width'), /setConfig: width 7 is not divisible by 2 heads/);
      assert.match(error('negative'), /setConfig: heads="-4" was ignored/);
      assert.match(error('unknown-option'), /setConfig: unknown option "innerHTML"/);
      assert.match(error('huge'), /message too large: \d+ characters of JSON, at most 4096/);
      // A string that long is refused unparsed: its reply carries no id.
      assert.match(error('null'), /message too large: \d+ characters, at most 4096/);
      assert.match(error('version'), /unsupported protocol version 2/);
      assert.match(error('params'), /params must be an object/);
      assert.equal(replies['not-ours'], undefined, 'messages of other protocols are ignored');
      assert.equal(replies.step?.result?.stepName, 'merge');
      assert.deepEqual(
        { ok: replies.config?.ok, heads: replies.config?.result?.heads, width: replies.config?.result?.width },
        { ok: true, heads: 3, width: 6 },
      );
      assert.deepEqual(
        { step: replies.state?.result?.step, heads: replies.state?.result?.heads, ready: replies.state?.result?.ready },
        { step: 3, heads: 3, ready: true },
      );
      // Still working, with the accepted changes drawn.
      await frame
        .locator('[data-panel="steps"] .steps > li.current strong:text-is("merge")')
        .waitFor({ state: 'attached', timeout: 5000 }); // behind Details on a slide
      await frame
        .locator('[data-panel="steps"] .steps > li.current code.shape:text-is("(2, 6, 3, 2)")')
        .first()
        .waitFor({ state: 'attached', timeout: 5000 });
      assert.match(await page.locator('.counter').innerText(), /step 4 of 5$/, 'the deck follows the replies');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('an embed with ?origins= answers only those origins', async () => {
    const { page, context, problems } = await openDeck(`${deckServer.url}slides.html`, [
      deckServer.url,
      widgetServer.url,
      'data:',
      'blob:',
    ]);
    try {
      const answered = await page.evaluate(async (widget) => {
        const frameOf = async (origins) => {
          const iframe = document.createElement('iframe');
          iframe.src = `${widget}embed.html?panel=input&origins=${encodeURIComponent(origins)}`;
          document.body.append(iframe);
          await new Promise((resolve) => iframe.addEventListener('load', resolve, { once: true }));
          return iframe.contentWindow;
        };
        const allowed = await frameOf(location.origin);
        const other = await frameOf('https://deck.example');
        const got = [];
        window.addEventListener('message', (event) => {
          if (event.data?.headwise === 1) got.push(event.source === allowed ? 'allowed' : 'other');
        });
        const target = new URL(widget).origin;
        // Asks until the allowed frame answers, by the clock (a loaded machine loads the module slowly).
        const deadline = performance.now() + 30_000;
        for (let i = 0; !got.includes('allowed') && performance.now() < deadline; i += 1) {
          allowed.postMessage({ headwise: 1, id: i, method: 'getState' }, target);
          other.postMessage({ headwise: 1, id: i, method: 'getState' }, target);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
        return [...new Set(got)];
      }, widgetServer.url);
      assert.deepEqual(answered, ['allowed']);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('embeds announce "ready"; after a click inside one the arrow keys still move the deck', async () => {
    const { page, context, problems } = await openDeck(
      `${deckServer.url}slides.html?widget=${encodeURIComponent(widgetServer.url)}#4`,
      [deckServer.url, widgetServer.url, 'data:', 'blob:'],
    );
    try {
      assert.match(await page.locator('.counter').innerText(), /^4 \/ 7$/);
      // The deck marks a frame ready only on the embed's own "ready" message (it never polls).
      await page.locator('.slide.current iframe[data-ready="true"]').waitFor({ timeout: 20_000 });
      const frame = page.frameLocator('.slide.current iframe');
      await frame.locator('[data-panel="heads"] .point').click();
      // Focus is inside the embed now: the deck's own keydown handler cannot see the keys.
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'IFRAME');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => /^5 \/ 7/.test(document.querySelector('.counter').textContent));
      await page.locator('.slide.current iframe[data-ready="true"]').waitFor({ timeout: 20_000 });
      await page.frameLocator('.slide.current iframe').locator('[data-panel="loop"] .point').click();
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction(() => /^4 \/ 7/.test(document.querySelector('.counter').textContent));
      // Without the opt-in an embed keeps its keys: a fresh embed that was never asked forwards none.
      const forwarded = await page.evaluate(async (widget) => {
        const iframe = document.createElement('iframe');
        iframe.src = `${widget}embed.html?panel=input`;
        // In view: an embed draws (and so announces itself) only when it can be seen.
        iframe.style.cssText = 'position: fixed; top: 0; left: 0; width: 640px; height: 360px; z-index: 9';
        document.body.append(iframe);
        const events = [];
        window.addEventListener('message', (event) => {
          if (event.source === iframe.contentWindow && event.data?.headwise === 1) events.push(event.data.event);
        });
        await new Promise((resolve) => iframe.addEventListener('load', resolve, { once: true }));
        const deadline = performance.now() + 30_000;
        while (!events.includes('ready') && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        return events;
      }, widgetServer.url);
      assert.deepEqual(forwarded, ['ready']);
      await page.locator('iframe:not(.slide iframe)').click({ position: { x: 320, y: 40 } });
      await page.keyboard.press('ArrowRight');
      await page.waitForTimeout(300);
      assert.match(await page.locator('.counter').innerText(), /^4 \/ 7/, 'a key in an embed that was not asked');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
