// Trained models shipped with the package: web/checkpoints/<name>.json, written by
// scripts/make-checkpoints.sh with the native trainer and fixed seeds. A checkpoint holds the
// trainer options, the weights (float32 little-endian, base64, in buffer order), the held-out
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

/** The weights of a checkpoint as one Float32Array (buffer order). */
export function checkpointWeights(checkpoint) {
  const bytes = 4 * checkpoint.parameterCount;
  // The text's length first (base64: 4 characters per 3 bytes), so a huge declared size or a huge
  // string is refused before anything is decoded.
  const text = checkpoint.weights;
  if (!BASE64.test(text)) throw new RangeError('checkpoint.weights must be base64 (A-Z a-z 0-9 + /, = at the end)');
  const held = (3 * text.length) / 4 - text.match(/=*$/)[0].length;
  if (text.length % 4 !== 0 || held !== bytes) {
    throw new RangeError(`checkpoint.weights holds ${Math.floor(held)} bytes, expected ${bytes} (parameterCount x 4)`);
  }
  const binary = atob(text);
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i += 1) view.setUint8(i, binary.charCodeAt(i));
  const values = new Float32Array(checkpoint.parameterCount);
  for (let i = 0; i < values.length; i += 1) {
    values[i] = view.getFloat32(4 * i, true);
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
};

function checked(checkpoint) {
  if (checkpoint === null || typeof checkpoint !== 'object' || Array.isArray(checkpoint)) {
    throw new TypeError(`a checkpoint must be a name or an object, got ${describe(checkpoint)}`);
  }
  if (checkpoint.format !== CHECKPOINT_FORMAT) {
    throw new RangeError(`checkpoint.format must be "${CHECKPOINT_FORMAT}", got ${describe(checkpoint.format)}`);
  }
  if (checkpoint.options === null || typeof checkpoint.options !== 'object') {
    throw new TypeError(`checkpoint.options must be trainer options, got ${describe(checkpoint.options)}`);
  }
  if (typeof checkpoint.weights !== 'string') {
    throw new TypeError(`checkpoint.weights must be a base64 string, got ${describe(checkpoint.weights)}`);
  }
  if (!Number.isSafeInteger(checkpoint.parameterCount) || checkpoint.parameterCount < 1) {
    throw new RangeError(
      `checkpoint.parameterCount must be a whole number, got ${describe(checkpoint.parameterCount)}`,
    );
  }
  for (const [key, ok] of Object.entries(METADATA)) {
    if (Object.hasOwn(checkpoint, key) && !ok(checkpoint[key])) {
      throw new TypeError(`checkpoint.${key} is not what a checkpoint holds there, got ${describe(checkpoint[key])}`);
    }
  }
  return checkpoint;
}

const deepFreeze = (value) => {
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze(value[key]);
    Object.freeze(value);
  }
  return value;
};

/**
 * @internal Headwise.loadCheckpoint calls this: a trainer built from the checkpoint's options
 * with its weights, and trainer.checkpoint the rest (without the weights).
 */
export async function loadCheckpointWith(createTrainer, source) {
  let checkpoint = source;
  if (typeof source === 'string') {
    if (!CHECKPOINT_NAMES.includes(source)) {
      throw new RangeError(`no checkpoint ${describe(source)}: the shipped ones are ${CHECKPOINT_NAMES.join(', ')}`);
    }
    checkpoint = await readCheckpoint(source);
  }
  checked(checkpoint);
  const values = checkpointWeights(checkpoint);
  const trainer = createTrainer(checkpoint.options);
  try {
    const weights = {};
    let at = 0;
    for (const { name, shape } of trainer.parameters) {
      const size = shape.reduce((a, b) => a * b, 1);
      weights[name] = values.subarray(at, at + size);
      at += size;
    }
    if (at !== values.length) {
      throw new RangeError(`checkpoint holds ${values.length} parameters, its options' model has ${at}`);
    }
    trainer.setWeights(weights);
  } catch (error) {
    trainer.dispose();
    throw error;
  }
  const { weights: _weights, ...rest } = checkpoint;
  trainer.checkpoint = deepFreeze(structuredClone(rest));
  return trainer;
}
