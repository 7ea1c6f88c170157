// Trained models shipped with the package: web/checkpoints/<name>.json, written by
// scripts/make-checkpoints.sh with the native trainer and fixed seeds. A checkpoint holds the
// trainer options, the weights (float32 little-endian, base64, in buffer order; with
// "weightsEncoding": "float16", IEEE half precision little-endian, half the size), the held-out
// evaluation and role scores measured at the end, the first batch losses and a curve.
// Use it through Headwise.loadCheckpoint().
import { readFileInNode } from './core-loader.js';
import { describe } from './arguments.js';
import { HeadwiseError } from './errors.js';
import { TRAINABLE_RANGE } from './trainer.js';

// Each file by a static URL (read only when asked for), so that bundlers find and emit them; the
// classic-script bundles have no module URL and make these undefined
// (scripts/explorer-bundle.config.js): there checkpoints are passed as objects.
const CHECKPOINT_URLS = {
  'induction-1-layer': () => new URL('./checkpoints/induction-1-layer.json', import.meta.url),
  'induction-2-layers': () => new URL('./checkpoints/induction-2-layers.json', import.meta.url),
  'verb-noun-1-head': () => new URL('./checkpoints/verb-noun-1-head.json', import.meta.url),
  'verb-noun-2-heads': () => new URL('./checkpoints/verb-noun-2-heads.json', import.meta.url),
  'story-1-head': () => new URL('./checkpoints/story-1-head.json', import.meta.url),
  'story-2-heads': () => new URL('./checkpoints/story-2-heads.json', import.meta.url),
  'story-4-heads': () => new URL('./checkpoints/story-4-heads.json', import.meta.url),
  'story-2-layers': () => new URL('./checkpoints/story-2-layers.json', import.meta.url),
};

/** The checkpoints in web/checkpoints/, by name. */
export const CHECKPOINT_NAMES = Object.freeze(Object.keys(CHECKPOINT_URLS));
export const CHECKPOINT_FORMAT = 'headwise-checkpoint/1';

const isNode =
  typeof process === 'object' && typeof process.versions?.node === 'string' && typeof window === 'undefined';

async function readCheckpoint(name) {
  const url = CHECKPOINT_URLS[name]();
  if (url === undefined) {
    throw new HeadwiseError(`this build cannot read checkpoint files: pass the checkpoint object of "${name}"`);
  }
  if (isNode && url.protocol === 'file:') {
    return JSON.parse(new TextDecoder().decode(await readFileInNode(url)));
  }
  const response = await fetch(url);
  if (!response.ok) throw new HeadwiseError(`could not load checkpoint "${name}" from ${url}: HTTP ${response.status}`);
  return response.json();
}

// Bytes per weight, and the value at a byte offset, of each encoding.
const ENCODINGS = {
  float32: { bytes: 4, read: (view, at) => view.getFloat32(at, true) },
  float16: { bytes: 2, read: (view, at) => halfToFloat(view.getUint16(at, true)) },
};

/** The IEEE binary16 value of 16 bits (exact in a float32). */
export function halfToFloat(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 31;
  const mantissa = bits & 1023;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/**
 * The weights of a checkpoint as one Float32Array (buffer order). The text's length is checked
 * first (base64: 4 characters per 3 bytes), then its characters, then each value as decoded, so
 * a huge declared size or a huge string is refused before anything is decoded.
 */
export function checkpointWeights({ weights: text, parameterCount, weightsEncoding = 'float32' }) {
  const encoding = ENCODINGS[weightsEncoding];
  const bytes = encoding.bytes * parameterCount;
  const length = 4 * Math.ceil(bytes / 3);
  if (text.length !== length) {
    const cut = text.length % 4 !== 0 ? ', not a whole number of base64 groups of 4 (cut?)' : '';
    throw new RangeError(
      `checkpoint.weights has ${text.length} characters${cut}; ${bytes} bytes (parameterCount x ${encoding.bytes}) ` +
        `are ${length} characters of base64`,
    );
  }
  if (!BASE64.test(text) || text.match(/=*$/)[0].length !== length - Math.ceil((4 * bytes) / 3)) {
    throw new RangeError('checkpoint.weights must be base64 (A-Z a-z 0-9 + /, = at the end)');
  }
  const binary = atob(text);
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i += 1) view.setUint8(i, binary.charCodeAt(i));
  const values = new Float32Array(parameterCount);
  for (let i = 0; i < values.length; i += 1) {
    values[i] = encoding.read(view, encoding.bytes * i);
    if (!(Math.abs(values[i]) <= TRAINABLE_RANGE)) {
      throw new RangeError(
        `checkpoint.weights[${i}] is ${values[i]}: a checkpoint's weights lie within +-${TRAINABLE_RANGE}, ` +
          'the range that trains',
      );
    }
  }
  return values;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// The fields the package reads besides the weights, when present: their kinds.
const METADATA = {
  name: (v) => typeof v === 'string' && v.length <= 200,
  about: (v) => typeof v === 'string' && v.length <= 2000,
  command: (v) => typeof v === 'string' && v.length <= 2000,
  steps: (v) => Number.isSafeInteger(v) && v >= 0,
  evaluation: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  roles: Array.isArray,
  firstLosses: (v) => Array.isArray(v) && v.every((x) => typeof x === 'number'),
  curve: Array.isArray,
  weightHashes: Array.isArray,
  weightsEncoding: (v) => Object.hasOwn(ENCODINGS, v),
  ablation: Array.isArray,
};

// A checkpoint is JSON: everything but its weights is copied into plain frozen data before anything
// is created, each value read once (a getter or Proxy cannot show the check one thing and the
// trainer another). The shipped ones nest 6 levels and hold about 2,800 values.
const MAX_DEPTH = 32;
const MAX_VALUES = 1_000_000;

class Refusal extends TypeError {}

function jsonCopy(value, path, depth, ancestors, count) {
  if (++count.values > MAX_VALUES) {
    throw new Refusal(`checkpoint holds more than ${MAX_VALUES} values besides its weights`);
  }
  const kind = typeof value;
  if (value === null || kind === 'string' || kind === 'number' || kind === 'boolean') return value;
  if (kind !== 'object') {
    throw new Refusal(`${path} is ${describe(value)}: a checkpoint holds JSON values only`);
  }
  if (ancestors.has(value)) throw new Refusal(`${path} refers back to one of its containers (a cycle)`);
  if (depth >= MAX_DEPTH) throw new Refusal(`${path} is nested deeper than ${MAX_DEPTH} levels`);
  ancestors.add(value);
  let copy;
  if (Array.isArray(value)) {
    const { length } = value;
    if (length > MAX_VALUES - count.values) {
      throw new Refusal(`checkpoint holds more than ${MAX_VALUES} values besides its weights (${path})`);
    }
    copy = [];
    for (let i = 0; i < length; i += 1) copy.push(jsonCopy(value[i], `${path}[${i}]`, depth + 1, ancestors, count));
  } else {
    // A plain object, of this realm or another (its prototype is that realm's Object.prototype).
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== null && Object.getPrototypeOf(prototype) !== null) {
      throw new Refusal(`${path} is ${describe(value)}: a checkpoint holds JSON values only`);
    }
    copy = {};
    for (const key of Object.keys(value)) {
      if (path === 'checkpoint' && key === 'weights') continue;
      const item = jsonCopy(value[key], `${path}.${key}`, depth + 1, ancestors, count);
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    }
  }
  ancestors.delete(value);
  return Object.freeze(copy);
}

/** The checkpoint read once and checked: its weights' text and the rest as plain frozen data. */
function checked(checkpoint) {
  if (checkpoint === null || typeof checkpoint !== 'object' || Array.isArray(checkpoint)) {
    throw new TypeError(`a checkpoint must be a name or an object, got ${describe(checkpoint)}`);
  }
  let rest;
  let weights;
  try {
    weights = checkpoint.weights;
    rest = jsonCopy(checkpoint, 'checkpoint', 0, new Set(), { values: 0 });
  } catch (error) {
    if (error instanceof Refusal) throw new TypeError(error.message);
    // A getter or a Proxy trap that throws, or a stack overflow inside one.
    throw new TypeError(`the checkpoint could not be read as data: ${error?.message ?? describe(error)}`, {
      cause: error,
    });
  }
  if (rest.format !== CHECKPOINT_FORMAT) {
    throw new RangeError(`checkpoint.format must be "${CHECKPOINT_FORMAT}", got ${describe(rest.format)}`);
  }
  if (rest.options === null || typeof rest.options !== 'object') {
    throw new TypeError(`checkpoint.options must be trainer options, got ${describe(rest.options)}`);
  }
  if (typeof weights !== 'string') {
    throw new TypeError(`checkpoint.weights must be a base64 string, got ${describe(weights)}`);
  }
  if (!Number.isSafeInteger(rest.parameterCount) || rest.parameterCount < 1) {
    throw new RangeError(`checkpoint.parameterCount must be a whole number, got ${describe(rest.parameterCount)}`);
  }
  for (const [key, ok] of Object.entries(METADATA)) {
    if (Object.hasOwn(rest, key) && !ok(rest[key])) {
      throw new TypeError(`checkpoint.${key} is not what a checkpoint holds there, got ${describe(rest[key])}`);
    }
  }
  return { weights, rest };
}

/**
 * @internal Headwise.loadCheckpoint calls this: a trainer built from the checkpoint's options
 * with its weights, and trainer.checkpoint the rest (without the weights). Everything but the
 * weights is checked before the trainer is created; the parameter count of the options' model is
 * compared with the checkpoint's before any weight is decoded.
 */
export async function loadCheckpointWith(createTrainer, source) {
  let checkpoint = source;
  if (typeof source === 'string') {
    if (!CHECKPOINT_NAMES.includes(source)) {
      throw new RangeError(`no checkpoint ${describe(source)}: the shipped ones are ${CHECKPOINT_NAMES.join(', ')}`);
    }
    checkpoint = await readCheckpoint(source);
  }
  const { weights: text, rest } = checked(checkpoint);
  const trainer = createTrainer(rest.options);
  try {
    const sizes = trainer.parameters.map(({ shape }) => shape.reduce((a, b) => a * b, 1));
    const count = sizes.reduce((a, b) => a + b, 0);
    if (count !== rest.parameterCount) {
      throw new RangeError(`checkpoint holds ${rest.parameterCount} parameters, its options' model has ${count}`);
    }
    const values = checkpointWeights({ weights: text, parameterCount: count, weightsEncoding: rest.weightsEncoding });
    const weights = {};
    let at = 0;
    trainer.parameters.forEach(({ name }, i) => {
      weights[name] = values.subarray(at, at + sizes[i]);
      at += sizes[i];
    });
    trainer.setWeights(weights);
  } catch (error) {
    trainer.dispose();
    throw error;
  }
  trainer.checkpoint = rest;
  return trainer;
}
