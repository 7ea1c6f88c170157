// One table of option values, valid and not, for every way an option reaches the explorer: URL
// parameters, attributes, setConfig, postMessage; and what getState then says. Used by the Node
// test of the schema (tests/js) and the browser test of the element (tests/browser). Patterns are
// strings so the table can cross into a page.
//   state: what getState shows after the value is applied to the defaults (width 6, 2 heads)
//   error: the words of the refusal (URL and attributes: a note; setConfig: a RangeError)
//   setConfigError: setConfig refuses what URL and attributes accept (the width / heads rule)
export const OPTION_CASES = [
  { name: 'panel', value: 'heads', state: { panel: 'heads' } },
  { name: 'panel', value: 'five-steps', state: { panel: 'steps' } },
  { name: 'panel', value: 'all', state: { panel: 'all' } },
  { name: 'panel', value: 'nope', error: 'panel="nope" is not a panel' },
  { name: 'preset', value: 'gpt2', state: { preset: 'gpt2', width: 768, heads: 12 } },
  { name: 'preset', value: 'gpt9', error: 'preset="gpt9" is not a preset; use one of toy, gpt2, gpt3' },
  { name: 'width', value: 8, state: { width: 8, preset: 'custom' } },
  {
    name: 'width',
    value: 7,
    state: { width: 7, preset: 'custom' },
    setConfigError: 'width 7 is not divisible by 2 heads',
  },
  { name: 'width', value: 'abc', error: 'width="abc" was ignored: it must be a whole number from 1 to 1000000' },
  { name: 'width', value: '1.5', error: 'width="1.5" was ignored' },
  { name: 'heads', value: 3, state: { heads: 3, preset: 'custom' } },
  { name: 'heads', value: -4, error: 'heads="-4" was ignored' },
  { name: 'causal', value: false, state: { causal: false } },
  { name: 'causal', value: 'off', state: { causal: false } },
  { name: 'causal', value: 'maybe', error: 'causal="maybe" was ignored: use 1 or 0' },
  { name: 'seed', value: 7, state: { seed: 7 } },
  {
    name: 'seed',
    value: 4294967296,
    error: 'seed="4294967296" was ignored: it must be a whole number from 0 to 4294967295',
  },
  { name: 'sentence', value: 'Hello <b>world</b>', state: { sentence: 'Hello <b>world</b>' } },
  { name: 'slide', value: true, state: { slide: true } },
  { name: 'slide', value: 'yes', state: { slide: true } },
  { name: 'max-tokens', value: 20, state: { maxTokens: 20 } },
  { name: 'max-tokens', value: 513, error: 'max-tokens="513" was ignored: it must be a whole number from 1 to 512' },
  { name: 'theme', value: 'dark', state: { theme: 'dark' } },
  { name: 'theme', value: 'auto', state: { theme: 'auto' } },
  { name: 'theme', value: 'purple', error: 'theme="purple" was ignored: use light, dark or auto' },
  { name: 'learn-seed', value: 3, state: { learnSeed: 3 } },
  {
    name: 'learn-seed',
    value: -1,
    error: 'learn-seed="-1" was ignored: it must be a whole number from 0 to 4294967295',
  },
  { name: 'learn-width', value: 64, state: { learnWidth: 64 } },
  { name: 'learn-width', value: 48, error: 'learn-width="48" was ignored: use 16, 32 or 64' },
  { name: 'learn-heads', value: '1,2,4', state: { learnHeads: '1,2,4' } },
  { name: 'learn-heads', value: '1, 2, 4', state: { learnHeads: '1,2,4' } },
  { name: 'learn-heads', value: '3', error: 'learn-heads="3" was ignored: use 1,2 or 1,2,4' },
  { name: 'learn-experiment', value: 'layers', state: { learnExperiment: 'layers' } },
  { name: 'learn-experiment', value: 'heads', state: { learnExperiment: 'heads' } },
  { name: 'learn-experiment', value: 'story', state: { learnExperiment: 'story' } },
  {
    name: 'learn-experiment',
    value: 'depth',
    error: 'learn-experiment="depth" was ignored: use heads, layers or story',
  },
  { name: 'learn-split', value: 'data', state: { learnSplit: 'data' } },
  { name: 'learn-split', value: 'heads', error: 'learn-split="heads" was ignored: use model or data' },
  { name: 'heads-weights', value: 'random', state: { headsWeights: 'random' } },
  { name: 'heads-weights', value: 'trained', state: { headsWeights: 'trained' } },
  { name: 'heads-weights', value: 'learned', error: 'heads-weights="learned" was ignored: use trained or random' },
  { name: 'step', value: 2, state: { step: 2 } },
  { name: 'step', value: 'out-project', state: { step: 4 } },
  { name: 'step', value: 5, error: 'step="5" was ignored: use 0 to 4 or project, split, attend, merge, out-project' },
  { name: 'heads-lock', value: 4, state: { headsLock: 4 } },
  { name: 'heads-lock', value: -2, error: 'heads-lock="-2" was ignored: it must be a whole number from -1 to 1000000' },
  { name: 'heads-column', value: 'trained', state: { headsColumn: 'trained' } },
  { name: 'heads-column', value: 'mix', state: { headsColumn: 'mix' } },
  { name: 'heads-column', value: 'grid', error: 'heads-column="grid" was ignored: use maps, trained or mix' },
  { name: 'order-mask', value: true, state: { orderMask: true } },
  { name: 'order-mask', value: 'maybe', error: 'order-mask="maybe" was ignored: use 1 or 0' },
  { name: 'order-positions', value: 'rope', state: { orderPositions: 'rope' } },
  { name: 'order-positions', value: 'Rope!', error: 'order-positions="Rope!" was ignored: use a position kind' },
  { name: 'kv-heads', value: 4, state: { kvHeads: 4 } },
  { name: 'kv-heads', value: 3, error: 'kv-heads="3" was ignored: use 8, 4, 2 or 1' },
];

/** The text form of a value, as a URL parameter or an attribute carries it. */
export const asText = (value) => String(value);
