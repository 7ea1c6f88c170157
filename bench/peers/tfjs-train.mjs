// TensorFlow.js peer for the training benchmark: the model of bench/train/torch_train.py, trained
// on the same batches (web/train-task.js), one thread, wasm backend by default.
// The embedding lookup is a one-hot matmul: tfjs-backend-wasm 4.22 has no kernel for the gradient
// of tf.gather (UnsortedSegmentSum); probeGatherGradient() shows which kernel is missing.
//   node bench/peers/tfjs-train.mjs --heads 2 --seed 1 [--steps 1500] [--backend wasm|cpu]
//        [--embedding onehot|gather] [--init weights.json] [--json out.json]
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { createRequire, register } from 'node:module';
import { dirname } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { evalSet, makeGenerator, vocabulary, TOKENS, VARIANTS } from '../../web/train-task.js';
import { checkWeights, initialWeights, NAMES, shapes } from '../train/weights.mjs';

// The gradients live in tfjs-core's ES-module files only; they register into the kernel registry
// that every copy of tfjs-core shares (a global), so the CommonJS copy above sees them.
register('../train/extensionless-hook.mjs', import.meta.url);
await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');

let backendReady = null;

export async function useBackend(name) {
  if (name === 'wasm' && backendReady !== 'wasm') {
    const require = createRequire(import.meta.url);
    setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json'))}/dist/`);
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    setThreadsCount(1);
  }
  if (!(await tf.setBackend(name))) throw new Error(`tfjs backend ${name} failed to initialise`);
  await tf.ready();
  backendReady = name;
}

// Tries the gradient of tf.gather on the current backend; returns null or the error message.
export function probeGatherGradient() {
  const table = tf.variable(tf.ones([4, 3]));
  try {
    const { value, grads } = tf.variableGrads(() => tf.sum(tf.gather(table, tf.tensor1d([0, 2, 2], 'int32'))));
    grads[table.name].dataSync();
    tf.dispose([value, ...Object.values(grads)]);
    return null;
  } catch (error) {
    return String(error.message ?? error);
  } finally {
    table.dispose();
  }
}

function oneHotFloat(ids, depth) {
  const out = new Float32Array(ids.length * depth);
  for (let i = 0; i < ids.length; i += 1) out[i * depth + ids[i]] = 1;
  return tf.tensor2d(out, [ids.length, depth]);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : 0.5 * (s[s.length / 2 - 1] + s[s.length / 2]);
}

// Forward to the logits at "?" and the attention rows from "?" (B, H, 12).
function forward(p, tokens, B, H, embedding) {
  const T = TOKENS;
  const D = p.wq.shape[0];
  const hd = D / H;
  // (B*T, D)
  const x0flat =
    embedding === 'gather' ? tf.gather(p.tokenEmbedding, tokens.ids) : tf.matMul(tokens.oneHot, p.tokenEmbedding);
  const x0 = tf.add(tf.reshape(x0flat, [B, T, D]), p.positionEmbedding);
  const flat = tf.reshape(x0, [B * T, D]);
  const heads = (w, b) => tf.transpose(tf.reshape(tf.add(tf.matMul(flat, w), b), [B, T, H, hd]), [0, 2, 1, 3]);
  const k = heads(p.wk, p.bk);
  const v = heads(p.wv, p.bv);
  // Query at "?" only: it sees all 12 positions, so the causal mask removes nothing.
  const last = tf.reshape(tf.slice(x0, [0, T - 1, 0], [B, 1, D]), [B, D]);
  const q = tf.reshape(tf.add(tf.matMul(last, p.wq), p.bq), [B, H, 1, hd]);
  const a = tf.softmax(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(hd))); // (B, H, 1, T)
  const ctx = tf.reshape(tf.matMul(a, v), [B, D]);
  const h1 = tf.add(last, tf.add(tf.matMul(ctx, p.wOut), p.bOut));
  const h2 = tf.add(h1, tf.add(tf.matMul(tf.relu(tf.add(tf.matMul(h1, p.w1), p.b1)), p.w2), p.b2));
  return { logits: tf.add(tf.matMul(h2, p.wReadout), p.bReadout), attention: tf.reshape(a, [B, H, T]) };
}

function crossEntropy(logits, targetsOneHot) {
  return tf.neg(tf.mean(tf.sum(tf.mul(targetsOneHot, tf.logSoftmax(logits)), 1)));
}

function tokensOf(ids, embedding) {
  return embedding === 'gather' ? { ids: tf.tensor1d(ids, 'int32') } : { oneHot: oneHotFloat(ids, vocabulary.length) };
}

function latestPositions(tokens, n) {
  const verb = new Int32Array(n);
  const noun = new Int32Array(n);
  for (let i = 0; i < n; i += 1) {
    for (let t = 0; t < TOKENS; t += 1) {
      const w = tokens[i * TOKENS + t];
      if (w >= 8 && w < 16) verb[i] = t;
      if (w < 8) noun[i] = t;
    }
  }
  return { verb, noun };
}

// Trains one model; returns the summary printed by the CLI (per-step losses included).
export async function trainTfjs(o) {
  const opts = {
    heads: 2,
    width: 32,
    mlp: 64,
    variant: 'verb-noun',
    seed: 1,
    steps: 1500,
    batch: 32,
    lr: 3e-3,
    warmup: 100,
    evalSize: 2048,
    evalEvery: 10,
    warmUpSteps: 20,
    backend: 'wasm',
    embedding: 'onehot',
    ...o,
  };
  await useBackend(opts.backend);
  const init = opts.init ?? initialWeights(opts);
  checkWeights(init, opts);
  const shape = shapes(opts);
  const p = Object.fromEntries(
    NAMES.map((n) => [n, tf.variable(tf.tensor(Float32Array.from(init[n]), shape[n]), true, n)]),
  );
  const optimizer = tf.train.adam(opts.lr, 0.9, 0.999, 1e-8);
  const K = VARIANTS[opts.variant];
  const H = opts.heads;
  const gen = makeGenerator(opts.seed);
  const held = evalSet(opts.seed, opts.evalSize, opts.variant);
  const heldTokens = tokensOf(held.tokens, opts.embedding);
  const pos = latestPositions(held.tokens, opts.evalSize);

  const evaluate = (withShares) => {
    const { logits, attention } = forward(p, heldTokens, opts.evalSize, H, opts.embedding);
    const pred = tf.argMax(logits, 1).dataSync();
    let correct = 0;
    for (let i = 0; i < opts.evalSize; i += 1) correct += pred[i] === held.targets[i] ? 1 : 0;
    const out = { accuracy: correct / opts.evalSize };
    if (withShares) {
      const a = attention.dataSync();
      out.verbShare = new Array(H).fill(0);
      out.nounShare = new Array(H).fill(0);
      for (let i = 0; i < opts.evalSize; i += 1) {
        for (let h = 0; h < H; h += 1) {
          out.verbShare[h] += a[(i * H + h) * TOKENS + pos.verb[i]] / opts.evalSize;
          out.nounShare[h] += a[(i * H + h) * TOKENS + pos.noun[i]] / opts.evalSize;
        }
      }
    }
    tf.dispose([logits, attention]);
    return out;
  };

  const losses = [];
  const stepMs = [];
  const cpuMs = []; // CPU time per step: steadier than wall time on a shared machine
  const evals = [];
  let trainMs = 0;
  let stepTo95 = null;
  let msTo95 = null;
  for (let t = 1; t <= opts.steps; t += 1) {
    const { tokens, targets } = gen.batch(opts.batch, opts.variant);
    const x = tokensOf(tokens, opts.embedding);
    const y = oneHotFloat(targets, K);
    optimizer.learningRate = opts.warmup > 0 ? opts.lr * Math.min(1, t / opts.warmup) : opts.lr;
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    const loss = optimizer.minimize(() => crossEntropy(forward(p, x, opts.batch, H, opts.embedding).logits, y), true);
    const value = loss.dataSync()[0];
    const ms = performance.now() - start;
    const cpu = process.cpuUsage(cpu0);
    if (t > opts.warmUpSteps) cpuMs.push((cpu.user + cpu.system) / 1e3);
    tf.dispose([loss, y, ...Object.values(x)]);
    trainMs += ms;
    stepMs.push(ms);
    losses.push(value);
    if (t % opts.evalEvery === 0 || t === opts.steps) {
      const { accuracy } = tf.tidy(() => evaluate(false));
      evals.push({ step: t, accuracy });
      if (stepTo95 === null && accuracy >= 0.95) [stepTo95, msTo95] = [t, trainMs];
      if (!opts.quiet && (t % 50 === 0 || t === opts.steps)) {
        console.log(`step ${String(t).padStart(5)}  loss ${value.toFixed(4)}  accuracy ${accuracy.toFixed(4)}`);
      }
      if (opts.stopAt !== undefined && accuracy >= opts.stopAt) break;
    }
  }
  const final = tf.tidy(() => evaluate(true));
  tf.dispose([...Object.values(p), ...Object.values(heldTokens)]);
  optimizer.dispose();
  return {
    peer: `tfjs-${opts.backend}`,
    tfjs: tf.version_core,
    embedding: opts.embedding,
    heads: H,
    width: opts.width,
    variant: opts.variant,
    seed: opts.seed,
    steps: opts.steps,
    batch: opts.batch,
    medianStepMs: median(stepMs.slice(opts.warmUpSteps).length ? stepMs.slice(opts.warmUpSteps) : stepMs),
    cpuStepMs: cpuMs.length ? cpuMs.reduce((a, b) => a + b, 0) / cpuMs.length : null,
    finalAccuracy: final.accuracy,
    bestAccuracy: Math.max(...evals.map((e) => e.accuracy)),
    stepTo95,
    trainSecondsTo95: msTo95 === null ? null : msTo95 / 1e3,
    trainSeconds: trainMs / 1e3,
    verbShare: final.verbShare,
    nounShare: final.nounShare,
    losses,
    evals,
  };
}

function parseArgs(argv) {
  const o = {};
  const num = new Set([
    'heads',
    'width',
    'mlp',
    'seed',
    'steps',
    'batch',
    'lr',
    'warmup',
    'evalSize',
    'evalEvery',
    'stopAt',
  ]);
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i].replace(/^--/, '').replace(/-(\w)/g, (_, c) => c.toUpperCase());
    if (key === 'quiet') {
      o.quiet = true;
      continue;
    }
    const value = argv[++i];
    o[key] = num.has(key) ? Number(value) : value;
  }
  if (o.init) o.init = JSON.parse(readFileSync(o.init, 'utf8'));
  return o;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const o = parseArgs(process.argv.slice(2));
  await useBackend(o.backend ?? 'wasm');
  const missing = probeGatherGradient();
  console.log(`backend ${tf.getBackend()}: gradient of tf.gather ${missing ? `fails (${missing})` : 'works'}`);
  const r = await trainTfjs(o);
  console.log(
    `median step ${r.medianStepMs.toFixed(3)} ms (CPU ${r.cpuStepMs?.toFixed(3)} ms), ` +
      `final accuracy ${r.finalAccuracy.toFixed(4)}, ` +
      `95% at step ${r.stepTo95} (${r.trainSecondsTo95?.toFixed(3) ?? '-'} s of training)`,
  );
  console.log(
    `attention from '?': latest verb ${r.verbShare.map((x) => x.toFixed(3)).join(' ')}, ` +
      `latest noun ${r.nounShare.map((x) => x.toFixed(3)).join(' ')}`,
  );
  if (o.json) writeFileSync(o.json, JSON.stringify(r));
}
