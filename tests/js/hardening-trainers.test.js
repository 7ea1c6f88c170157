// Trainers allocate like layers: a module filled with trainers, and a trainer asked of a module
// filled with layers, give clear refusals; afterwards every layer and trainer still works and
// disposing gives the heap back. Before the layer library both aborted the whole module.
import { expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import { referenceMha } from './reference.js';
import './matchers.js';

const SMALL = { heads: 2, dModel: 16, mlpWidth: 16, batch: 8, evalSize: 64, seed: 9 };

function layerAnswersCorrectly(hw) {
  const layer = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 5 });
  const x = hw.randomInput(layer.config, 5);
  expect(layer.forward(x)).toBeCloseToReference(referenceMha(layer.config, layer.getWeights(), x).output);
  layer.dispose();
}

// Ten steps of the small trainer: losses and held-out loss, to compare with a fresh module's.
function tenSteps(trainer) {
  const losses = [];
  for (let i = 0; i < 10; i++) losses.push(trainer.step(1).loss);
  return { losses, heldOut: trainer.evaluate().loss };
}

const freshRun = (async () => {
  const hw = await loadHeadwise({});
  const t = hw.createTrainer(SMALL);
  const run = tenSteps(t);
  t.dispose();
  return run;
})();

function expectOutOfMemory(error) {
  expect(error).toBeInstanceOf(HeadwiseError);
  expect(error.message).toMatch(/out of memory/);
}

test('filling the module with trainers gives refusals, never an abort; every trainer still trains', async () => {
  const hw = await loadHeadwise({});
  const heapBefore = hw.memoryStats().heapInUseBytes;
  const small = hw.createTrainer(SMALL);
  const trainers = [];
  let refusals = 0;
  const sizes = [4096, 1024, 256, 64, 16, 4, 1];
  // Big batches first, then smaller ones into what is left, down to the smallest.
  for (const batch of sizes) {
    for (;;) {
      try {
        trainers.push(
          // The default model: a batch of 4096 stays within one call's work limit.
          hw.createTrainer({ batch, evalSize: 16, memoryBudget: 2 ** 31 }),
        );
      } catch (error) {
        expectOutOfMemory(error);
        refusals += 1;
        break;
      }
    }
  }
  const full = hw.memoryStats();
  console.log(
    `trainer fill: ${trainers.length} trainers, ${refusals} refusals, heap in use ${full.heapInUseBytes} bytes ` +
      `of ${full.wasmMemoryBytes}`,
  );
  expect(hw.stoppedReason).toBe(null);
  expect(refusals).toBe(sizes.length);
  expect(full.wasmMemoryBytes).toBeGreaterThan(2 ** 31 - 2 ** 27);
  // On the full module: the small trainer trains exactly as on a fresh one (same losses, bit for
  // bit), the big ones still step, layers are a result or a clean refusal.
  expect(tenSteps(small)).toEqual(await freshRun);
  for (const t of [trainers[0], trainers.at(-1)]) expect(Number.isFinite(t.step(1).loss)).toBe(true);
  for (let i = 0; i < 50; i++) {
    try {
      hw.createAttention({ tokens: 64 + i, dModel: 64, heads: 2 }).dispose();
    } catch (error) {
      expectOutOfMemory(error);
    }
    try {
      hw.createTrainer({ ...SMALL, batch: 256 + i }).dispose();
    } catch (error) {
      expectOutOfMemory(error);
    }
  }
  expect(hw.stoppedReason).toBe(null);
  for (const t of trainers) t.dispose();
  small.dispose();
  expect(hw.liveTrainers()).toBe(0);
  const heapAfter = hw.memoryStats().heapInUseBytes;
  console.log(`trainer fill: heap in use ${heapBefore} bytes before, ${heapAfter} after disposing`);
  expect(heapAfter).toBe(heapBefore);
  layerAnswersCorrectly(hw);
}, 300_000);

test('createTrainer on a module full of layers is refused; the layers keep working, then it fits', async () => {
  const hw = await loadHeadwise({});
  const heapBefore = hw.memoryStats().heapInUseBytes;
  const early = hw.createTrainer(SMALL); // made before the module filled up
  const layers = [];
  for (let tokens = 4096, width = 1024; tokens >= 1 && width >= 2; tokens /= 2, width /= 2) {
    for (;;) {
      try {
        layers.push(hw.createAttention({ tokens, dModel: width, heads: 2, memoryBudget: 2 ** 31 }));
      } catch (error) {
        expectOutOfMemory(error);
        break;
      }
    }
  }
  // The default trainer (a few MB) does not fit in what the layers left.
  let refused = null;
  try {
    hw.createTrainer({}).dispose();
  } catch (error) {
    refused = error;
  }
  expectOutOfMemory(refused);
  expect(hw.stoppedReason).toBe(null);
  // Every call of a trainer made earlier, on the full module: a result or a clean refusal.
  const weights = early.getWeights();
  const calls = [
    () => early.step(1),
    () => early.evaluate(),
    () => early.headShares(),
    () => early.specialisation(),
    () => early.attention('the dog chase the cat and the boy catch the ball ?'),
    () => early.getWeights(),
    () => early.setWeights(weights),
    () => hw.trainerOptions(),
  ];
  for (let round = 0; round < 5; round++) {
    for (const call of calls) {
      try {
        call();
      } catch (error) {
        expectOutOfMemory(error);
      }
      expect(hw.stoppedReason).toBe(null);
    }
  }
  early.dispose();
  const last = layers.at(-1);
  const x = hw.randomInput(last.config, 2);
  expect(last.forward(x)).toBeCloseToReference(referenceMha(last.config, last.getWeights(), x).output);
  // Room again: the trainer fits and trains like one on a fresh module.
  layers.shift().dispose();
  const trainer = hw.createTrainer(SMALL);
  expect(tenSteps(trainer)).toEqual(await freshRun);
  trainer.dispose();
  for (const layer of layers) layer.dispose();
  expect(hw.liveLayers()).toBe(0);
  expect(hw.memoryStats().heapInUseBytes).toBe(heapBefore);
  layerAnswersCorrectly(hw);
}, 300_000);
