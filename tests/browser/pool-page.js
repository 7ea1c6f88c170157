// The page side of tests/browser/pool.test.js: a pool against one instance, on whatever page loads
// it (http, strict CSP, or bundled into a classic script for file://, which installs the checks
// with its own module: the package's "sideEffects" list would let a bundler drop this file's
// top-level code).
import { createPool, loadHeadwise } from '../../web/headwise.js';

const CONFIGS = (hw) => [
  { batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 3 },
  { batch: 1, tokens: 9, dModel: 8, heads: 5, headDim: 3, bias: true, seed: 4 },
  { batch: 1, tokens: 64, dModel: 768, heads: 12, seed: 5 },
  // Every position kind the core lists, 5 heads on 2 workers: the parts carry the kind.
  ...hw.positionKinds().map(({ name: positions }, i) => ({
    batch: 2,
    tokens: 7,
    dModel: 10,
    heads: 5,
    headDim: 4,
    causal: i % 2 === 0,
    positions,
    seed: 6 + i,
  })),
];

function compare(a, b) {
  let worst = 0;
  let outside = 0;
  for (let i = 0; i < a.length; i += 1) {
    const d = Math.abs(a[i] - b[i]);
    worst = Math.max(worst, d);
    if (!(d <= 1e-5 + 1e-5 * Math.abs(b[i]))) outside += 1;
  }
  return { worst, outside, length: a.length === b.length };
}

let pool = null;
let loadModule = () => loadHeadwise();

window.poolCheck = async (options = {}) => {
  const hw = await loadModule();
  pool = await createPool({ ...options, module: hw });
  const results = [];
  for (const config of CONFIGS(hw)) {
    const layer = pool.createAttention(config);
    const one = hw.createAttention(config);
    const x = hw.randomInput(config, 7);
    results.push({ config, ...compare(await layer.forward(x, { parallel: 'always' }), one.forward(x)) });
    one.dispose();
  }
  return {
    size: pool.size,
    fallbackReason: pool.fallbackReason,
    replacements: pool.replacements,
    workers: (await pool.workerStats()).map((s) => `${s.name}: ${s.liveLayers}`),
    crossOriginIsolated: globalThis.crossOriginIsolated,
    sharedArrayBuffer: typeof SharedArrayBuffer,
    results,
  };
};

window.poolDispose = () => pool.dispose();

// Data-parallel training (web/pool/data-parallel.js) against Trainer.step() on this thread: a
// small 2-layer induction model, `steps` steps; the pool stays open for poolDispose().
const TRAIN = { task: 'induction', layers: 2, heads: 2, dModel: 16, mlpWidth: 0, batch: 6, evalSize: 16, seed: 3 };
window.poolTrainCheck = async (options = {}, steps = 6) => {
  const hw = await loadModule();
  pool = await createPool({ ...options, module: hw });
  const run = async (split) => {
    const t = pool.createTrainer(TRAIN, split);
    for (let i = 0; i < steps; i += 1) await t.step();
    const weights = t.trainer.parameterBuffer();
    const seen = { weights, instances: t.instances, fallbackReason: t.fallbackReason };
    t.dispose();
    return seen;
  };
  const one = hw.createTrainer(TRAIN);
  for (let i = 0; i < steps; i += 1) one.step();
  const reference = one.parameterBuffer();
  one.dispose();
  const a = await run();
  const b = await run();
  const single = await run({ workers: 1 });
  const same = (x, y) => x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
  return {
    size: pool.size,
    fallbackReason: pool.fallbackReason,
    replacements: pool.replacements,
    instances: a.instances,
    repeatable: same(a.weights, b.weights),
    oneWorkerIsStep: same(single.weights, reference),
    maxDiffFromOne: compare(a.weights, reference).worst,
    liveTrainers: (await pool.workerStats()).map((s) => s.liveTrainers),
    weights: Array.from(a.weights.subarray(0, 8)),
  };
};

/** For the file:// bundle: the module with its wasm inside. */
export function useModule(load) {
  loadModule = load;
}

// Whether this page may start a worker from a Blob URL (a strict CSP forbids it).
window.blobWorkerStarts = () =>
  new Promise((resolve) => {
    const url = URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' }));
    try {
      const worker = new Worker(url);
      worker.onmessage = () => resolve(true);
      worker.onerror = () => resolve(false);
      setTimeout(() => resolve(false), 3000);
    } catch {
      resolve(false);
    }
  });
