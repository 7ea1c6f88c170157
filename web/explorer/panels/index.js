// The explorer's panels, in page order: the one list of them. Each panel declares itself in its own
// folder (the default export of its view's file):
//   id, label (the navigation's), aliases (other names the panel option accepts);
//   options: its own rows of the options schema (options.js), its state that the URL carries:
//     { name, fallback } with choices, range [min, max], a boolean fallback (a flag) or read(raw, name);
//   state(o): what getState() adds for it beside its options;
//   parts: what it views of the owner's result (computation.js: the page's layer, fused, whole and
//     wOut, or any panel's numbers);
//   numbers: the parts it defines, { name: { layer, key(o, ctx), run(ctx) } } (see computation.js);
//   keeps(hw, settings): what the owner holds for it between renders (a training run, checkpoints),
//     reached by the view as host.kept(id);
//   commands: the element's methods for it, { method: { run(ctx, ...args), needsModule, message,
//     params } } (slide decks call them by postMessage too: slide-messages.js);
//   View: its class, constructed with the element's host (panel-frame.js says what a host offers).
// A new panel is a folder with its view's file and one line here.
import input from './input/input-panel.js';
import why from './why/why-heads-panel.js';
import steps from './steps/steps-panel.js';
import heads from './heads/heads-panel.js';
import loop from './loop/loop-fused-panel.js';
import order from './order/word-order-panel.js';
import learn from './learn/learn-panel.js';

export const PANELS = Object.freeze(
  [input, why, steps, heads, loop, order, learn].map((entry) => Object.freeze(entry)),
);
