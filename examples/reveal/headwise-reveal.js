// Connects a reveal.js deck to the headwise panels on its slides: iframes of embed.html (driven by
// postMessage) and <headwise-explorer> elements in the deck's own page.
//  - Keys pressed inside an embed after a click come back (forwardKeys) and move the deck; keys
//    typed into an element's text fields stay there (keyboardCondition, for Reveal's options).
//  - Focus never stays in a hidden slide: when the deck moves on, a panel of the slide left gives
//    focus back to the deck (else the next key would go to a frame no one sees).
//  - Fragments with data-headwise-step="1".."4" walk their slide's panels through the five steps
//    (0 project, 1 split, 2 attend, 3 merge, 4 out-project): the step is the highest one shown.
//  - The Learn panel on a slide marked data-headwise-train trains while that slide is current.
//  - In reveal's print view (?print-pdf) every figure is drawn before printing (print-figures.js).
// Embeds need `src` (not reveal's lazy `data-src`, which reloads a frame each time its slide is
// shown) and a deck served over http: a page opened from disk gets no replies.
import { EMBEDS, openEmbedChannel } from './embed-channel.js';
import { drawFiguresForPrint } from './print-figures.js';

const ELEMENTS = 'headwise-explorer';
const STEP_FRAGMENTS = '.fragment[data-headwise-step]';
const TRAIN = '[data-headwise-train]';
const TEXT_FIELDS = 'input, textarea, select, [contenteditable=""], [contenteditable="true"]';

/** For Reveal's keyboardCondition: reveal.js cannot see a text field inside a shadow root. */
export function keyboardCondition(event) {
  const target = event.composedPath?.()[0] ?? event.target;
  return !event.defaultPrevented && !target?.closest?.(TEXT_FIELDS);
}

const ELEMENT_CALLS = {
  goToStep: (element, { step }) => element.goToStep(step),
  startTraining: (element) => element.startTraining(),
  pauseTraining: (element) => element.pauseTraining(),
};

const warn = (error) => console.warn(`headwise: ${error.message}`);

/** The step a slide (or a printed page) shows: the highest data-headwise-step among its visible fragments. */
export function stepShown(container) {
  let step = 0;
  for (const fragment of container.querySelectorAll(`${STEP_FRAGMENTS}.visible`)) {
    step = Math.max(step, Number(fragment.dataset.headwiseStep));
  }
  return step;
}

export function connectHeadwise(deck) {
  const slideOf = (node) => node.closest('.slides section');
  const isCurrent = (node) => slideOf(node) === deck.getCurrentSlide();

  // The focused node of the deck's page (an iframe, or an element holding focus in its shadow root):
  // if it lies outside the current slide, it is blurred and the deck's window takes the keys again.
  function releaseFocus() {
    const focused = document.activeElement;
    if (!focused || focused === document.body || !deck.getRevealElement().contains(focused)) return;
    if (isCurrent(focused)) return;
    const inner = focused.shadowRoot?.activeElement;
    inner?.blur();
    focused.blur();
    window.focus();
  }

  // A forwarded key does what it would have done in the deck (reveal.js's own bindings).
  function move({ key, shiftKey }) {
    const linear = deck.getConfig().navigationMode === 'linear' || !deck.hasVerticalSlides();
    const actions = {
      ArrowRight: linear ? 'next' : 'right',
      ArrowLeft: linear ? 'prev' : 'left',
      ArrowDown: linear ? 'next' : 'down',
      ArrowUp: linear ? 'prev' : 'up',
      PageDown: 'next',
      PageUp: 'prev',
      ' ': shiftKey ? 'prev' : 'next',
    };
    if (actions[key]) deck[actions[key]]();
  }

  const embeds = openEmbedChannel((frame, message) => {
    if (message.event === 'key') {
      if (!isCurrent(frame)) releaseFocus(); // a hidden frame had focus: the deck takes it back
      move(message);
    } else if (message.event === 'ready') {
      print.announced(frame);
      if (deck.isPrintView()) return;
      embeds
        .request(frame, 'forwardKeys', { on: true })
        .then(() => (frame.dataset.headwiseKeys = 'forwarded')) // a state a test (or a page) can wait on
        .catch(warn);
      if (isCurrent(frame)) enter(deck.getCurrentSlide(), [frame]);
    }
  });
  const print = drawFiguresForPrint(deck, {
    embeds,
    stepShown,
    elements: ELEMENTS,
    stepFragments: STEP_FRAGMENTS,
    train: TRAIN,
  });

  // A method of the protocol, for an embed (a request) or an element (a call); errors are reported.
  function call(panel, method, params) {
    if (panel.matches(EMBEDS)) {
      if (embeds.isReady(panel)) embeds.request(panel, method, params).catch(warn);
      return;
    }
    try {
      ELEMENT_CALLS[method](panel, params);
    } catch (error) {
      if (!/not loaded yet/.test(error.message)) warn(error); // an element starts once it has drawn
    }
  }

  const panelsOf = (slide, only) => only ?? [...slide.querySelectorAll(`${EMBEDS}, ${ELEMENTS}`)];

  function showStep(slide, only) {
    if (!slide?.querySelector(STEP_FRAGMENTS)) return;
    const step = stepShown(slide);
    for (const panel of panelsOf(slide, only)) call(panel, 'goToStep', { step });
  }

  function train(slide, on, only) {
    if (!slide?.matches(TRAIN)) return;
    for (const panel of panelsOf(slide, only)) call(panel, on ? 'startTraining' : 'pauseTraining');
  }

  function enter(slide, only) {
    showStep(slide, only);
    train(slide, true, only);
  }

  deck.on('ready', (event) => {
    if (deck.isPrintView()) return;
    for (const element of deck.getRevealElement().querySelectorAll(ELEMENTS)) {
      element.addEventListener('headwise-render', () => isCurrent(element) && enter(slideOf(element), [element]), {
        once: true,
      });
    }
    enter(event.currentSlide);
  });
  deck.on('slidechanged', (event) => {
    releaseFocus();
    train(event.previousSlide, false);
    enter(event.currentSlide);
  });
  deck.on('fragmentshown', () => showStep(deck.getCurrentSlide()));
  deck.on('fragmenthidden', () => showStep(deck.getCurrentSlide()));
}
