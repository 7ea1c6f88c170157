// Checks on what callers pass, before anything enters wasm memory: release builds of the glue
// silently coerce ("3" -> 3, NaN -> 0, 1.9 -> 1), so nothing unchecked may reach it.

export const CONFIG_DEFAULTS = Object.freeze({
  batch: 1, tokens: 6, dModel: 6, heads: 2, headDim: undefined,
  causal: true, bias: false, seed: 0, memoryBudget: undefined,
});

const SIZE_KEYS = ['batch', 'tokens', 'dModel', 'heads'];
// A layer's own config carries this derived value, so it can be passed back in as it is.
const DERIVED_KEYS = new Set(['concatWidth']);

function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'object'}`;
  return String(value);
}

function integerArgument(name, value) {
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  }
  if (!Number.isInteger(value)) {
    throw new RangeError(`${name} must be a whole number, got ${describe(value)}`);
  }
  return value;
}

function booleanArgument(name, value) {
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be true or false, got ${describe(value)}`);
  return value;
}

/** Fills defaults and checks types; the sizes themselves are judged by the core. */
export function normalizeConfig(config = {}) {
  if (config === null || typeof config !== 'object') {
    throw new TypeError(`the configuration must be an object, got ${describe(config)}`);
  }
  const known = new Set(Object.keys(CONFIG_DEFAULTS));
  for (const key of Object.keys(config)) {
    if (!known.has(key) && !DERIVED_KEYS.has(key)) {
      throw new TypeError(`unknown configuration option "${key}" (known: ${[...known].join(', ')})`);
    }
  }
  const c = { ...CONFIG_DEFAULTS, ...config };
  delete c.concatWidth;
  for (const key of SIZE_KEYS) integerArgument(key, c[key]);
  if (c.headDim !== undefined && c.headDim !== null) {
    integerArgument('headDim', c.headDim);
    // The core reads 0 as "derive it"; from JS that is spelled by leaving headDim out.
    if (c.headDim === 0) {
      throw new RangeError('headDim must be at least 1 when given (leave it out to use width / heads), got 0');
    }
  } else c.headDim = undefined;
  booleanArgument('causal', c.causal);
  booleanArgument('bias', c.bias);
  integerArgument('seed', c.seed);
  if (c.seed < 0 || c.seed > 0xffffffff) {
    throw new RangeError(`seed must be between 0 and 4294967295, got ${c.seed}`);
  }
  if (c.memoryBudget !== undefined) {
    integerArgument('memoryBudget', c.memoryBudget);
    if (c.memoryBudget < 1) throw new RangeError(`memoryBudget must be at least 1 byte, got ${c.memoryBudget}`);
  }
  return c;
}

const sizeOf = (shape) => shape.reduce((a, b) => a * b, 1);

/** A Float32Array (or array of numbers) with exactly as many finite values as `shape` holds. */
export function floatArrayArgument(name, value, shape) {
  const length = sizeOf(shape);
  let array = value;
  if (Array.isArray(value)) array = Float32Array.from(value, Number);
  else if (!(value instanceof Float32Array)) {
    throw new TypeError(`${name} must be a Float32Array (or an array of numbers), got ${describe(value)}`);
  }
  if (array.length !== length) {
    throw new RangeError(`${name} must have ${length} values ((${shape.join(', ')})), got ${array.length}`);
  }
  for (let i = 0; i < array.length; i += 1) {
    if (!Number.isFinite(array[i])) {
      throw new RangeError(`${name}[${i}] is ${array[i]}; every value must be finite`);
    }
  }
  return array;
}
