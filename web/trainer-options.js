// The trainer's options, checked against the core's own option table (trainerOptionTable): the
// names, types, ranges, choices and defaults live in C++ (wasm/core/train/trainer_options.cpp),
// so nothing here repeats them. Wrong types are TypeErrors, values out of range RangeErrors.
import { describe } from './arguments.js';
import { checkedType, optionTable } from './option-rows.js';

// Options of an earlier release, still accepted: variant 'verb-noun' | 'verb' names the task.
const ALIASES = Object.freeze({ variant: 'task' });

/**
 * The core's option table: { options: [{ name, type, min, max, default, choices, about }],
 * maxMultiplyAddsPerCall }.
 */
export function optionTableOf(core) {
  return optionTable(
    core,
    'trainerOptionTable',
    (raw) => raw.options,
    (raw, options, byName) => ({ options, maxMultiplyAddsPerCall: raw.maxMultiplyAddsPerCall, byName }),
  );
}

function checkValue(row, value) {
  const { name, type } = row;
  if (checkedType(row, value)) return value;
  if (type === 'number') {
    if (!(value > row.min && value <= row.max) || !Number.isFinite(value)) {
      throw new RangeError(`${name} must be a number in (${row.min}, ${row.max}], got ${describe(value)}`);
    }
    return value;
  }
  if (!Number.isInteger(value) || value < row.min || value > row.max) {
    throw new RangeError(`${name} must be a whole number between ${row.min} and ${row.max}, got ${describe(value)}`);
  }
  return value;
}

/** Every option filled in (defaults from the core) and checked; frozen. */
export function normalizeTrainerOptions(table, options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`the trainer options must be an object, got ${describe(options)}`);
  }
  const given = {};
  // One read of each own key, checked against an explicit allow-list (a Map, so "constructor" or
  // "toString" are unknown options, not inherited ones).
  for (const key of Object.keys(options)) {
    const name = Object.hasOwn(ALIASES, key) ? ALIASES[key] : key;
    if (!table.byName.has(name)) {
      throw new TypeError(`unknown trainer option ${describe(key)} (known: ${[...table.byName.keys()].join(', ')})`);
    }
    if (Object.hasOwn(given, name)) throw new TypeError(`give ${name} once (variant is another name for task)`);
    given[name] = options[key];
  }
  if (Object.hasOwn(options, 'variant')) {
    const variant = given.task;
    if (typeof variant !== 'string') throw new TypeError(`variant must be a string, got ${describe(variant)}`);
    if (variant !== 'verb-noun' && variant !== 'verb') {
      throw new RangeError(`variant must be "verb-noun" or "verb", got ${describe(variant)}`);
    }
  }
  const out = {};
  for (const row of table.options)
    out[row.name] = checkValue(row, Object.hasOwn(given, row.name) ? given[row.name] : row.default);
  if (out.headDim === 0 && out.dModel % out.heads !== 0) {
    throw new RangeError(`dModel (${out.dModel}) must be a multiple of heads (${out.heads}), or give headDim`);
  }
  return Object.freeze(out);
}
