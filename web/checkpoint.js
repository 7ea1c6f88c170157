// Trained models shipped with the package: web/checkpoints/<name>.json, written by
// scripts/make-checkpoints.sh with the native trainer and fixed seeds. A checkpoint holds the
// trainer options, the weights (float32 little-endian, base64, in buffer order), the held-out
// evaluation and role scores measured at the end, the first batch losses and a curve.
// Use it through Headwise.loadCheckpoint().
import { readFileInNode } from './core-loader.js';
import { describe } from './arguments.js';
import { HeadwiseError } from './errors.js';

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
  const binary = atob(checkpoint.weights);
  if (binary.length !== 4 * checkpoint.parameterCount) {
    throw new RangeError(
      `checkpoint.weights holds ${binary.length} bytes, expected ${4 * checkpoint.parameterCount} (parameterCount x 4)`,
    );
  }
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i += 1) view.setUint8(i, binary.charCodeAt(i));
  const values = new Float32Array(checkpoint.parameterCount);
  for (let i = 0; i < values.length; i += 1) values[i] = view.getFloat32(4 * i, true);
  return values;
}

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
  if (!Number.isInteger(checkpoint.parameterCount) || checkpoint.parameterCount < 1) {
    throw new RangeError(
      `checkpoint.parameterCount must be a whole number, got ${describe(checkpoint.parameterCount)}`,
    );
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
