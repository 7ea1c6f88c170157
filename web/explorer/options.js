// The explorer's options: one schema for every way in and out. Each row names an option once
// (the URL parameter, the attribute and the setConfig / postMessage key), says which property of
// `options` holds it (the name in camelCase unless told), its default and how a raw value is read.
// The page's rows are here; each panel's own rows (its state: a step, a kind, a lock, ...) come from
// its entry in the registry (panels/index.js) and are marked with its id. URL parameters,
// attributes, setConfig, postMessage, setOptions, getState and queryOf all go through this table.
// A value that cannot be used is reported in words and replaced by the default.
import { PRESETS, DEFAULT_TEXT, presetOf } from './lecture/presets.js';
import { DEFAULT_TOKEN_LIMIT } from './lecture/tokenizer.js';
import { PANELS } from './panels/index.js';

/** The theme option's values: 'auto' follows the viewer's light or dark setting. */
export const THEMES = Object.freeze(['light', 'dark', 'auto']);
/** The panels' ids, in page order (the registry's). */
export const PANEL_IDS = Object.freeze(PANELS.map((entry) => entry.id));
const PANEL_ALIASES = Object.fromEntries(PANELS.flatMap((entry) => (entry.aliases ?? []).map((a) => [a, entry.id])));
const MAX_SENTENCE_CHARS = 100_000;

const quoted = (raw) => JSON.stringify(raw.slice(0, 40));
const camelCase = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

// Readers: (raw string, name) -> { value } or { note }.
const integer = (min, max) => (raw, name) => {
  const v = Number(raw.trim());
  if (Number.isInteger(v) && v >= min && v <= max) return { value: v };
  return { note: `${name}=${quoted(raw)} was ignored: it must be a whole number from ${min} to ${max}.` };
};
const flag = (raw, name) => {
  const text = raw.trim();
  if (/^(1|true|on|yes|)$/i.test(text)) return { value: true };
  if (/^(0|false|off|no)$/i.test(text)) return { value: false };
  return { note: `${name}=${quoted(raw)} was ignored: use 1 or 0.` };
};
const panel = (raw) => {
  if (raw === '' || raw === 'all') return { value: null };
  const p = PANEL_ALIASES[raw] ?? raw;
  if (PANEL_IDS.includes(p)) return { value: p };
  return { note: `panel=${quoted(raw)} is not a panel; use one of ${PANEL_IDS.join(', ')}.` };
};
// 'custom' (what getState says for other sizes) keeps width and heads as they are.
const preset = (raw) => {
  if (Object.hasOwn(PRESETS, raw) || raw === 'custom') return { value: raw };
  return { note: `preset=${quoted(raw)} is not a preset; use one of ${Object.keys(PRESETS).join(', ')}.` };
};
const text = (raw) => ({ value: raw.slice(0, MAX_SENTENCE_CHARS) });
const oneOf = (choices) => (raw, name) => {
  const found = choices.find((c) => String(c) === raw.trim().replace(/\s+/g, ''));
  if (found !== undefined) return { value: found };
  return { note: `${name}=${quoted(raw)} was ignored: use ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}.` };
};

// A panel's row declares its values as data: choices (one of them), range (a whole number in
// [min, max]), a boolean fallback (a flag), or its own read(raw, name).
const readerOf = (row) =>
  row.read ??
  (row.choices
    ? oneOf(row.choices)
    : row.range
      ? integer(...row.range)
      : typeof row.fallback === 'boolean'
        ? flag
        : text);
const panelRows = PANELS.flatMap((entry) =>
  (entry.options ?? []).map((row) => ({ ...row, panel: entry.id, read: readerOf(row) })),
);

/**
 * name: URL parameter, attribute and setConfig key; property: where `options` keeps it (also
 * accepted by setConfig); state: its value in getState(); query: its value in the URL (null: left
 * out); panel: the panel whose state it is. A preset also sets width and heads.
 */
export const OPTION_SCHEMA = Object.freeze(
  [
    { name: 'panel', read: panel, fallback: null, state: (v) => v ?? 'all', query: (v) => v ?? null },
    { name: 'preset', read: preset, fallback: 'toy', sets: ['preset', 'dModel', 'heads'] },
    { name: 'width', property: 'dModel', read: integer(1, 1_000_000), fallback: PRESETS.toy.dModel },
    { name: 'heads', read: integer(1, 1_000_000), fallback: PRESETS.toy.heads },
    { name: 'causal', read: flag, fallback: true },
    { name: 'seed', read: integer(0, 0xffffffff), fallback: 1 },
    { name: 'sentence', read: text, fallback: DEFAULT_TEXT }, // one sentence per line: a batch
    { name: 'slide', read: flag, fallback: false },
    { name: 'max-tokens', read: integer(1, 512), fallback: DEFAULT_TOKEN_LIMIT },
    // Light unless asked: an embed on a white deck stays white when the laptop is in dark mode.
    { name: 'theme', read: oneOf(THEMES), fallback: 'light' },
    ...panelRows,
  ].map((row) => Object.freeze({ ...row, property: row.property ?? camelCase(row.name), key: camelCase(row.name) })),
);

/** The attribute / URL parameter names. */
export const OPTION_NAMES = Object.freeze(OPTION_SCHEMA.map((row) => row.name));
/** The properties of an options object (what setOptions takes). */
export const OPTION_PROPERTIES = Object.freeze(OPTION_SCHEMA.map((row) => row.property));

/** The schema row a key names: the attribute name, its camelCase or the options property. */
export function optionRow(key) {
  return OPTION_SCHEMA.find((row) => row.name === key || row.key === key || row.property === key) ?? null;
}

export function defaultOptions() {
  return Object.fromEntries(OPTION_SCHEMA.map((row) => [row.property, row.fallback]));
}

/**
 * get(name) returns the raw string or null. Width and heads stay as given (even if invalid
 * together): explaining an invalid combination is the input panel's job.
 */
export function readOptions(get) {
  const notes = [];
  const o = defaultOptions();
  const given = new Set();
  for (const row of OPTION_SCHEMA) {
    const raw = get(row.name);
    if (raw === null || raw === undefined) continue;
    const { value, note } = row.read(String(raw), row.name);
    if (note) {
      notes.push(note);
      continue;
    }
    given.add(row.name);
    o[row.property] = value;
    if (row.name === 'preset' && value !== 'custom') {
      const { dModel, heads } = PRESETS[value];
      Object.assign(o, { dModel, heads });
    }
  }
  if (given.has('width') || given.has('heads') || o.preset === 'custom') o.preset = presetOf(o.dModel, o.heads);
  return { options: o, notes, given };
}

/** Options from a query string such as location.search. */
export function optionsFromQuery(search) {
  const params = new URLSearchParams(search);
  const { options, notes } = readOptions((name) => params.get(name));
  return { options, notes };
}

/** The getState() view of the options: every option under its camelCase name. */
export function stateOf(o) {
  const shown = (row) => (row.state ? row.state(o[row.property]) : o[row.property]);
  return Object.fromEntries(OPTION_SCHEMA.map((row) => [row.key, shown(row)]));
}

/** The query string that reproduces the options (for "link to this view"); defaults are left out. */
export function queryOf(o) {
  const p = new URLSearchParams();
  const custom = o.preset === 'custom';
  for (const row of OPTION_SCHEMA) {
    const v = o[row.property];
    if (row.name === 'preset') {
      if (!custom && v !== row.fallback) p.set('preset', v);
      continue;
    }
    if (row.name === 'width' || row.name === 'heads') {
      if (custom) p.set(row.name, String(v));
      continue;
    }
    const text = typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
    const shown = row.query ? row.query(v) : v === row.fallback ? null : text;
    if (shown !== null) p.set(row.name, shown);
  }
  return `?${p}`;
}
