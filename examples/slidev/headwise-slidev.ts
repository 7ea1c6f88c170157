// Connects a Slidev deck to the headwise panels on its slides: iframes of embed.html (Slidev's
// iframe layout, driven by postMessage) and <headwise-explorer> elements in the deck's own page.
//  - Keys pressed inside an embed after a click come back (forwardKeys) and move the deck. Inside an
//    element, Slidev ignores keys while a button of it has focus: the arrows and Space then move the
//    deck here (text fields keep their keys).
//  - On a slide with `clicks: 4`, elements marked data-headwise-steps show step = clicks
//    (0 project, 1 split, 2 attend, 3 merge, 4 out-project).
//  - In the export view (#/export, which prints with the browser) each slide is scrolled into view
//    until its figures have drawn; then <html data-headwise-print="ready">.
import { watch } from 'vue';
import { EMBEDS, openEmbedChannel } from '../reveal/embed-channel.js';

type Nav = ReturnType<typeof import('@slidev/client').useNav>;
type Explorer = HTMLElement & { goToStep(step: number): unknown };

const ELEMENTS = 'headwise-explorer';
const STEP_ELEMENTS = 'headwise-explorer[data-headwise-steps]';
const TEXT_FIELDS = 'input, textarea, select, [contenteditable=""], [contenteditable="true"]';
const LAST_STEP = 4;
const DRAW_MS = 30_000;

const warn = (error: Error) => console.warn(`headwise: ${error.message}`);
const shown = (node: Element) => (node as HTMLElement).offsetParent !== null;

function move(nav: Nav, { key, shiftKey }: { key: string; shiftKey?: boolean }) {
  const actions: Record<string, () => unknown> = {
    ArrowRight: shiftKey ? nav.nextSlide : nav.next,
    ArrowLeft: shiftKey ? nav.prevSlide : nav.prev,
    ArrowDown: nav.nextSlide,
    ArrowUp: nav.prevSlide,
    PageDown: nav.next,
    PageUp: nav.prev,
    ' ': shiftKey ? nav.prev : nav.next,
  };
  actions[key]?.();
}

function whenDrawn(panel: Element, embeds: ReturnType<typeof openEmbedChannel>, announced: Map<Element, () => void>) {
  const drawn = panel.matches(EMBEDS)
    ? embeds.isReady(panel)
      ? Promise.resolve()
      : new Promise<void>((resolve) => announced.set(panel, resolve))
    : (panel as HTMLElement).dataset.ready
      ? Promise.resolve()
      : new Promise<void>((resolve) => panel.addEventListener('headwise-render', () => resolve(), { once: true }));
  let timer: ReturnType<typeof setTimeout>;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`a figure did not draw within ${DRAW_MS / 1000} s`)), DRAW_MS);
  });
  return Promise.race([drawn, late]).finally(() => clearTimeout(timer));
}

async function drawEveryFigure(embeds: ReturnType<typeof openEmbedChannel>, announced: Map<Element, () => void>) {
  const slides = [...document.querySelectorAll('#export-content .print-slide-container')];
  for (const slide of slides) {
    const panels = [...slide.querySelectorAll(`${EMBEDS}, ${ELEMENTS}`)];
    if (!panels.length) continue;
    slide.scrollIntoView({ block: 'start' });
    await Promise.all(panels.map((panel) => whenDrawn(panel, embeds, announced)));
    for (const element of slide.querySelectorAll<Explorer>(STEP_ELEMENTS)) element.goToStep(LAST_STEP);
  }
  scrollTo(0, 0);
  document.documentElement.dataset.headwisePrint = 'ready';
}

export function connectHeadwise(nav: Nav) {
  const announced = new Map<Element, () => void>();
  const embeds = openEmbedChannel((frame: HTMLIFrameElement, message: { event: string; key: string }) => {
    if (message.event === 'ready') {
      announced.get(frame)?.();
      announced.delete(frame);
      if (!nav.isPrintMode.value) embeds.request(frame, 'forwardKeys', { on: true }).catch(warn);
    } else if (message.event === 'key' && shown(frame)) move(nav, message);
  });

  addEventListener('keydown', (event) => {
    const path = event.composedPath();
    const inside = path.some((node) => node instanceof Element && node.matches(ELEMENTS));
    const target = path[0] as Element;
    if (!inside || event.defaultPrevented || target.closest?.(TEXT_FIELDS)) return;
    if (!target.closest?.('button, a')) return; // elsewhere in the element Slidev hears the key itself
    if (event.key === ' ') event.preventDefault(); // Space moves the deck; it does not press the button
    move(nav, event);
  });

  // The steps shown follow the clicks of the current slide.
  watch(
    () => [nav.currentSlideNo.value, nav.clicks.value],
    ([no, clicks]) => {
      if (nav.isPrintMode.value) return;
      const slide = document.querySelector(`.slidev-page-${no}`);
      for (const element of slide?.querySelectorAll<Explorer>(STEP_ELEMENTS) ?? []) {
        const go = () => element.goToStep(Math.min(clicks, LAST_STEP));
        if (element.dataset.ready) go();
        else element.addEventListener('headwise-render', go, { once: true });
      }
    },
    { flush: 'post' },
  );

  watch(
    () => nav.isPrintMode.value,
    (print) => {
      if (print) requestAnimationFrame(() => drawEveryFigure(embeds, announced).catch(warn));
    },
    { immediate: true },
  );
}
