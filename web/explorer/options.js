// The explorer's options, read from URL parameters or element attributes (the same names):
// panel, preset, width, heads, causal, seed, sentence, slide, max-tokens. A value that cannot be
// used is reported in words and replaced by the default.
import { PRESETS, DEFAULT_SENTENCE } from './presets.js';
import { DEFAULT_TOKEN_LIMIT } from './tokenizer.js';

export const PANELS = Object.freeze(['input', 'why', 'steps', 'heads', 'loop', 'order']);
export const OPTION_NAMES = Object.freeze(['panel', 'preset', 'width', 'heads', 'causal', 'seed', 'sentence', 'slide', 'max-tokens']);
const PANEL_ALIASES = { 'one-head': 'why', 'five-steps': 'steps', fused: 'loop', 'loop-fused': 'loop', 'word-order': 'order', words: 'order' };
const MAX_SENTENCE_CHARS = 100_000;

const flag = (text) => (/^(1|true|on|yes|)$/i.test(text) ? true : /^(0|false|off|no)$/i.test(text) ? false : null);

/**
 * get(name) returns the raw string or null. Width and heads stay as given (even if invalid
 * together): explaining an invalid combination is the input panel's job.
 */
export function readOptions(get) {
  const notes = [];
  const o = { panel: null, preset: 'toy', dModel: PRESETS.toy.dModel, heads: PRESETS.toy.heads, causal: true, seed: 1, sentence: DEFAULT_SENTENCE, slide: false, maxTokens: DEFAULT_TOKEN_LIMIT };
  const integer = (name, min, max) => {
    const raw = get(name);
    if (raw === null) return null;
    const v = Number(raw.trim());
    if (!Number.isInteger(v) || v < min || v > max) {
      notes.push(`${name}=${JSON.stringify(raw.slice(0, 40))} was ignored: it must be a whole number from ${min} to ${max}.`);
      return null;
    }
    return v;
  };
  const panel = get('panel');
  if (panel !== null && panel !== '' && panel !== 'all') {
    const p = PANEL_ALIASES[panel] ?? panel;
    if (PANELS.includes(p)) o.panel = p;
    else notes.push(`panel=${JSON.stringify(panel.slice(0, 40))} is not a panel; use one of ${PANELS.join(', ')}.`);
  }
  const preset = get('preset');
  if (preset !== null) {
    if (Object.hasOwn(PRESETS, preset)) Object.assign(o, { preset, dModel: PRESETS[preset].dModel, heads: PRESETS[preset].heads });
    else notes.push(`preset=${JSON.stringify(preset.slice(0, 40))} is not a preset; use one of ${Object.keys(PRESETS).join(', ')}.`);
  }
  const width = integer('width', 1, 1_000_000);
  if (width !== null) o.dModel = width;
  const heads = integer('heads', 1, 1_000_000);
  if (heads !== null) o.heads = heads;
  const seed = integer('seed', 0, 0xffffffff);
  if (seed !== null) o.seed = seed;
  const maxTokens = integer('max-tokens', 1, 512);
  if (maxTokens !== null) o.maxTokens = maxTokens;
  for (const name of ['causal', 'slide']) {
    const raw = get(name);
    if (raw === null) continue;
    const v = flag(raw.trim());
    if (v === null) notes.push(`${name}=${JSON.stringify(raw.slice(0, 40))} was ignored: use 1 or 0.`);
    else o[name] = v;
  }
  const sentence = get('sentence');
  if (sentence !== null) o.sentence = sentence.slice(0, MAX_SENTENCE_CHARS);
  if (width !== null || heads !== null) o.preset = Object.entries(PRESETS).find(([, p]) => p.dModel === o.dModel && p.heads === o.heads)?.[0] ?? 'custom';
  return { options: o, notes };
}

/** Options from a query string such as location.search. */
export function optionsFromQuery(search) {
  const params = new URLSearchParams(search);
  return readOptions((name) => params.get(name));
}

/** The query string that reproduces the options (for "link to this view"). */
export function queryOf(o) {
  const p = new URLSearchParams();
  if (o.panel) p.set('panel', o.panel);
  if (o.preset !== 'custom') p.set('preset', o.preset);
  else { p.set('width', String(o.dModel)); p.set('heads', String(o.heads)); }
  if (!o.causal) p.set('causal', '0');
  if (o.seed !== 1) p.set('seed', String(o.seed));
  if (o.sentence !== DEFAULT_SENTENCE) p.set('sentence', o.sentence);
  if (o.slide) p.set('slide', '1');
  return `?${p}`;
}
