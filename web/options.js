// Options as the core's tables define them (createAttention's: attentionOptionTable in
// wasm/core/attention_options.cpp; the trainer's: trainerOptionTable in
// wasm/core/train/trainer_options.cpp): names, types, ranges, choices and defaults live in C++, so
// nothing here repeats them. Each table is read once per module, its rows frozen and found by name
// (a Map: "constructor" or "toString" are not rows). A value is checked against its row's type:
// wrong types are TypeErrors, values out of range RangeErrors; "size" rows are judged by the
// core, which says what is wrong in words (release builds of the glue coerce silently, so the
// types are checked here first).
import { describe } from './arguments.js';
import { HeadwiseError } from './errors.js';

const tables = new WeakMap();

// The core's table from `binding` (its rows at `rowsOf(raw)`), read once per core.
function optionTable(core, binding, rowsOf, shape) {
  let byBinding = tables.get(core);
  if (!byBinding) tables.set(core, (byBinding = new Map()));
  if (!byBinding.has(binding)) {
    const raw = core.call(binding);
    if (raw === null) throw new HeadwiseError(core.call('lastError'));
    const rows = Object.freeze(
      rowsOf(raw).map((row) => Object.freeze({ ...row, choices: row.choices && Object.freeze([...row.choices]) })),
    );
    byBinding.set(binding, Object.freeze(shape(raw, rows, new Map(rows.map((row) => [row.name, row])))));
  }
  return byBinding.get(binding);
}

/** createAttention's table: { rows: [{ name, type, min, max, unit, default, choices, about }], byName }. */
export function attentionOptionTableOf(core) {
  return optionTable(
    core,
    'attentionOptionTable',
    (raw) => raw,
    (raw, rows, byName) => ({ rows, byName }),
  );
}

/**
 * The trainer's table: { options: [{ name, type, min, max, default, choices, about }],
 * maxMultiplyAddsPerCall, taskDefaults: { [task]: { evalSize } }, byName }.
 */
export function trainerOptionTableOf(core) {
  return optionTable(
    core,
    'trainerOptionTable',
    (raw) => raw.options,
    (raw, options, byName) => ({
      options,
      maxMultiplyAddsPerCall: raw.maxMultiplyAddsPerCall,
      taskDefaults: Object.freeze(
        Object.fromEntries(Object.entries(raw.taskDefaults).map(([task, d]) => [task, Object.freeze({ ...d })])),
      ),
      byName,
    }),
  );
}

const unitText = (row) => (row.unit ? ` ${row.unit}` : '');

/** A value against its row: the value, or a TypeError / RangeError that says what is wrong. */
function checkValue(row, value) {
  const { name, type } = row;
  if (type === 'boolean') {
    if (typeof value !== 'boolean') throw new TypeError(`${name} must be true or false, got ${describe(value)}`);
    return value;
  }
  if (type === 'choice') {
    if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${describe(value)}`);
    if (!row.choices.includes(value)) {
      throw new RangeError(
        `${name} must be one of ${row.choices.map((c) => JSON.stringify(c)).join(', ')}, got ${describe(value)}`,
      );
    }
    return value;
  }
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (type === 'number') {
    if (!(value > row.min && value <= row.max) || !Number.isFinite(value)) {
      throw new RangeError(`${name} must be a number in (${row.min}, ${row.max}], got ${describe(value)}`);
    }
    return value;
  }
  if (type === 'integer' && row.max !== null && !(Number.isInteger(value) && value >= row.min && value <= row.max)) {
    throw new RangeError(`${name} must be a whole number between ${row.min} and ${row.max}, got ${describe(value)}`);
  }
  if (!Number.isInteger(value)) throw new RangeError(`${name} must be a whole number, got ${describe(value)}`);
  if (type === 'integer' && value < row.min) {
    throw new RangeError(`${name} must be at least ${row.min}${unitText(row)}, got ${value}`);
  }
  return value;
}

// One read of each own key (a getter or Proxy sees exactly one read), checked against the table's
// Map. aliases: another accepted name -> its option's name; ignored: keys accepted and dropped.
function givenOptions(what, table, options, { aliases = {}, ignored = new Set() } = {}) {
  if (options === null || typeof options !== 'object' || (what !== 'configuration' && Array.isArray(options))) {
    throw new TypeError(`the ${what} must be an object, got ${describe(options)}`);
  }
  const given = {};
  for (const key of Object.keys(options)) {
    if (ignored.has(key)) continue;
    const name = Object.hasOwn(aliases, key) ? aliases[key] : key;
    if (!table.byName.has(name)) {
      const known = [...table.byName.keys()].join(', ');
      throw new TypeError(
        what === 'configuration'
          ? `unknown configuration option "${key}" (known: ${known})`
          : `unknown trainer option ${describe(key)} (known: ${known})`,
      );
    }
    if (Object.hasOwn(given, name)) {
      const alias = Object.keys(aliases).find((a) => aliases[a] === name);
      throw new TypeError(`give ${name} once (${alias} is another name for ${name})`);
    }
    given[name] = options[key];
  }
  return given;
}

// createAttention: this derived value of a layer's own config is accepted (and ignored), so a
// config can be passed back in as it is; these options' 0 in the core means "not given", so from
// JavaScript they are left out instead.
const DERIVED_KEYS = new Set(['concatWidth']);
const LEFT_OUT_AS_ZERO = new Set(['headDim', 'memoryBudget', 'kvHeads']);

/**
 * createAttention's options: every one filled in (defaults from the core) and its type checked.
 * headDim and memoryBudget stay undefined when left out (the core then derives them).
 */
export function normalizeConfig(table, config = {}) {
  const given = givenOptions('configuration', table, config, { ignored: DERIVED_KEYS });
  const c = {};
  for (const row of table.rows) {
    const isGiven = Object.hasOwn(given, row.name);
    const value = isGiven ? given[row.name] : undefined;
    if (LEFT_OUT_AS_ZERO.has(row.name) && (value === undefined || (value === null && row.name === 'headDim'))) {
      c[row.name] = undefined;
    } else {
      if (LEFT_OUT_AS_ZERO.has(row.name) && value === 0) {
        throw new RangeError(
          row.name === 'headDim'
            ? 'headDim must be at least 1 when given (leave it out to use width / heads), got 0'
            : `${row.name} must be at least 1${unitText(row)}, got 0`,
        );
      }
      c[row.name] = checkValue(row, isGiven ? value : row.default);
    }
  }
  return c;
}

/** The value_object the core's createModel, validateConfig and shapeTrace take. */
export function coreOptions(c) {
  return { ...c, headDim: c.headDim ?? 0, memoryBudget: c.memoryBudget ?? 0, kvHeads: c.kvHeads ?? 0 };
}

// The trainer: options of an earlier release, still accepted: variant 'verb-noun' | 'verb' names the task.
const TRAINER_ALIASES = Object.freeze({ variant: 'task' });

/**
 * The trainer's options: every one filled in (defaults from the core; evalSize left out or 0 is
 * the task's own, table.taskDefaults) and each checked by its row; frozen. The rules between
 * options (width divisible by heads) are the core's, refused when it creates the trainer.
 */
export function normalizeTrainerOptions(table, options = {}) {
  const given = givenOptions('trainer options', table, options, { aliases: TRAINER_ALIASES });
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
  if (out.evalSize === 0) out.evalSize = table.taskDefaults[out.task].evalSize;
  return Object.freeze(out);
}
