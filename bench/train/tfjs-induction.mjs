// TensorFlow.js peer for the induction experiment (issue 20): the attention-only model of
// bench/train/torch_induction.py (and of tests/native/induction_experiment.cpp), one thread, wasm
// backend, started from headwise's initial weights and trained on the same batches, so the first
// losses can be compared with ours before any time is. The embedding lookup is a one-hot matmul
// (tfjs-backend-wasm 4.22 has no kernel for the gradient of tf.gather: bench/peers/tfjs-train.mjs).
//   node bench/train/tfjs-induction.mjs [LAYERS] [STEPS] [SEED]
// prints the first 50 losses' largest relative difference from ours, then the median step time of
// both, alternating 10 steps of each so a slow phase of the machine hits both sides of the ratio.
import * as tf from '@tensorflow/tfjs-core';
import { loadHeadwise } from '../../web/headwise.js';
import { mulberry32 } from '../../web/train-task.js';
import { useBackend } from '../peers/tfjs-train.mjs';

const VOCAB = 64;
const TOKENS = 64;
const WIDTH = 64;
const HEADS = 4;
const BATCH = 32;
const [layers, steps, seed] = [2, 300, 0].map((d, i) => Number(process.argv[2 + i] ?? d));

// The induction task's sequence, drawn as wasm/core/tasks/induction.cpp draws it.
function sequence(rng) {
  const below = (n) => Math.floor(rng() * n);
  const length = 12 + below(31 - 12 + 1);
  const free = TOKENS - 2 * length;
  const first = below(free + 1);
  const second = first + length + below(free - first + 1);
  const ids = [];
  for (let t = 0; t < TOKENS; t += 1) {
    ids.push(t >= second && t < second + length ? ids[t - (second - first)] : below(VOCAB));
  }
  return ids;
}

function batchOf(rng) {
  const ids = [];
  for (let i = 0; i < BATCH; i += 1) ids.push(...sequence(rng));
  return ids;
}

const names = () => [
  'tokenEmbedding',
  'positionEmbedding',
  ...Array.from({ length: layers }, (_, l) =>
    ['wq', 'bq', 'wk', 'bk', 'wv', 'bv', 'wOut', 'bOut'].map((n) => `blocks.${l}.${n}`),
  ).flat(),
  'wReadout',
  'bReadout',
];

function shapeOf(name) {
  if (name === 'tokenEmbedding') return [VOCAB, WIDTH];
  if (name === 'positionEmbedding') return [TOKENS, WIDTH];
  if (name === 'wReadout') return [WIDTH, VOCAB];
  if (name === 'bReadout') return [VOCAB];
  return name.endsWith('q') || name.endsWith('k') || name.endsWith('v') || name.endsWith('Out')
    ? name.split('.')[2].startsWith('w')
      ? [WIDTH, WIDTH]
      : [WIDTH]
    : null;
}

function oneHot(ids, depth) {
  const out = new Float32Array(ids.length * depth);
  ids.forEach((id, i) => (out[i * depth + id] = 1));
  return tf.tensor2d(out, [ids.length, depth]);
}

function loss(p, input, target, causal) {
  const hd = WIDTH / HEADS;
  let x = tf.reshape(tf.matMul(input, p.tokenEmbedding), [BATCH, TOKENS, WIDTH]);
  x = tf.reshape(tf.add(x, p.positionEmbedding), [BATCH * TOKENS, WIDTH]);
  for (let l = 0; l < layers; l += 1) {
    const w = (n) => p[`blocks.${l}.${n}`];
    const heads = (wn, bn) =>
      tf.transpose(tf.reshape(tf.add(tf.matMul(x, w(wn)), w(bn)), [BATCH, TOKENS, HEADS, hd]), [0, 2, 1, 3]);
    const scores = tf.add(
      tf.mul(tf.matMul(heads('wq', 'bq'), heads('wk', 'bk'), false, true), 1 / Math.sqrt(hd)),
      causal,
    );
    const context = tf.matMul(tf.softmax(scores), heads('wv', 'bv'));
    const concat = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [BATCH * TOKENS, WIDTH]);
    x = tf.add(x, tf.add(tf.matMul(concat, w('wOut')), w('bOut')));
  }
  const logits = tf.add(tf.matMul(x, p.wReadout), p.bReadout);
  // Position t predicts id t + 1; the last position is not counted (target rows of zeros there).
  const rows = tf.neg(tf.sum(tf.mul(target, tf.logSoftmax(logits)), 1));
  return tf.div(tf.sum(rows), BATCH * (TOKENS - 1));
}

function targetOf(ids) {
  const out = new Float32Array(ids.length * VOCAB);
  for (let i = 0; i < ids.length; i += 1) if (i % TOKENS !== TOKENS - 1) out[i * VOCAB + ids[i + 1]] = 1;
  return tf.tensor2d(out, [ids.length, VOCAB]);
}

await useBackend('wasm');
// -1e9 above the diagonal: exp underflows to exactly 0, as the -inf of the causal mask does.
const causalMask = tf.tensor2d(
  Float32Array.from({ length: TOKENS * TOKENS }, (_, i) => (i % TOKENS > Math.floor(i / TOKENS) ? -1e9 : 0)),
  [TOKENS, TOKENS],
);

const hw = await loadHeadwise();
const ours = hw.createTrainer({
  task: 'induction',
  layers,
  heads: HEADS,
  dModel: WIDTH,
  mlpWidth: 0,
  evalSize: 512,
  seed,
});
const init = ours.getWeights();
const p = Object.fromEntries(
  names().map((n) => [n, tf.variable(tf.tensor(Float32Array.from(init[n]), shapeOf(n)), true, n)]),
);
const optimizer = tf.train.adam(3e-3, 0.9, 0.999, 1e-8);
const rng = mulberry32(seed);
let tfStep = 0;
function tfjsStep() {
  tfStep += 1;
  const ids = batchOf(rng);
  const [input, target] = [oneHot(ids, VOCAB), targetOf(ids)];
  optimizer.learningRate = 3e-3 * Math.min(1, tfStep / 100);
  const value = optimizer.minimize(() => loss(p, input, target, causalMask), true);
  const out = value.dataSync()[0];
  tf.dispose([value, input, target]);
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const timed = (f) => {
  const start = performance.now();
  const value = f();
  return [performance.now() - start, value];
};

let worst = 0;
const oursMs = [];
const tfjsMs = [];
for (let done = 0; done < steps; done += 10) {
  for (let i = 0; i < 10; i += 1) {
    const [ms, a] = timed(() => ours.step().loss);
    oursMs.push(ms);
    const [msT, b] = timed(tfjsStep);
    tfjsMs.push(msT);
    if (done + i < 50) worst = Math.max(worst, Math.abs(a - b) / Math.abs(a));
  }
  if (done + 10 === 50) {
    console.log(`first 50 losses: largest relative difference ours vs tfjs-wasm ${worst.toExponential(2)}`);
    if (!(worst < 1e-4)) throw new Error('the two models do not train alike: no step time is compared');
  }
}
const [o, t] = [median(oursMs.slice(20)), median(tfjsMs.slice(20))];
console.log(
  `${layers} layer(s), ${steps} steps each, taking turns: ours ${o.toFixed(1)} ms/step, ` +
    `tfjs-wasm ${tf.version_core} ${t.toFixed(1)} ms/step, tfjs/ours ${(t / o).toFixed(2)}`,
);
ours.dispose();
