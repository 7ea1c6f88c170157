// Compiled (never run) by tests/package/types.test.js: the element's declarations, imported by
// package name through the exports map.
import { HeadwiseExplorer, type ExplorerState } from 'headwise/explorer';
import 'headwise/explorer/define';

const element = document.createElement('headwise-explorer');
const typed: HeadwiseExplorer = element;
const state: ExplorerState = typed.setConfig({ preset: 'gpt2', heads: 12, causal: false });
const step: number = typed.nextStep().step;
const name: 'project' | 'split' | 'attend' | 'merge' | 'out-project' = typed.goToStep(4).stepName;
typed.previousStep();
typed.setOptions({ heads: 4 }, { immediate: true });
element.addEventListener('headwise-render', (event) => {
  const ms: number = event.detail.computeMs;
  void ms;
});
const ready: boolean = typed.getState().ready && state.active;
const lifecycle: 'idle' | 'loading' | 'ready' | 'paused' | 'error' = typed.lifecycle;
const again: ExplorerState = typed.setConfig({
  preset: state.preset,
  width: state.width,
  heads: state.heads,
  sentence: state.sentence,
});
const notes: string[] = again.notes;
class Custom extends HeadwiseExplorer {}
customElements.define('my-explorer', Custom);
// @ts-expect-error preset names are checked
typed.setConfig({ preset: 'gpt4' });
// @ts-expect-error unknown option
typed.setConfig({ colour: 'red' });
// @ts-expect-error goToStep takes a number
typed.goToStep('merge');
const panels: number = typed.setConfig({
  'heads-lock': 3,
  orderMask: true,
  'order-positions': 'rope',
  step: 'attend',
}).headsLock;
// @ts-expect-error the kebab name of a property that has another attribute (width) is not an option
typed.setConfig({ 'd-model': 8 });
void panels;
void step;
void name;
void ready;
void lifecycle;
void notes;
