// Checks on what callers pass, before anything enters wasm memory: release builds of the glue
// silently coerce ("3" -> 3, NaN -> 0, 1.9 -> 1), so nothing unchecked may reach it.
// Arrays are converted into a private copy and checked there; the copy is what gets written, so
// no caller code (a getter, a Proxy, a valueOf) can run between the check and the write.

// The engine's own typed-array accessors, taken once at load: they read internal slots, so they
// work on arrays from another realm (an iframe) and cannot be fooled by a Proxy or a subclass.
const TypedArrayPrototype = Object.getPrototypeOf(Int8Array.prototype);
const typedArrayName = Object.getOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag).get;
const typedArrayLength = Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'length').get;
const typedArraySet = TypedArrayPrototype.set;
const isArray = Array.isArray;
const fround = Math.fround;
const isFinite = Number.isFinite;

/** The name of a typed array's kind (from its internal slot), or undefined for anything else. */
function typedArrayKind(value) {
  return ArrayBuffer.isView(value) ? typedArrayName.call(value) : undefined;
}

export function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'function') return 'a function';
  if (value === null) return 'null';
  if (typeof value !== 'object') return String(value);
  const kind = typedArrayKind(value);
  if (kind) return `a ${kind}`;
  if (isArray(value)) return 'an array';
  // Only for the message, after the refusal: nothing is written afterwards, and a throwing
  // getter or Proxy trap cannot replace the refusal with its own error.
  try {
    const constructorName = value.constructor?.name;
    if (typeof constructorName === 'string' && constructorName !== '') return `a ${constructorName}`;
  } catch {
    /* described generically */
  }
  return 'an object';
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

/** A seed: a number (TypeError otherwise), a whole one in 0..2^32-1 (RangeError otherwise). */
export function seedArgument(name, value) {
  integerArgument(name, value);
  if (value < 0 || value > 0xffffffff) {
    throw new RangeError(`${name} must be between 0 and 4294967295, got ${value}`);
  }
  return value;
}

/** A size that must be at least 1 (for callers that use it before the core sees it). */
export function positiveSize(name, value) {
  if (value < 1) throw new RangeError(`${name} must be at least 1, got ${value}`);
  return value;
}

/** Options objects: an object (or undefined) whose keys are all in `known`. Returns the values read once. */
export function optionsArgument(what, options, known) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || isArray(options)) {
    throw new TypeError(`${what} options must be an object, got ${describe(options)}`);
  }
  const read = {};
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`unknown ${what} option "${key}" (known: ${known.join(', ')})`);
    }
    read[key] = options[key];
  }
  return read;
}

function outOfRange(name, index, value) {
  return new RangeError(
    `${name}[${index}] is ${value}; every value must be finite` +
      (isFinite(value) ? ' in float32 (at most 3.4028234663852886e38 in size)' : ''),
  );
}

/**
 * A private Float32Array copy of `value` with exactly `length` finite float32 values.
 * Accepts a Float32Array (from any realm) or an array of numbers; nothing else.
 * `shape` is only used in messages. `into`: a Float32Array of `length` to copy into instead of a
 * new one (the pool reuses its buffers: a fresh large array is slow to touch, docs/pool-chromium.md).
 */
export function floatArrayArgument(name, value, length, shape, into = null) {
  const kind = typedArrayKind(value);
  const wrongLength = (got) => new RangeError(`${name} must have ${length} values ((${shape.join(', ')})), got ${got}`);
  if (kind !== undefined) {
    if (kind !== 'Float32Array') {
      throw new TypeError(`${name} must be a Float32Array (or an array of numbers), got a ${kind}`);
    }
    const got = typedArrayLength.call(value);
    if (got !== length) throw wrongLength(got);
    const copy = into ?? new Float32Array(length);
    typedArraySet.call(copy, value); // reads the buffer directly: no caller code runs
    for (let i = 0; i < length; i += 1) {
      if (!isFinite(copy[i])) throw outOfRange(name, i, copy[i]);
    }
    return copy;
  }
  if (!isArray(value)) {
    throw new TypeError(`${name} must be a Float32Array (or an array of numbers), got ${describe(value)}`);
  }
  // The length first: a sparse array of length 2^32-1 must be refused before anything is allocated.
  const got = value.length;
  if (got !== length) throw wrongLength(got);
  const copy = into ?? new Float32Array(length);
  for (let i = 0; i < length; i += 1) {
    const element = value[i]; // read once (a getter or a Proxy trap runs here, before any write)
    if (typeof element !== 'number') {
      throw new TypeError(`${name}[${i}] must be a number, got ${describe(element)}`);
    }
    if (!isFinite(fround(element))) throw outOfRange(name, i, element);
    copy[i] = element;
  }
  return copy;
}

/** Freezes an object and every object inside it. */
export function deepFreeze(value) {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}
