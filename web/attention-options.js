// createAttention's options, read from the core's own option table (attentionOptionTable): the
// names, types, defaults and position kinds live in C++ (wasm/core/attention_options.cpp), so
// nothing here repeats them. Types are checked here (release builds of the glue coerce silently);
// sizes ("size" rows) are judged by the core, which says what is wrong in words.
import { describe } from './arguments.js';
import { checkedType, optionTable } from './option-rows.js';

// A layer's own config carries this derived value, so it can be passed back in as it is.
const DERIVED_KEYS = new Set(['concatWidth']);
// Options whose 0 in the core means "not given": from JavaScript they are left out instead.
const LEFT_OUT_AS_ZERO = new Set(['headDim', 'memoryBudget']);

/** The core's rows, frozen: [{ name, type, min, max, unit, default, choices, about }], by name. */
export function attentionOptionTableOf(core) {
  return optionTable(
    core,
    'attentionOptionTable',
    (raw) => raw,
    (raw, rows, byName) => ({ rows, byName }),
  );
}

function checkValue(row, value) {
  const { name, type } = row;
  if (checkedType(row, value)) return value;
  if (!Number.isInteger(value)) throw new RangeError(`${name} must be a whole number, got ${describe(value)}`);
  if (LEFT_OUT_AS_ZERO.has(name) && value === 0) {
    throw new RangeError(
      name === 'headDim'
        ? 'headDim must be at least 1 when given (leave it out to use width / heads), got 0'
        : `${name} must be at least 1 ${row.unit}, got 0`,
    );
  }
  if (type === 'integer') {
    if (row.max === null && value < row.min)
      throw new RangeError(`${name} must be at least ${row.min} ${row.unit}, got ${value}`);
    if (row.max !== null && (value < row.min || value > row.max)) {
      throw new RangeError(`${name} must be between ${row.min} and ${row.max}, got ${value}`);
    }
  }
  return value;
}

/**
 * Every option filled in (defaults from the core) and its type checked. headDim and memoryBudget
 * stay undefined when left out (the core then derives them).
 */
export function normalizeConfig(table, config = {}) {
  if (config === null || typeof config !== 'object') {
    throw new TypeError(`the configuration must be an object, got ${describe(config)}`);
  }
  // One read of each own key (a getter or Proxy sees exactly one read), checked against the
  // table's Map, so "constructor" or "toString" are unknown options, not inherited ones.
  const given = {};
  for (const key of Object.keys(config)) {
    if (!table.byName.has(key) && !DERIVED_KEYS.has(key)) {
      throw new TypeError(`unknown configuration option "${key}" (known: ${[...table.byName.keys()].join(', ')})`);
    }
    if (table.byName.has(key)) given[key] = config[key];
  }
  const c = {};
  for (const row of table.rows) {
    const value = Object.hasOwn(given, row.name) ? given[row.name] : undefined;
    if (value === undefined && LEFT_OUT_AS_ZERO.has(row.name)) c[row.name] = undefined;
    else if (value === null && row.name === 'headDim') c[row.name] = undefined;
    else c[row.name] = checkValue(row, Object.hasOwn(given, row.name) ? value : row.default);
  }
  return c;
}

/** The value_object the core's createModel, validateConfig and shapeTrace take. */
export function coreOptions(c) {
  return { ...c, headDim: c.headDim ?? 0, memoryBudget: c.memoryBudget ?? 0 };
}
