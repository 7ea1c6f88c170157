// Initial weights in the JSON format of docs/train-weights-format.md, drawn from mulberry32 so
// every peer can start from the same numbers when ours is not there to export them.
import { mulberry32, vocabulary, TOKENS, VARIANTS } from '../../web/train-task.js';

export const NAMES = [
  'tokenEmbedding',
  'positionEmbedding',
  'wq',
  'bq',
  'wk',
  'bk',
  'wv',
  'bv',
  'wOut',
  'bOut',
  'w1',
  'b1',
  'w2',
  'b2',
  'wReadout',
  'bReadout',
];

export function shapes({ width, mlp = 64, variant = 'verb-noun' }) {
  const D = width;
  const K = VARIANTS[variant];
  return {
    tokenEmbedding: [vocabulary.length, D],
    positionEmbedding: [TOKENS, D],
    wq: [D, D],
    bq: [D],
    wk: [D, D],
    bk: [D],
    wv: [D, D],
    bv: [D],
    wOut: [D, D],
    bOut: [D],
    w1: [D, mlp],
    b1: [mlp],
    w2: [mlp, D],
    b2: [D],
    wReadout: [D, K],
    bReadout: [K],
  };
}

// Embeddings uniform in +-sqrt(3), Linear weights and biases uniform in +-1/sqrt(fan_in).
export function initialWeights({ heads, width, mlp = 64, variant = 'verb-noun', seed = 1 }) {
  const next = mulberry32((seed ^ 0x1417ea11) >>> 0);
  const out = { format: 'headwise-trainer-weights/1', heads, dModel: width, mlpWidth: mlp, variant };
  for (const [name, shape] of Object.entries(shapes({ width, mlp, variant }))) {
    const size = shape.reduce((a, b) => a * b, 1);
    const fanIn = name === 'w2' || name === 'b2' ? mlp : width;
    const bound = name.endsWith('Embedding') ? Math.sqrt(3) : 1 / Math.sqrt(fanIn);
    out[name] = Array.from({ length: size }, () => Math.fround((2 * next() - 1) * bound));
  }
  return out;
}

// A one-layer trainer's getWeights() (format 2: "blocks.0.wq") in the peers' format 1 ("wq").
export function asFormat1(weights) {
  const out = { format: 'headwise-trainer-weights/1' };
  for (const [key, value] of Object.entries(weights)) {
    if (key === 'format' || key === 'config' || key === 'step') continue;
    if (key.startsWith('blocks.') && !key.startsWith('blocks.0.')) throw new Error('format 1 holds one layer only');
    out[key.replace(/^blocks\.0\./, '')] = value;
  }
  return out;
}

export function checkWeights(weights, options) {
  for (const [name, shape] of Object.entries(shapes(options))) {
    const size = shape.reduce((a, b) => a * b, 1);
    const v = weights[name];
    if (!v || v.length !== size) throw new Error(`weights: ${name} must be a flat array of ${size} numbers`);
  }
}
