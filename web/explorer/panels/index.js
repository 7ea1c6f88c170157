// The explorer's panels, in page order: the one list of them. Each declares itself (the default
// export of its view's file): id, label (the navigation's), aliases (other names for the panel
// option); options: its rows of the options schema (options.js), the state the URL carries, each
// { name, fallback } with choices, range [min, max], a boolean fallback or read(raw, name); state(o):
// what getState() adds beside them; parts: what it views of the owner's result; numbers: the parts
// it defines and keeps: what the owner holds for it between renders (computation.js); commands:
// the element's methods for it, also postMessage methods (slide-messages.js); View: its class
// (panel-frame.js says what its host offers). A new panel: its folder and one line here.
import input from './input/input-panel.js';
import why from './why/why-heads-panel.js';
import steps from './steps/steps-panel.js';
import heads from './heads/heads-panel.js';
import loop from './loop/loop-fused-panel.js';
import order from './order/word-order-panel.js';
import learn from './learn/learn-panel.js';
import story from './story/story-panel.js';
import kv from './kv/kv-panel.js';

export const PANELS = Object.freeze(
  [input, why, steps, heads, loop, order, learn, story, kv].map((entry) => Object.freeze(entry)),
);
