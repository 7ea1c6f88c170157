// reveal.js's print view (?print-pdf) moves every slide into a page of its own, where an embed
// reloads and an element starts again, and copies the page once per fragment. A panel draws only
// near the viewport, so after 'pdf-ready' each page is scrolled into view in turn until its figures
// have drawn and show the step its fragments stand for (a Learn panel on a data-headwise-train slide
// is trained to the end, a few seconds, so the page shows what it learned); then
// <html data-headwise-print="ready"> and a note on screen (not printed) say the deck can be printed.
import { EMBEDS } from './embed-channel.js';

const DRAW_MS = 30_000;
const NOTE_CSS = `.headwise-print-note { position: fixed; top: 8px; right: 8px; z-index: 100; margin: 0;
  padding: 6px 12px; border-radius: 6px; background: #1b1b1f; color: #fff; font: 16px system-ui, sans-serif; }
@media print { .headwise-print-note { display: none; } }`;

const nextPaint = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));

function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not draw within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const TRAIN_MS = 120_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function drawFiguresForPrint(deck, { embeds, stepShown, elements, stepFragments, train }) {
  const waiting = new Map(); // embed -> resolve, until it announces itself

  function whenDrawn(panel) {
    if (!panel.matches(EMBEDS))
      return new Promise((resolve) => panel.addEventListener('headwise-render', resolve, { once: true }));
    if (embeds.isReady(panel)) return Promise.resolve();
    return new Promise((resolve) => waiting.set(panel, resolve));
  }

  // The protocol has no event for the end of training: ask every quarter second.
  async function trainToTheEnd(panel) {
    const ask = (method) => (panel.matches(EMBEDS) ? embeds.request(panel, method) : panel[method]());
    let state = await ask('startTraining');
    const deadline = performance.now() + TRAIN_MS;
    while (state.state !== 'done') {
      if (performance.now() > deadline) throw new Error(`training did not finish within ${TRAIN_MS / 1000} s`);
      await sleep(250);
      state = await ask(panel.matches(EMBEDS) ? 'getTraining' : 'trainingState');
    }
  }

  async function drawAll() {
    const note = Object.assign(document.createElement('p'), { className: 'headwise-print-note', role: 'status' });
    const style = Object.assign(document.createElement('style'), { textContent: NOTE_CSS });
    document.head.append(style);
    document.body.append(note);
    const pages = [...document.querySelectorAll('.reveal .pdf-page')];
    // Listening before any of them can draw: the pages were only just put in place.
    const drawn = new Map();
    for (const page of pages) {
      for (const panel of page.querySelectorAll(`${EMBEDS}, ${elements}`)) drawn.set(panel, whenDrawn(panel));
    }
    const failures = [];
    for (const [index, page] of pages.entries()) {
      const panels = [...page.querySelectorAll(`${EMBEDS}, ${elements}`)];
      if (panels.length === 0) continue;
      note.textContent = `Drawing the figures for print: page ${index + 1} of ${pages.length}...`;
      page.scrollIntoView({ block: 'start' });
      for (const panel of panels) {
        try {
          await within(drawn.get(panel), DRAW_MS, `page ${index + 1}: ${panel.title || panel.getAttribute('panel')}`);
          if (page.querySelector(train)) await trainToTheEnd(panel);
          if (!page.querySelector(stepFragments)) continue;
          const step = stepShown(page);
          if (panel.matches(EMBEDS)) await embeds.request(panel, 'goToStep', { step });
          else panel.goToStep(step);
        } catch (error) {
          failures.push(error.message);
        }
      }
      await nextPaint();
    }
    window.scrollTo(0, 0);
    document.documentElement.dataset.headwisePrint = failures.length ? 'incomplete' : 'ready';
    note.textContent = failures.length
      ? `Not every figure is drawn: ${failures.join('; ')}.`
      : 'Every figure is drawn: print now (Save as PDF, margins none, background graphics on).';
    if (failures.length) console.warn(`headwise: ${note.textContent}`);
  }

  deck.on('pdf-ready', () => drawAll());
  return {
    /** An embed said 'ready' (embed-channel.js has recorded it). */
    announced(frame) {
      waiting.get(frame)?.();
      waiting.delete(frame);
    },
  };
}
