// Turns a configuration from outside (a slide deck's message, a script's setConfig call) into a
// partial options object, through the same schema, rules and words as URL parameters. Anything
// that cannot be used throws, so nothing is half applied.
import { readOptions, optionRow, OPTION_NAMES } from './options.js';
import { presetOf } from './lecture/presets.js';

/**
 * @param {object} config e.g. { preset: 'gpt2', heads: 4 } or { width: '8', causal: false }
 * @param {object} current the element's current options (for the width / heads rule)
 * @returns {object} the options to change
 */
export function configFromMessage(config, current) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new TypeError('the configuration must be an object such as { "preset": "gpt2" }');
  }
  const given = new Map();
  for (const [key, value] of Object.entries(config)) {
    const row = optionRow(key);
    if (row === null) {
      throw new TypeError(`unknown option "${String(key).slice(0, 40)}"; use ${OPTION_NAMES.join(', ')}`);
    }
    if (given.has(row.name)) throw new TypeError(`option "${row.name}" is given twice`);
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      throw new TypeError(`option "${row.name}" must be a string, a number or a boolean`);
    }
    given.set(row.name, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  const { options, notes } = readOptions((name) => (given.has(name) ? given.get(name) : null));
  if (notes.length) throw new RangeError(notes.join(' '));
  const partial = {};
  for (const name of given.keys()) {
    const row = optionRow(name);
    const custom = name === 'preset' && given.get(name) === 'custom'; // keeps the current sizes
    for (const property of custom ? [] : (row.sets ?? [row.property])) partial[property] = options[property];
  }
  const dModel = partial.dModel ?? current.dModel;
  const heads = partial.heads ?? current.heads;
  if (dModel % heads !== 0) {
    throw new RangeError(`width ${dModel} is not divisible by ${heads} heads (heads x head_dim must equal width)`);
  }
  const sized = partial.dModel !== undefined || partial.heads !== undefined || given.has('preset');
  if (sized) partial.preset = presetOf(dModel, heads);
  return partial;
}
