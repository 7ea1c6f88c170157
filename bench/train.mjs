// Training benchmark (issue 12): ours, PyTorch (1 thread) and TensorFlow.js wasm (1 thread) side by side on
// the "latest verb and latest noun" model with the same batches.
//   1. outputs first: the losses of the first 50 steps from the same initial weights agree with PyTorch's;
//   2. median time per step (forward + backward + Adam, batch 32) at 1, 2 and 4 heads;
//   3. time to 95% held-out accuracy at 2 heads (training time only, evaluation every 10 steps), per seed.
// Environment: TRAIN_HEADS=1,2,4  TRAIN_STEP_STEPS=300 (steps timed per peer)  TRAIN_SEEDS=3
//   TRAIN_PEERS=ours,pytorch,tfjs-wasm  TRAIN_SKIP_95=1 (step times only)  TRAIN_OURS_MODULE=path/headwise.js.
//   node bench/train.mjs        (from the repository root, after `cd bench && npm ci`)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { asFormat1, initialWeights, NAMES } from './train/weights.mjs';
import { makeGenerator } from '../web/train-task.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const env = process.env;
const HEADS = (env.TRAIN_HEADS ?? '1,2,4').split(',').map(Number);
const STEP_STEPS = Number(env.TRAIN_STEP_STEPS ?? 300);
const SEEDS = Number(env.TRAIN_SEEDS ?? 3);
const PEERS = (env.TRAIN_PEERS ?? 'ours,pytorch,tfjs-wasm').split(',');
const WIDTH = 32;
// Loss-curve agreement over the first 50 steps, float32 both sides, same init and batches:
// |ours - pytorch| <= ATOL + RTOL * |pytorch| at every step. TensorFlow.js and PyTorch, both float32
// with different summation orders, agree to 2e-6 here; the bound leaves room for a different
// GEMM blocking and for Adam amplifying rounding in tiny gradients, and still catches any change
// of the model or of the optimiser (those move the loss by 1e-2 within a few steps).
const CURVE_STEPS = 50;
const ATOL = 1e-4;
const RTOL = 1e-4;
const tmp = mkdtempSync(join(tmpdir(), 'headwise-train-'));

// ---- ours: the only part that knows our API (createTrainer from web/headwise.js). ----
async function loadOurs() {
  // TRAIN_OURS_MODULE points at another build of web/headwise.js (e.g. a branch's worktree).
  const url = env.TRAIN_OURS_MODULE ? pathToFileURL(env.TRAIN_OURS_MODULE).href : '../web/headwise.js';
  const api = await import(url).catch((error) => (console.log(`ours: ${error.message}`), {}));
  if (typeof api.createTrainer !== 'function') return null;
  return async ({ heads, seed, steps, init, stopAt, evalEvery = 10, warmUpSteps = 20 }) => {
    const trainer = await api.createTrainer({
      heads,
      dModel: WIDTH,
      mlpWidth: 64,
      variant: 'verb-noun',
      seed,
      batch: 32,
      learningRate: 3e-3,
    });
    if (init) trainer.setWeights({ format: init.format, ...Object.fromEntries(NAMES.map((n) => [n, init[n]])) });
    const initial = init ?? asFormat1(trainer.getWeights());
    const losses = [];
    const stepMs = [];
    let cpuMs = 0;
    let trainMs = 0;
    let stepTo95 = null;
    let msTo95 = null;
    for (let t = 1; t <= steps; t += 1) {
      const cpu0 = process.cpuUsage();
      const start = performance.now();
      const { loss } = trainer.step(1);
      const ms = performance.now() - start;
      const cpu = process.cpuUsage(cpu0);
      if (t > warmUpSteps) cpuMs += (cpu.user + cpu.system) / 1e3;
      losses.push(loss);
      stepMs.push(ms);
      trainMs += ms;
      if (stopAt !== undefined && t % evalEvery === 0 && trainer.evaluate().accuracy >= stopAt) {
        [stepTo95, msTo95] = [t, trainMs];
        break;
      }
    }
    trainer.dispose?.();
    return {
      medianStepMs: median(stepMs.slice(warmUpSteps)),
      cpuStepMs: cpuMs / Math.max(1, steps - warmUpSteps),
      losses,
      stepTo95,
      trainSecondsTo95: msTo95 === null ? null : msTo95 / 1e3,
      initial,
    };
  };
}

// ---- peers ----
function pytorch({ heads, seed, steps, init, stopAt, evalEvery = 10 }) {
  const out = join(tmp, `torch-${heads}-${seed}-${steps}.json`);
  const args = [
    join(here, 'train/torch_train.py'),
    '--heads',
    String(heads),
    '--width',
    String(WIDTH),
    '--seed',
    String(seed),
    '--steps',
    String(steps),
    '--eval-every',
    String(evalEvery),
    '--quiet',
    '--json',
    out,
  ];
  if (init) (writeFileSync(join(tmp, 'init.json'), JSON.stringify(init)), args.push('--init', join(tmp, 'init.json')));
  if (stopAt !== undefined) args.push('--stop-at', String(stopAt));
  const r = spawnSync('/usr/bin/python3', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`torch_train.py failed: ${(r.stderr || r.error?.message || '').slice(-400)}`);
  return JSON.parse(readFileSync(out, 'utf8'));
}

async function tfjsWasm(o) {
  const { trainTfjs } = await import('./peers/tfjs-train.mjs');
  return trainTfjs({ ...o, width: WIDTH, backend: 'wasm', quiet: true, evalEvery: o.evalEvery ?? 10 });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : 0.5 * (s[s.length / 2 - 1] + s[s.length / 2]);
}

const fmt = (x, d = 2) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '-');

async function available() {
  const peers = {};
  if (PEERS.includes('ours')) {
    const ours = await loadOurs();
    if (ours) peers.ours = ours;
    else console.log('ours: createTrainer is not in web/headwise.js yet; its rows are skipped');
  }
  if (PEERS.includes('pytorch')) {
    const probe = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { encoding: 'utf8' });
    if (probe.status === 0) peers.pytorch = pytorch;
    else console.log('pytorch: /usr/bin/python3 cannot import torch (apt-get install python3-torch); skipped');
  }
  if (PEERS.includes('tfjs-wasm')) {
    try {
      await import('./peers/tfjs-train.mjs');
      peers['tfjs-wasm'] = tfjsWasm;
    } catch (error) {
      console.log(`tfjs-wasm: cannot load (${error.message}); run \`cd bench && npm ci\`; skipped`);
    }
  }
  return peers;
}

function curveCheck(name, losses, reference) {
  let worst = 0;
  let worstStep = 0;
  let pass = true;
  for (let i = 0; i < CURVE_STEPS; i += 1) {
    const err = Math.abs(losses[i] - reference[i]);
    if (err > ATOL + RTOL * Math.abs(reference[i])) pass = false;
    if (err > worst) [worst, worstStep] = [err, i + 1];
  }
  console.log(
    `  ${name} vs pytorch, first ${CURVE_STEPS} losses: worst |diff| ${worst.toExponential(2)} at step ` +
      `${worstStep} (loss ${fmt(reference[worstStep - 1], 4)}): ${pass ? 'agree' : 'DISAGREE'} within ` +
      `${ATOL} + ${RTOL}*|pytorch|`,
  );
  return pass;
}

async function main() {
  const peers = await available();
  const names = Object.keys(peers);
  console.log(`\n== training benchmark: heads ${HEADS.join('/')}, width ${WIDTH}, batch 32, peers ${names.join(', ')}`);
  const batch0 = makeGenerator(1).batch(1).tokens;
  console.log(`  same batches everywhere: seed 1 starts ${Array.from(batch0).join(' ')}`);

  // 1. Outputs first: the same initial weights, the first 50 losses.
  let curvesOk = true;
  if (peers.pytorch) {
    console.log(`-- loss curves, 2 heads, seed 1, first ${CURVE_STEPS} steps from one initial set of weights`);
    let init = initialWeights({ heads: 2, width: WIDTH, seed: 1 });
    let ours = null;
    if (peers.ours) {
      ours = await peers.ours({ heads: 2, seed: 1, steps: CURVE_STEPS });
      init = ours.initial;
    } else {
      console.log('  ours: not available, its loss-curve check is SKIPPED (peers checked against each other)');
    }
    const ref = peers.pytorch({ heads: 2, seed: 1, steps: CURVE_STEPS, init, evalEvery: 1000 });
    if (ours) curvesOk = curveCheck('ours', ours.losses, ref.losses) && curvesOk;
    if (peers['tfjs-wasm']) {
      const tf = await peers['tfjs-wasm']({ heads: 2, seed: 1, steps: CURVE_STEPS, init, evalEvery: 1000 });
      curvesOk = curveCheck('tfjs-wasm', tf.losses, ref.losses) && curvesOk;
    }
  }

  // 2. Step time.
  console.log(
    `-- ms per training step, batch 32, ${STEP_STEPS} steps (tfjs at most 150), first 20 left out: ` +
      'median wall time (mean CPU time); ratios of CPU times',
  );
  const stepMs = {};
  const cpuStep = {};
  for (const heads of HEADS) {
    for (const name of names) {
      const steps = name === 'tfjs-wasm' ? Math.min(STEP_STEPS, 150) : STEP_STEPS;
      const r = await peers[name]({ heads, seed: 1, steps, evalEvery: 100000 });
      (stepMs[name] ??= {})[heads] = r.medianStepMs;
      (cpuStep[name] ??= {})[heads] = r.cpuStepMs;
    }
  }
  console.log(`| heads | ${names.join(' | ')} |${names.includes('ours') ? ' pytorch/ours | tfjs/ours |' : ''}`);
  console.log(`|---|${names.map(() => '---').join('|')}|${names.includes('ours') ? '---|---|' : ''}`);
  for (const heads of HEADS) {
    const cells = names.map((n) => `${fmt(stepMs[n][heads])} (${fmt(cpuStep[n][heads])})`);
    // CPU time: on a shared machine a single-threaded process waits for a core, which wall time counts.
    const ratio = (n) => (cpuStep[n] ? fmt(cpuStep[n][heads] / cpuStep.ours[heads], 1) : '-');
    const ratios = names.includes('ours') ? ` ${ratio('pytorch')} | ${ratio('tfjs-wasm')} |` : '';
    console.log(`| ${heads} | ${cells.join(' | ')} |${ratios}`);
  }

  // 3. Time to 95% at 2 heads, every peer from the same initial weights per seed (ours' when it is
  // there), so that they follow nearly the same trajectory and only the speed differs.
  if (env.TRAIN_SKIP_95 !== '1') {
    console.log(
      `-- time to 95% held-out accuracy, 2 heads, seeds 1-${SEEDS}, same initial weights per seed ` +
        '(training wall time; evaluation every 10 steps; "not reached" counts as infinite in the median)',
    );
    const inits = [];
    for (let seed = 1; seed <= SEEDS; seed += 1) inits.push(initialWeights({ heads: 2, width: WIDTH, seed }));
    const rows = {};
    for (const name of names) {
      rows[name] = [];
      for (let seed = 1; seed <= SEEDS; seed += 1) {
        const r = await peers[name]({
          heads: 2,
          seed,
          steps: 1500,
          stopAt: 0.95,
          init: name === 'ours' ? undefined : inits[seed - 1],
        });
        if (name === 'ours') inits[seed - 1] = r.initial;
        rows[name].push(r);
      }
    }
    console.log('| peer | per seed: step (s) | median s |');
    console.log('|---|---|---|');
    for (const name of names) {
      const cells = rows[name].map((r) => (r.stepTo95 ? `${r.stepTo95} (${fmt(r.trainSecondsTo95)})` : 'not reached'));
      const secs = rows[name].map((r) => r.trainSecondsTo95 ?? Infinity);
      console.log(`| ${name} | ${cells.join(', ')} | ${fmt(median(secs))} |`);
    }
  }
  if (!curvesOk) process.exitCode = 1;
}

await main();
