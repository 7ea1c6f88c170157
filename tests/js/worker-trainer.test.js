// Trainers in workers (createWorkerTrainer) in Node (worker_threads): the page-wide bound on trainer
// workers holds with more trainers than it (they share the workers and all train), a worker ends
// with its last trainer, a worker that dies or never answers inside a step fails its trainer with
// the reason within its deadline (and frees its place: a new trainer works), trainers needing
// another kind of worker at the bound wait in turn (an AbortSignal ends a wait), an honest request
// whose work is large is given the time its work needs, and hostile arguments and replies are
// refused with clear errors while the trainer keeps working.
import { afterEach, beforeAll, expect, test } from 'vitest';
import { createWorkerTrainer, loadHeadwise, workerSlotLimit, workerSlotStats } from '../../web/headwise.js';
import { WorkerFailure } from '../../web/pool/channel.js';
import { until } from './until.js';

const fixture = (name) => new URL(`./pool-workers/${name}.js`, import.meta.url);
const SMALL = { task: 'induction', layers: 2, heads: 2, dModel: 16, mlpWidth: 0, batch: 6, evalSize: 16, seed: 3 };
const open = new Set();
const start = async (options = SMALL, settings = {}) => {
  const trainer = await createWorkerTrainer(hw, options, { kinds: ['node'], ...settings });
  open.add(trainer);
  return trainer;
};
const idle = async () => {
  await until(async () => (await workerSlotStats()).workers === 0);
  return workerSlotStats();
};

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});
afterEach(async () => {
  for (const t of open) t.dispose();
  open.clear();
  expect((await idle()).workers).toBe(0);
});

test('more trainers than the bound share the bounded workers, and every one trains', async () => {
  const limit = await workerSlotLimit();
  expect(limit).toBeGreaterThanOrEqual(2);
  const startedThreads = new Set();
  const channel = new BroadcastChannel('headwise-workers-started');
  channel.onmessage = (event) => startedThreads.add(event.data);
  try {
    const count = limit + 2;
    const before = await workerSlotStats();
    const settings = { workerUrl: fixture('announces') };
    const trainers = await Promise.all(Array.from({ length: count }, () => start(SMALL, settings)));
    const results = await Promise.all(trainers.map((t) => t.step(3)));
    expect(results.map((r) => r.step)).toEqual(trainers.map(() => 3));
    for (const r of results) expect(r.loss).toBeGreaterThan(0);
    const stats = await workerSlotStats();
    expect(stats).toMatchObject({ limit, workers: limit, trainers: count, started: before.started + limit });
    expect(stats.peak).toBeLessThanOrEqual(limit);
    expect(trainers.some((t) => t.sharing > 0)).toBe(true);
    // Counted by the workers themselves: as many started as the bound, no more.
    await until(() => startedThreads.size >= limit);
    expect(startedThreads.size).toBe(limit);
    // Same seed, same batches: a trainer sharing a worker trains as one alone does.
    const local = hw.createTrainer(SMALL);
    const alone = [1, 2, 3].map(() => local.step(1).loss);
    local.dispose();
    expect(results[count - 1].loss).toBeCloseTo((alone[0] + alone[1] + alone[2]) / 3, 6);
    // A worker ends with its last trainer; the others keep training.
    for (const t of trainers.slice(0, count - 1)) t.dispose();
    expect((await workerSlotStats()).workers).toBe(1);
    expect((await trainers[count - 1].step(1)).step).toBe(4);
  } finally {
    channel.close();
  }
});

test('a worker that exits inside a step: its trainer fails with the reason, and the place is free again', async () => {
  const doomed = await start(SMALL, { workerUrl: fixture('exits-in-trainer-step') });
  expect(doomed.failure).toBeNull();
  const error = await doomed.step(1).catch((e) => e);
  expect(error).toBeInstanceOf(WorkerFailure);
  expect(error.message).toMatch(/^trainer worker \d+ exited \(code 3\)$/);
  expect(doomed.failure).toBe(error.message);
  await expect(doomed.measure()).rejects.toThrow(/exited \(code 3\)/);
  expect((await workerSlotStats()).workers).toBe(0);
  const fresh = await start();
  expect(await fresh.step(2)).toMatchObject({ step: 2 });
});

test('a worker that never answers a step is given up within its deadline (timeoutMs + the work)', async () => {
  const hung = await start(SMALL, { workerUrl: fixture('hangs-in-trainer-step'), timeoutMs: 300 });
  const t0 = performance.now();
  const error = await hung.step(1).catch((e) => e);
  const ms = performance.now() - t0;
  expect(error).toBeInstanceOf(WorkerFailure);
  expect(error.message).toMatch(/^trainer worker \d+ did not answer trainerStep within \d+ ms$/);
  expect(ms).toBeGreaterThanOrEqual(290);
  expect(ms).toBeLessThan(3000);
  expect(hung.failure).toMatch(/did not answer trainerStep/);
  expect((await workerSlotStats()).workers).toBe(0);
  expect(await (await start()).step(1)).toMatchObject({ step: 1 });
});

test('an honest request is given the time its work needs: the deadline grows with steps x multiply-adds', async () => {
  // The Learn panel's 2-layer model: 3.3e8 multiply-adds a step; with a fixed part of 1 ms only the
  // work's share of the deadline lets 10 steps, a measurement and the maps answer.
  const model = { task: 'induction', layers: 2, heads: 4, dModel: 64, mlpWidth: 0, batch: 32, evalSize: 128, seed: 0 };
  const trainer = await start(model, { timeoutMs: 1 });
  expect(trainer.info).toMatchObject({ layers: 2, heads: 4, tokens: 64, batch: 32, evalSize: 128 });
  expect(trainer.info.stepMultiplyAdds).toBeGreaterThan(1e8);
  expect(await trainer.step(10)).toMatchObject({ step: 10 });
  const measured = await trainer.measure();
  expect(measured.roles).toHaveLength(2);
  const maps = await trainer.attention(new Int32Array(64).map((_, i) => i % 16));
  expect(maps.layers.map((layer) => layer.heads.map((m) => m.length))).toEqual([
    [4096, 4096, 4096, 4096],
    [4096, 4096, 4096, 4096],
  ]);
});

// The trainer's own arguments (step counts, sequences, weights) are the contract's
// (tests/js/trainer-contract.test.js); here, the settings.
test('bad settings are refused at once', async () => {
  await expect(createWorkerTrainer(hw, SMALL, { kinds: ['node'], name: 'x' })).rejects.toThrow(/unknown setting/);
  await expect(createWorkerTrainer(hw, SMALL, { timeoutMs: NaN })).rejects.toThrow(RangeError);
  await expect(createWorkerTrainer(hw, SMALL, { signal: 'stop' })).rejects.toThrow(/signal must be an AbortSignal/);
  expect((await workerSlotStats()).workers).toBe(0);
});

test('a reply of the wrong shape gives the worker up with the reason', async () => {
  const trainer = await start(SMALL, { workerUrl: fixture('lies-in-trainer-attention') });
  const ids = Array.from({ length: trainer.info.tokens }, (_, i) => i % trainer.info.vocabulary);
  const error = await trainer.attention(ids).catch((e) => e);
  expect(error).toBeInstanceOf(WorkerFailure);
  expect(error.message).toMatch(/sent an invalid message: trainerAttention must answer 2 layers x 2 heads/);
  expect(trainer.failure).toBe(error.message);
  expect((await workerSlotStats()).workers).toBe(0);
});

test('a reply whose numbers are not finite (a step loss of NaN, no step diverged) gives the worker up', async () => {
  const trainer = await start(SMALL, { workerUrl: fixture('lies-nan-loss') });
  const error = await trainer.step(1).catch((e) => e);
  expect(error).toBeInstanceOf(WorkerFailure);
  expect(error.message).toMatch(/sent an invalid message: trainerStep must answer .* \(finite unless diverged\)/);
  expect(trainer.failure).toBe(error.message);
});

test('no worker (kinds: []): a request on this thread is capped at one call, as a Trainer', async () => {
  // The Learn panel's 2-layer model: 3.3e8 multiply-adds a step. In a worker one request may ask
  // 2e10 of them (60 steps); on this thread one call's 2e9 (6 steps, about 0.2 s), as Trainer.step.
  const model = { task: 'induction', layers: 2, heads: 4, dModel: 64, mlpWidth: 0, batch: 32, evalSize: 128, seed: 0 };
  const local = hw.createTrainer(model);
  const onPage = await start(model, { kinds: [] });
  expect(onPage.where).toBe('page');
  expect(onPage.maxStepsPerCall).toBe(local.maxStepsPerCall);
  expect(onPage.maxStepsPerCall * onPage.stepMultiplyAdds).toBeLessThanOrEqual(2e9);
  await expect(onPage.step(local.maxStepsPerCall + 1)).rejects.toThrow(/more than one call allows/);
  const inWorker = await start(model);
  expect(inWorker.maxStepsPerCall).toBe(Math.floor(2e10 / inWorker.stepMultiplyAdds));
  local.dispose();
});

test('start/reset storms: abandoned creations are dropped unsent, the next start does not wait', async () => {
  // The Learn panel's two models, as "Train live" creates them; 40 starts each abandoned (its
  // AbortSignal) 0-10 ms later. Counted by the workers themselves: a creation is sent to a worker
  // only when the worker is free, so at the next start at most one abandoned creation per worker
  // is still running, and the new trainers are created and step at once.
  const base = { task: 'induction', heads: 4, dModel: 64, mlpWidth: 0, batch: 32, evalSize: 128, seed: 0 };
  const models = [1, 2].map((layers) => ({ ...base, layers }));
  const created = [];
  const channel = new BroadcastChannel('headwise-trainer-creates');
  channel.onmessage = (event) => created.push(event.data);
  const settings = { workerUrl: fixture('counts-creates') };
  try {
    const abandoned = [];
    for (let i = 0; i < 40; i += 1) {
      const controller = new AbortController();
      for (const model of models) {
        abandoned.push(start(model, { ...settings, signal: controller.signal }).catch((error) => error));
      }
      await new Promise((resolve) => setTimeout(resolve, (i * 7) % 11));
      controller.abort();
    }
    // Each abandoned start is refused with the signal's reason (or, created before the abort, disposed).
    for (const outcome of await Promise.all(abandoned)) {
      if (outcome instanceof Error) expect(outcome.name).toBe('AbortError');
    }
    const atStart = created.length;
    const t0 = performance.now();
    const fresh = await Promise.all(models.map((model) => start(model, settings)));
    await Promise.all(fresh.map((t) => t.step(1)));
    const ms = performance.now() - t0;
    await new Promise((resolve) => setTimeout(resolve, 100)); // the broadcasts arrive
    const limit = await workerSlotLimit();
    // The fresh two, and at most one abandoned creation per worker ahead of them.
    expect(created.length - atStart, `creations after the storm (${ms.toFixed(0)} ms)`).toBeLessThanOrEqual(2 + limit);
    expect(atStart, 'creations sent during the storm').toBeLessThan(80);
  } finally {
    channel.close();
  }
});

test('at the bound, trainers needing another kind of worker wait in turn; an AbortSignal ends a wait', async () => {
  const limit = await workerSlotLimit();
  const held = await Promise.all(Array.from({ length: limit }, () => start()));
  const other = { workerUrl: fixture('announces') };
  const controller = new AbortController();
  const aborted = start(SMALL, { ...other, signal: controller.signal });
  const order = [];
  const first = start(SMALL, other).then((t) => (order.push('first'), t));
  const second = start(SMALL, other).then((t) => (order.push('second'), t));
  await until(async () => (await workerSlotStats()).waiting >= 3, { every: 5 });
  expect(await workerSlotStats()).toMatchObject({ workers: limit, waiting: 3 });
  controller.abort();
  await expect(aborted).rejects.toThrow(/aborted/);
  expect((await workerSlotStats()).waiting).toBe(2);
  // One default worker ends: the first waiter starts a worker of its kind, the second joins it.
  held[0].dispose();
  const [a, b] = await Promise.all([first, second]);
  expect(order).toEqual(['first', 'second']);
  expect(await workerSlotStats()).toMatchObject({ workers: limit, waiting: 0 });
  expect(a.sharing).toBe(1);
  expect(await Promise.all([a.step(1), b.step(1), held[1].step(1)])).toMatchObject([
    { step: 1 },
    { step: 1 },
    { step: 1 },
  ]);
  await expect(start(SMALL, { signal: 'stop' })).rejects.toThrow(/signal must be an AbortSignal/);
});

test('with no worker (kinds: []) it trains on this thread; hostile calls leave the heap as it was', async () => {
  const heapBefore = hw.memoryStats().heapInUseBytes;
  const liveBefore = hw.liveTrainers();
  const trainer = await start(SMALL, { kinds: [] });
  expect([trainer.where, trainer.why]).toEqual(['page', 'no Worker here']);
  expect(hw.liveTrainers()).toBe(liveBefore + 1);
  const { tokens } = trainer.info;
  await expect(trainer.attention(new Array(tokens).fill(1e9))).rejects.toThrow(RangeError);
  await expect(trainer.attention(new Array(tokens + 1).fill(0))).rejects.toThrow(RangeError);
  await expect(trainer.step(1e6)).rejects.toThrow(RangeError);
  expect(await trainer.step(2)).toMatchObject({ step: 2 });
  expect((await trainer.measure()).step).toBe(2);
  trainer.dispose();
  open.delete(trainer);
  await until(() => hw.liveTrainers() <= liveBefore, { every: 5 });
  expect(hw.liveTrainers()).toBe(liveBefore);
  expect(hw.memoryStats().heapInUseBytes).toBe(heapBefore);
});
