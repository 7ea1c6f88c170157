// Connects a Slidev deck to the headwise panels on its slides: iframes of embed.html (Slidev's
// iframe layout, driven by postMessage) and <headwise-explorer> elements in the deck's own page.
//  - Keys pressed inside an embed after a click come back (forwardKeys) and move the deck. Inside an
//    element, Slidev ignores keys while a button or checkbox of it has focus: the arrows and Space
//    then move the deck here (text fields keep their keys).
//  - A figure that had focus gives it back to the deck when its slide is left.
//  - An embed forwarding keys is marked data-headwise-keys="forwarded" (a state to wait on).
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
const TEXT_FIELDS =
  'input:not([type=checkbox], [type=button], [type=submit], [type=reset]), textarea, select, ' +
  '[contenteditable=""], [contenteditable="true"]';
// Slidev ignores keys while one of these has focus (buttons, links; any input counts as typing).
const PRESSABLE = 'button, a, input';
const LAST_STEP = 4;
const NAV_KEYS = ['ArrowRight', 'ArrowLeft', 'ArrowDown', 'ArrowUp', 'PageDown', 'PageUp', ' '];
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

// A printed slide's id ends in its clicks + 1 ("004-05"). Slidev sets it once it has counted them,
// and mounts each slide's content later still: both are followed as they change.
function showPrintedSteps(content: Element) {
  const shownAt = new WeakMap<Element, number>();
  const apply = () => {
    for (const slide of content.querySelectorAll('.print-slide-container')) {
      const step = Math.min(Number(/-(\d+)$/.exec(slide.id)?.[1] ?? 1) - 1, LAST_STEP);
      for (const element of slide.querySelectorAll<Explorer>(STEP_ELEMENTS)) {
        if (shownAt.get(element) === step) continue;
        shownAt.set(element, step);
        if (element.dataset.ready) element.goToStep(step);
        else element.addEventListener('headwise-render', () => element.goToStep(step), { once: true });
      }
    }
  };
  apply();
  const changes = { subtree: true, childList: true, attributes: true, attributeFilter: ['id'] };
  new MutationObserver(apply).observe(content, changes);
}

const PRINTED = '#export-content .print-slide-container';

// A slide's content is loaded on demand: a wrapper holds nothing, then a loading note, then it.
const mounted = (slide: Element) => slide.querySelector('[data-slidev-no] > :not(.slidev-slide-loading)') !== null;

/** Resolves once every printed slide is in the page with its content (each loads on its own). */
async function printedSlides(count: number) {
  const deadline = performance.now() + DRAW_MS;
  const slides = () => [...document.querySelectorAll(PRINTED)];
  while (slides().length < count || !slides().every(mounted)) {
    if (performance.now() > deadline) throw new Error(`the export view did not show ${count} slides`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return slides();
}

async function drawEveryFigure(
  nav: Nav,
  embeds: ReturnType<typeof openEmbedChannel>,
  announced: Map<Element, () => void>,
) {
  const slides = await printedSlides(nav.printRange.value.length);
  showPrintedSteps(document.querySelector('#export-content')!);
  for (const slide of slides) {
    const panels = [...slide.querySelectorAll(`${EMBEDS}, ${ELEMENTS}`)];
    if (!panels.length) continue;
    slide.scrollIntoView({ block: 'start' });
    await Promise.all(panels.map((panel) => whenDrawn(panel, embeds, announced)));
  }
  slides[0]?.scrollIntoView({ block: 'start' });
  document.documentElement.dataset.headwisePrint = 'ready';
}

export function connectHeadwise(nav: Nav) {
  const announced = new Map<Element, () => void>();
  const embeds = openEmbedChannel((frame: HTMLIFrameElement, message: { event: string; key: string }) => {
    if (message.event === 'ready') {
      announced.get(frame)?.();
      announced.delete(frame);
      if (!nav.isPrintMode.value)
        embeds
          .request(frame, 'forwardKeys', { on: true })
          .then(() => (frame.dataset.headwiseKeys = 'forwarded')) // a state a test can wait on
          .catch(warn);
    } else if (message.event === 'key' && shown(frame)) move(nav, message);
  });

  addEventListener(
    'keydown',
    (event) => {
      const path = event.composedPath();
      const inside = path.some((node) => node instanceof Element && node.matches(ELEMENTS));
      const target = path[0] as Element;
      if (!inside || event.defaultPrevented || target.closest?.(TEXT_FIELDS)) return;
      if (!target.closest?.(PRESSABLE)) return; // elsewhere in the element Slidev hears the key itself
      if (!NAV_KEYS.includes(event.key)) return;
      if (event.key === ' ') event.preventDefault(); // Space moves the deck; it does not press the button
      // Slidev must not see this key too: a button that the step disables gives focus back mid-press.
      event.stopImmediatePropagation();
      move(nav, event);
    },
    { capture: true },
  );

  // A figure that had focus and is hidden with its slide would keep the keys from the deck.
  watch(
    () => nav.currentSlideNo.value,
    (no) => {
      const focused = document.activeElement as HTMLElement | null;
      if (focused?.matches(`${EMBEDS}, ${ELEMENTS}`) && !focused.closest(`.slidev-page-${no}`)) {
        focused.blur();
        window.focus();
      }
    },
    { flush: 'post' },
  );

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
      if (print) drawEveryFigure(nav, embeds, announced).catch(warn);
    },
    { immediate: true },
  );
}
