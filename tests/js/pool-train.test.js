// Training data-parallel across the pool in Node (worker_threads): slice gradients summed against
// the whole batch's, one instance bit for bit Trainer.step(), repeatable runs for a seed and a
// worker count, two workers close to one, and the lifecycle: a worker that dies or hangs in a
// step is replaced (the step is asked again and the run stays bitwise the same), one that keeps
// dying leaves the calling thread with the reason, and dispose frees every instance.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPool, loadHeadwise, sharedPool } from '../../web/headwise.js';
import { rowRanges } from '../../web/pool/data-parallel.js';

const fixture = (name) => new URL(`./pool-workers/${name}.js`, import.meta.url);
// The induction task's model, small: 2 attention-only layers, a batch of 6.
const OPTIONS = { task: 'induction', layers: 2, heads: 2, dModel: 16, mlpWidth: 0, batch: 6, evalSize: 16, seed: 3 };
const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

function maxDiff(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i += 1) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

test('rows are split in contiguous balanced ranges', () => {
  expect(rowRanges(6, 2)).toEqual([
    [0, 3],
    [3, 6],
  ]);
  expect(rowRanges(32, 3)).toEqual([
    [0, 10],
    [10, 21],
    [21, 32],
  ]);
  expect(rowRanges(2, 5)).toEqual([
    [0, 1],
    [1, 2],
  ]);
});

test('slice gradients summed are the whole batch gradient (1e-6 + 1e-5 |g|); [0, batch) is it bit for bit', () => {
  const whole = hw.createTrainer(OPTIONS);
  for (let i = 0; i < 4; i += 1) whole.step();
  const state = whole.batchState;
  const parts = [
    [0, 2],
    [2, 5],
    [5, 6],
  ].map(([from, to]) => {
    const t = hw.createTrainer(OPTIONS);
    t.setParameterBuffer(whole.parameterBuffer());
    t.batchState = state;
    const s = t.sliceGradients(from, to);
    t.dispose();
    return s;
  });
  const again = hw.createTrainer(OPTIONS);
  again.setParameterBuffer(whole.parameterBuffer());
  again.batchState = state;
  const all = whole.sliceGradients();
  expect(same(again.sliceGradients(0, 6).gradient, all.gradient)).toBe(true);
  expect(parts.map((p) => p.batchState)).toEqual([all.batchState, all.batchState, all.batchState]);
  expect(parts.reduce((n, p) => n + p.counted, 0)).toBe(all.counted);
  let worst = 0;
  let outside = 0;
  for (let i = 0; i < all.gradient.length; i += 1) {
    const sum = parts[0].gradient[i] + parts[1].gradient[i] + parts[2].gradient[i];
    const d = Math.abs(sum - all.gradient[i]);
    worst = Math.max(worst, d);
    if (d > 1e-6 + 1e-5 * Math.abs(all.gradient[i])) outside += 1;
  }
  expect(outside, `max |diff| ${worst}`).toBe(0);
  expect(Math.max(...all.gradient.map(Math.abs))).toBeGreaterThan(1e-3);
  // Without the whole batch's divisor a slice's gradient would be about batch/rows times larger.
  expect(maxDiff(parts[0].gradient, all.gradient)).toBeGreaterThan(0);
  whole.dispose();
  again.dispose();
});

test('the pieces are checked', () => {
  const t = hw.createTrainer(OPTIONS);
  expect(() => t.sliceGradients(3, 3)).toThrow(RangeError);
  expect(() => t.sliceGradients(0, 7)).toThrow(/0 <= from < to <= 6/);
  expect(() => (t.batchState = 2 ** 32)).toThrow(RangeError);
  expect(() => t.applyGradients(new Float32Array(3), 1)).toThrow(/must have \d+ values/);
  expect(() => t.setParameterBuffer(new Float64Array(t.parameterCount))).toThrow(TypeError);
  const bad = new Float32Array(t.parameterCount);
  bad[5] = NaN;
  const before = t.parameterBuffer();
  expect(t.applyGradients(bad, 1)).toMatchObject({ diverged: true, divergedSteps: 1, step: 0 });
  expect(same(t.parameterBuffer(), before)).toBe(true);
  t.dispose();
});

async function run(pool, steps, split) {
  const t = pool.createTrainer(OPTIONS, split);
  const losses = [];
  for (let i = 0; i < steps; i += 1) losses.push((await t.step()).loss);
  const weights = t.trainer.parameterBuffer();
  const heldOut = (await t.evaluate()).loss;
  t.dispose();
  return { losses, weights, heldOut };
}

describe('a pool of 2 workers', () => {
  let pool;
  let reference; // Trainer.step() on the calling thread, 12 steps
  beforeAll(async () => {
    pool = await createPool({ size: 2 });
    const t = hw.createTrainer(OPTIONS);
    const losses = [];
    for (let i = 0; i < 12; i += 1) losses.push(t.step().loss);
    reference = { losses, weights: t.parameterBuffer(), heldOut: t.evaluate().loss };
    t.dispose();
  });
  afterAll(() => pool.dispose());

  test('one worker (workers: 1) is Trainer.step() bit for bit', async () => {
    const one = await run(pool, 12, { workers: 1 });
    expect(one.losses).toEqual(reference.losses);
    expect(same(one.weights, reference.weights)).toBe(true);
    expect(one.heldOut).toBe(reference.heldOut);
  });

  test('two workers: bitwise repeatable, and within 1e-4 of one instance after 12 steps', async () => {
    const a = await run(pool, 12);
    const b = await run(pool, 12);
    expect(same(a.weights, b.weights)).toBe(true);
    expect(a.losses).toEqual(b.losses);
    expect(same(a.weights, reference.weights)).toBe(false); // the sum's order differs
    const worst = maxDiff(a.weights, reference.weights);
    expect(worst, `max |weight diff| ${worst}`).toBeLessThan(1e-4);
    for (let i = 0; i < 12; i += 1) expect(Math.abs(a.losses[i] - reference.losses[i])).toBeLessThan(1e-5);
  });

  test('where it runs; attention and measure come from a worker with the current weights', async () => {
    const t = pool.createTrainer(OPTIONS);
    expect([t.instances, t.fallbackReason]).toEqual([2, null]);
    await t.step(3);
    const local = hw.createTrainer(OPTIONS);
    local.setParameterBuffer(t.trainer.parameterBuffer());
    const ids = Array.from({ length: t.trainer.task.tokens }, (_, i) => i % 10);
    const maps = await t.attention(ids);
    const expected = local.attention(ids);
    expect(maps.layers.length).toBe(2);
    maps.layers.forEach((layer, l) =>
      layer.heads.forEach((h, k) => expect(same(h, expected.layers[l].heads[k])).toBe(true)),
    );
    const m = await t.measure();
    expect(m.step).toBe(3);
    expect(m.heldOut.loss).toBe(local.evaluate().loss);
    expect(m.roles).toEqual(local.roleScores());
    expect((await pool.workerStats()).map((s) => s.liveTrainers)).toEqual([1, 1]);
    t.dispose();
    local.dispose();
    expect((await pool.workerStats()).map((s) => s.liveTrainers)).toEqual([0, 0]);
  });
});

describe('failing workers during training', () => {
  let reference;
  beforeAll(async () => {
    const pool = await createPool({ size: 2 });
    reference = await run(pool, 6);
    pool.dispose();
  });

  test('a worker that dies in a step is replaced, and the run is bitwise the same', async () => {
    const pool = await createPool({ size: 2, workerUrl: fixture('exits-in-step') });
    const r = await run(pool, 6);
    expect([pool.size, pool.fallbackReason]).toEqual([2, null]);
    expect(pool.replacements).toBeGreaterThanOrEqual(1);
    expect(same(r.weights, reference.weights)).toBe(true);
    pool.dispose();
  });

  test('a worker that never answers a step is replaced after its deadline', async () => {
    // The deadline also bounds a replacement's start: 5 s, so that on a loaded machine only the
    // hanging worker misses it.
    const pool = await createPool({ size: 2, workerUrl: fixture('hangs-in-step'), timeoutMs: 5000 });
    const t0 = performance.now();
    const r = await run(pool, 6);
    expect(performance.now() - t0).toBeGreaterThan(4900);
    expect([pool.size, pool.fallbackReason]).toEqual([2, null]);
    expect(same(r.weights, reference.weights)).toBe(true);
    pool.dispose();
  });

  test("maps of the wrong size from a worker are refused: the calling thread's maps, with the reason", async () => {
    const pool = await createPool({ size: 2, workerUrl: fixture('lies-in-trainer-attention') });
    const t = pool.createTrainer(OPTIONS);
    await t.step(2);
    const local = hw.createTrainer(OPTIONS);
    local.setParameterBuffer(t.trainer.parameterBuffer());
    const ids = Array.from({ length: t.trainer.task.tokens }, (_, i) => i % 10);
    const maps = await t.attention(ids);
    const expected = local.attention(ids);
    expect(maps.layers.map((l) => l.heads.length)).toEqual(expected.layers.map((l) => l.heads.length));
    maps.layers.forEach((layer, l) =>
      layer.heads.forEach((h, k) => expect(same(h, expected.layers[l].heads[k])).toBe(true)),
    );
    expect(t.fallbackReason ?? pool.fallbackReason).toMatch(/trainerAttention must answer 2 layers x 2 heads/);
    local.dispose();
    t.dispose();
    pool.dispose();
  });

  test('a worker that dies again after replacement: the calling thread trains on, with the reason', async () => {
    const pool = await createPool({ size: 2, workerUrl: fixture('exits-always-in-step') });
    const t = pool.createTrainer(OPTIONS);
    const e = await t.step(2);
    expect(e.step).toBe(2);
    expect(pool.size).toBe(1);
    expect(t.instances).toBe(1);
    expect(t.fallbackReason).toMatch(/failed again after being replaced: worker \d\.1 exited \(code 3\)/);
    expect((await t.step()).step).toBe(3);
    t.dispose();
    pool.dispose();
  });

  test('dispose frees every instance: the workers, their trainers and the calling thread trainer', async () => {
    const before = hw.liveTrainers();
    const lease = await sharedPool({ size: 2, module: hw });
    const other = await sharedPool();
    const a = lease.createTrainer(OPTIONS);
    const b = other.createTrainer(OPTIONS);
    await Promise.all([a.step(), b.step()]);
    expect((await other.workerStats()).map((s) => s.liveTrainers)).toEqual([2, 2]);
    expect(hw.liveTrainers()).toBe(before + 2);
    lease.dispose();
    expect(a.disposed).toBe(true);
    await expect(a.step()).rejects.toThrow(/disposed/);
    expect((await other.workerStats()).map((s) => s.liveTrainers)).toEqual([1, 1]);
    other.dispose();
    expect(hw.liveTrainers()).toBe(before);
  });
});

test('no workers (a pool of size 1): the data-parallel trainer keeps the call limit, yields the thread', async () => {
  // The Learn panel's 2-layer model: one call may take maxStepsPerCall steps (6 here), as a
  // Trainer's; step(1e6) was accepted and held the thread for good. Between steps the thread is
  // given back: a timer runs, and dispose() stops a run between two steps.
  const model = { task: 'induction', layers: 2, heads: 4, dModel: 64, mlpWidth: 0, batch: 32, evalSize: 128, seed: 0 };
  const pool = await createPool({ size: 1, module: hw });
  const t = pool.createTrainer(model);
  const local = hw.createTrainer(model);
  expect(t.maxStepsPerCall).toBe(local.maxStepsPerCall);
  local.dispose();
  const t0 = performance.now();
  await expect(t.step(1e6)).rejects.toThrow(/^step\(1000000\) would take \d+ multiply-adds, more than one call allows/);
  expect(performance.now() - t0).toBeLessThan(100);
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 0);
  const run = t.step(t.maxStepsPerCall);
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(ticks).toBeGreaterThanOrEqual(1); // the timer ran while the run went on
  t.dispose();
  await expect(run).rejects.toThrow('this trainer was disposed');
  clearInterval(timer);
  expect(t.steps).toBeLessThan(t.maxStepsPerCall);
  pool.dispose();
});
