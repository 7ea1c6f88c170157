// Property test of the trainer through the public API: random model specs (1-3 layers, every
// position kind, MLP or none, LayerNorm, bias, head widths, batches, budgets up to 2^64) mixed
// with hostile values, then random calls (steps up to far past the work limit, hostile sequences
// and weights). Every call is a clean refusal (TypeError, RangeError, HeadwiseError) or a result;
// a trainer and its twin (same options) step to the same losses bit for bit, so memory written
// across trainers would show; the module never aborts; heap and stack pointer return to baseline.
//   HEADWISE_FUZZ_SECONDS=600 HEADWISE_FUZZ_SEED=n npx vitest run tests/js/hardening-fuzz-trainers.test.js
import { expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import { mulberry32 } from '../../web/train-task.js';

const SECONDS = Number(process.env.HEADWISE_FUZZ_SECONDS ?? 3);
const SEED = Number(process.env.HEADWISE_FUZZ_SEED ?? Date.now() % 2 ** 32);

const random = mulberry32(SEED);
const int = (n) => Math.floor(random() * n);
const pick = (items) => items[int(items.length)];
const chance = (p) => random() < p;
const HOSTILE = [0, -1, 1.5, NaN, Infinity, 2 ** 53, 2 ** 64, '3', null, {}, [2], 10n, true, new Proxy({}, {})];

function options(table) {
  const o = {};
  const small = {
    layers: () => 1 + int(3),
    heads: () => 1 + int(4),
    dModel: () => 1 + int(24),
    headDim: () => int(7),
    mlpWidth: () => pick([0, 0, 1 + int(16)]),
    batch: () => 1 + int(6),
    evalSize: () => 1 + int(40),
    seed: () => int(2 ** 32),
    warmup: () => int(5),
    learningRate: () => pick([3e-3, 0.1, 0, 10]),
    memoryBudget: () => Math.min(2 ** int(65) + pick([0, 1, -1]), 2 ** 64),
  };
  for (const row of table) {
    if (!chance(row.name === 'memoryBudget' ? 0.3 : 0.6)) continue;
    if (chance(0.02)) o[row.name] = pick(HOSTILE);
    else if (row.type === 'boolean') o[row.name] = chance(0.5);
    else if (row.type === 'choice') o[row.name] = pick(row.choices);
    else if (small[row.name]) o[row.name] = small[row.name]();
  }
  if (chance(0.02)) o.toString = 1;
  if (chance(0.02)) o.variant = pick(['verb', 'constructor']);
  return o;
}

function sequence(trainer) {
  const { words, tokens } = trainer.task;
  const good = Array.from({ length: tokens }, (_, i) => words[(i * 7) % words.length]);
  return pick([
    good,
    good.join(' '),
    good.map((w) => words.indexOf(w)),
    Int32Array.from(good.map((w) => words.indexOf(w))),
    good.slice(1),
    [...good, good[0]],
    new Uint8Array(2 ** 20),
    'x'.repeat(1e5),
    good.map(() => -1),
    good.map(() => 2 ** 31),
    null,
    {},
  ]);
}

const isRefusal = (error) =>
  error instanceof TypeError || error instanceof RangeError || error instanceof HeadwiseError;

function attempt(call) {
  try {
    return { value: call() };
  } catch (error) {
    if (!isRefusal(error) || /stopped/.test(error.message)) throw error;
    return { refused: error };
  }
}

test(
  `fuzz: random trainer specs and calls for ${SECONDS} s (seed ${SEED})`,
  async () => {
    const hw = await loadHeadwise({});
    const table = hw.trainerOptions();
    hw.createTrainer({ evalSize: 1 }).dispose(); // first use allocates what the module keeps
    const baseline = hw.memoryStats();
    const counts = { created: 0, refused: 0, calls: 0, refusedCalls: 0, twins: 0 };
    const started = performance.now();
    let iterations = 0;
    while (performance.now() - started < SECONDS * 1000) {
      iterations += 1;
      const context = JSON.stringify({ seed: SEED, iteration: iterations });
      const o = options(table);
      const made = attempt(() => hw.createTrainer(o));
      if (made.refused) {
        counts.refused += 1;
        continue;
      }
      counts.created += 1;
      const trainer = made.value;
      const twin = hw.createTrainer(trainer.options);
      try {
        const n = Math.min(1 + int(3), trainer.maxStepsPerCall);
        const a = trainer.step(n);
        const b = twin.step(n);
        expect(b.loss, context).toBe(a.loss); // bitwise: NaN (diverged) equals NaN too
        counts.twins += 1;
        for (let round = 0; round < 4; round += 1) {
          const weights = chance(0.5) ? trainer.getWeights() : null;
          const call = pick([
            () => trainer.step(pick([1, 0, -1, 1.5, 1e6, 2 ** 40, '2', null])),
            () => trainer.evaluate(),
            () => trainer.headShares(),
            () => trainer.attention(sequence(trainer)),
            () => trainer.specialisation(pick([0.8, 0, 2, '0.9', null, 1n])),
            () => trainer.setWeights(weights ?? { [pick(['blocks.0.wq', 'wq', 'constructor'])]: [1, 2] }),
            () => trainer.setWeights({ ...weights, tokenEmbedding: pick([[NaN], null, new Float32Array(3)]) }),
          ]);
          const result = attempt(call);
          if (result.refused) counts.refusedCalls += 1;
          else counts.calls += 1;
          expect(hw.stoppedReason, context).toBe(null);
        }
        // After all that, the trainer still steps like a fresh twin from the same weights.
        const saved = trainer.getWeights();
        const fresh = hw.createTrainer(trainer.options);
        fresh.setWeights(saved);
        expect(fresh.evaluate().loss, context).toBe(trainer.evaluate().loss);
        fresh.dispose();
      } finally {
        trainer.dispose();
        twin.dispose();
      }
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `trainer fuzz: ${iterations} iterations in ${seconds.toFixed(1)} s, seed ${SEED}: ${JSON.stringify(counts)}`,
    );
    expect(hw.stoppedReason).toBe(null);
    expect(hw.liveTrainers()).toBe(0);
    const after = hw.memoryStats();
    expect(after.heapInUseBytes).toBe(baseline.heapInUseBytes);
    expect(after.stackPointer).toBe(baseline.stackPointer);
    expect(counts.twins).toBeGreaterThan(0);
  },
  (SECONDS + 120) * 1000,
);
