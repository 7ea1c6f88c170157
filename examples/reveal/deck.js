// The example deck: reveal.js from node_modules, the element from the package's entry
// (web/explorer/define.js, `headwise/explorer/define` once installed) and the glue beside it.
import Reveal from '../../node_modules/reveal.js/dist/reveal.mjs';
import '../../web/explorer/define.js';
import { connectHeadwise, keyboardCondition } from './headwise-reveal.js';

// One printed page per slide (or per fragment): a live panel can be taller than its slide and scroll.
const deck = new Reveal({
  width: 1280,
  height: 720,
  margin: 0,
  center: false,
  hash: true,
  controls: false, // the arrows would cover the panels; keys, a clicker or a touch swipe move the deck
  slideNumber: 'c/t',
  pdfMaxPagesPerSlide: 1,
  keyboardCondition,
});
connectHeadwise(deck);
deck.initialize();
