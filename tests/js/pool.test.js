// The pool in Node (worker_threads): split forwards equal the single instance's, small shapes stay
// on the calling thread, failing workers are replaced or the pool falls back with a reason, and
// dispose frees every instance.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPool, HeadwiseError, loadHeadwise, sharedPool } from '../../web/headwise.js';
import { SPLIT_MIN_FLOPS } from '../../web/pool/pool.js';
import { flopsOf } from '../../web/pool/split.js';
import { until } from './until.js';

// Every position kind the core lists (read while the tests are collected: test.each needs them).
const KINDS = (await loadHeadwise()).positionKinds().map((kind) => kind.name);
const fixture = (name) => new URL(`./pool-workers/${name}.js`, import.meta.url);
const TOY = { batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 3 };
const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
// Threads of terminated workers end a little later: the count once it has held still for 100 ms.
async function settledThreads() {
  let last = threads();
  for (let still = 0; still < 5;) {
    await new Promise((r) => setTimeout(r, 20));
    still = threads() === last ? still + 1 : 0;
    last = threads();
  }
  return last;
}

// |a - b| <= atol + rtol |ref| everywhere; returns the largest |a - b| (printed on failure).
function expectClose(actual, expected, atol = 1e-5, rtol = 1e-5) {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  let bad = -1;
  for (let i = 0; i < actual.length; i += 1) {
    const d = Math.abs(actual[i] - expected[i]);
    worst = Math.max(worst, d);
    if (bad < 0 && !(d <= atol + rtol * Math.abs(expected[i]))) bad = i;
  }
  expect(bad, `max |diff| ${worst}; first outside at ${bad}: ${actual[bad]} vs ${expected[bad]}`).toBe(-1);
  return worst;
}

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

async function single(config, x, weights) {
  const layer = hw.createAttention(config);
  if (weights) layer.setWeights(weights);
  const y = layer.forward(x);
  layer.dispose();
  return y;
}

describe('a pool of 3 workers', () => {
  let pool;
  beforeAll(async () => {
    pool = await createPool({ size: 3 });
  });
  afterAll(() => pool.dispose());

  test('starts 3 workers without a fallback', () => {
    expect(pool.size).toBe(3);
    expect(pool.fallbackReason).toBeNull();
  });

  const CASES = [
    ['the toy', TOY],
    [
      '5 heads on 3 workers, explicit headDim, batch 2',
      { batch: 2, tokens: 9, dModel: 8, heads: 5, headDim: 3, seed: 4 },
    ],
    ['biases, not causal', { batch: 1, tokens: 7, dModel: 12, heads: 4, bias: true, causal: false, seed: 5 }],
    ['one head (one worker does it all)', { batch: 1, tokens: 5, dModel: 4, heads: 1, seed: 6 }],
    ['GPT-2 width, T = 64', { batch: 1, tokens: 64, dModel: 768, heads: 12, seed: 7 }],
  ];
  test.each(CASES)('%s: equal to one instance within 1e-5 + 1e-5 |ref|', async (_, config) => {
    const layer = pool.createAttention(config);
    const x = hw.randomInput(config, 11);
    const ours = await layer.forward(x, { parallel: 'always' });
    const worst = expectClose(ours, await single(config, x));
    expect(await layer.forward(x, { parallel: 'always' })).toEqual(ours); // a fixed order: repeatable
    expect(await layer.forward(x, { parallel: 'never' })).toEqual(await single(config, x));
    console.log(`pool of 3 vs one instance, ${JSON.stringify(config)}: max |diff| ${worst}`);
    layer.dispose();
  });

  // Every position kind the core lists, causal and not: the parts carry the kind (a learned table
  // whole, ALiBi's slopes by each head's index among all the layer's heads). 5 heads on 3 workers,
  // so the parts hold 1, 2 and 2 heads starting at heads 0, 1 and 3.
  const KIND_CASES = KINDS.flatMap((positions) => [true, false].map((causal) => [positions, causal]));
  test.each(KIND_CASES)(
    'positions %s, causal %s, parallel always: equal to one instance within 1e-5 + 1e-5 |ref|',
    async (positions, causal) => {
      const config = { batch: 2, tokens: 7, dModel: 10, heads: 5, headDim: 4, causal, positions, seed: 8 };
      const layer = pool.createAttention(config);
      const x = hw.randomInput(config, 13);
      const worst = expectClose(await layer.forward(x, { parallel: 'always' }), await single(config, x));
      console.log(`pool of 3, positions ${positions}, causal ${causal}: max |diff| ${worst}`);
      layer.dispose();
    },
  );
  // Shared keys and values: a part owns whole K/V groups (8 query heads in groups of 2 on 3 workers:
  // 2, 4 and 2 query heads), and its query heads read their own group's K/V head.
  test.each([
    [8, 4, 'alibi'],
    [6, 2, 'rope'],
    [4, 1, 'learned'],
  ])(
    '%i heads, %i K/V heads, positions %s, parallel always: equal to one instance',
    async (heads, kvHeads, positions) => {
      const config = { batch: 2, tokens: 7, dModel: 12, heads, kvHeads, headDim: 3, causal: true, positions, seed: 4 };
      const layer = pool.createAttention(config);
      const x = hw.randomInput(config, 15);
      const worst = expectClose(await layer.forward(x, { parallel: 'always' }), await single(config, x));
      expect(pool.fallbackReason).toBe(null); // the parts were computed by the workers, none refused
      console.log(`pool of 3, ${heads} heads, ${kvHeads} K/V heads, ${positions}: max |diff| ${worst}`);
      layer.dispose();
    },
  );
  test.each(KIND_CASES)(
    'positions %s, causal %s, T = 512, width 512, parallel auto (splits): equal to one instance',
    async (positions, causal) => {
      const config = { tokens: 512, dModel: 512, heads: 8, causal, positions, seed: 9 };
      const layer = pool.createAttention(config);
      expect(layer.willSplit).toBe(true);
      const x = hw.randomInput(config, 14);
      const worst = expectClose(await layer.forward(x), await single(config, x));
      console.log(`pool of 3, T = 512, width 512, positions ${positions}, causal ${causal}: max |diff| ${worst}`);
      layer.dispose();
    },
  );

  test('setWeights reaches the workers at the next forward', async () => {
    const config = { ...TOY, bias: true };
    const layer = pool.createAttention(config);
    const x = hw.randomInput(config, 12);
    const before = await layer.forward(x, { parallel: 'always' });
    const weights = hw.createAttention({ ...config, seed: 99 }).getWeights();
    layer.setWeights(weights);
    const after = await layer.forward(x, { parallel: 'always' });
    expect(after).not.toEqual(before);
    expectClose(after, await single(config, x, weights));
    layer.dispose();
  });

  // The split forward reuses its buffers (x goes to each worker in a buffer that comes back holding
  // the part's output): each call's result is its own, the caller's x is untouched and not
  // detached, overlapping calls do not mix, and a NaN is refused with the pool still working.
  test('reused buffers: successive, overlapping and refused split forwards each answer their own x', async () => {
    const config = { batch: 2, tokens: 9, dModel: 8, heads: 5, headDim: 3, bias: true, seed: 21 };
    const layer = pool.createAttention(config);
    const xs = [1, 2, 3, 4].map((seed) => hw.randomInput(config, seed));
    const refs = await Promise.all(xs.map((x) => single(config, x)));
    const copies = xs.map((x) => x.slice());
    for (let round = 0; round < 2; round += 1) {
      for (let i = 0; i < xs.length; i += 1) expectClose(await layer.forward(xs[i], { parallel: 'always' }), refs[i]);
    }
    const outputs = await Promise.all(xs.map((x) => layer.forward(x, { parallel: 'always' })));
    outputs.forEach((y, i) => expectClose(y, refs[i]));
    expect(new Set(outputs.map((y) => y.buffer)).size).toBe(outputs.length); // no result shares a buffer
    xs.forEach((x, i) => expect(x).toEqual(copies[i]));
    const bad = xs[0].slice();
    bad[17] = Number.NaN;
    await expect(layer.forward(bad, { parallel: 'always' })).rejects.toThrow(/x\[17\] is NaN/);
    expectClose(await layer.forward(xs[1], { parallel: 'always' }), refs[1]);
    layer.dispose();
  });

  test('small shapes stay on the calling thread; large ones split', () => {
    const toy = pool.createAttention(TOY);
    const gpt2 = pool.createAttention({ tokens: 128, dModel: 768, heads: 12 });
    expect(flopsOf(toy.config)).toBeLessThan(SPLIT_MIN_FLOPS);
    expect(toy.willSplit).toBe(false);
    expect(gpt2.willSplit).toBe(true);
    toy.dispose();
    gpt2.dispose();
  });

  test('bad inputs are refused with clear errors and the pool keeps working', async () => {
    const layer = pool.createAttention(TOY);
    await expect(layer.forward(new Float32Array(3))).rejects.toThrow(/x must have 72 values/);
    await expect(layer.forward(new Float32Array(72), { parallel: 'sometimes' })).rejects.toThrow(RangeError);
    await expect(layer.forward(new Float32Array(72), { threads: 2 })).rejects.toThrow(/unknown forward option/);
    expect(() => layer.setWeights({ wq: new Float32Array(2) })).toThrow(/wq must have 36 values/);
    expect(() => pool.createAttention({ heads: 5 })).toThrow(HeadwiseError);
    const x = hw.randomInput(TOY, 1);
    expectClose(await layer.forward(x, { parallel: 'always' }), await single(TOY, x));
    layer.dispose();
  });

  test('dispose frees the layer in every worker', async () => {
    const before = hw.liveLayers();
    const layer = pool.createAttention(TOY);
    await layer.forward(hw.randomInput(TOY, 1), { parallel: 'always' });
    expect((await pool.workerStats()).map((s) => s.liveLayers)).toEqual([1, 1, 0]); // 2 heads: 2 workers
    layer.dispose();
    layer.dispose();
    expect((await pool.workerStats()).map((s) => s.liveLayers)).toEqual([0, 0, 0]);
    expect(hw.liveLayers()).toBe(before);
    await expect(layer.forward(new Float32Array(72))).rejects.toThrow(/disposed/);
  });
});

test('options are checked', async () => {
  await expect(createPool({ size: 0 })).rejects.toThrow(/size must be a whole number from 1 to 64/);
  await expect(createPool({ size: 2.5 })).rejects.toThrow(RangeError);
  await expect(createPool({ timeoutMs: -1 })).rejects.toThrow(/timeoutMs/);
  await expect(createPool({ workers: 2 })).rejects.toThrow(/unknown createPool option "workers"/);
  // Not a Headwise: refused at once, not at its first use ("createAttention is not a function").
  for (const module of [{}, null, 3, { createAttention: () => null }]) {
    const error = await createPool({ size: 1, module }).catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/^module must be a Headwise instance \(from loadHeadwise\(\)\), got /);
  }
});

test('an honest busy pool is not taken for a dead one: a forward waits for the work queued before it', async () => {
  // 600 split forwards at once (T 256, width 256, 8 heads: about 1e8 FLOPs a part, a few ms) with a
  // fixed deadline of 1 s: the last ones wait seconds behind the others in their worker. Each
  // forward's deadline counts its work and the work queued before it in that worker.
  const config = { batch: 1, tokens: 256, dModel: 256, heads: 8, seed: 5 };
  // Starting a worker (loading the module) must also answer within timeoutMs: under heavy load it
  // may not, which is not what this test is about, so the pool is asked again (at most 3 times).
  let pool;
  for (let tries = 0; tries < 3 && !(pool?.size === 2); tries += 1) {
    pool?.dispose();
    pool = await createPool({ size: 2, timeoutMs: 1000, module: hw });
  }
  expect([pool.size, pool.fallbackReason]).toEqual([2, null]);
  const layer = pool.createAttention(config);
  const x = hw.randomInput(config, 1);
  const expected = await single(config, x);
  const t0 = performance.now();
  const outputs = await Promise.all(Array.from({ length: 600 }, () => layer.forward(x, { parallel: 'always' })));
  const ms = performance.now() - t0;
  expect([pool.replacements, pool.fallbackReason, pool.size], `${ms.toFixed(0)} ms`).toEqual([0, null, 2]);
  for (const y of [outputs[0], outputs[299], outputs[599]]) expectClose(y, expected);
  pool.dispose();
});

test('size 1 starts no worker and computes on the calling thread', async () => {
  const before = await settledThreads();
  const pool = await createPool({ size: 1 });
  expect([pool.size, pool.fallbackReason, threads()]).toEqual([1, null, before]);
  const layer = pool.createAttention(TOY);
  expect(layer.willSplit).toBe(false);
  const x = hw.randomInput(TOY, 2);
  expect(await layer.forward(x, { parallel: 'always' })).toEqual(await single(TOY, x));
  pool.dispose();
});

test('pool.dispose stops every worker thread and frees the calling thread layers', async () => {
  const threadsBefore = await settledThreads();
  const layersBefore = hw.liveLayers();
  const pool = await createPool({ size: 2 });
  expect(threads()).toBeGreaterThanOrEqual(threadsBefore + 2);
  const layer = pool.createAttention(TOY);
  await layer.forward(hw.randomInput(TOY, 1), { parallel: 'always' });
  pool.dispose();
  pool.dispose();
  expect(layer.disposed).toBe(true);
  expect(hw.liveLayers()).toBe(layersBefore);
  await until(() => threads() <= threadsBefore);
  expect(threads()).toBe(threadsBefore);
  expect(() => pool.createAttention(TOY)).toThrow(/disposed/);
});

describe('failing workers', () => {
  const x = () => hw.randomInput(TOY, 3);

  test('a worker that dies in a forward is replaced and the forward still answers', async () => {
    const pool = await createPool({ size: 2, workerUrl: fixture('exits-once') });
    const layer = pool.createAttention(TOY);
    expectClose(await layer.forward(x(), { parallel: 'always' }), await single(TOY, x()));
    expect([pool.size, pool.replacements, pool.fallbackReason]).toEqual([2, 2, null]);
    expect((await pool.workerStats()).map((s) => s.name)).toEqual(['worker 0.1', 'worker 1.1']);
    pool.dispose();
  });

  test('a worker that dies again after replacement: one instance, with the reason', async () => {
    const pool = await createPool({ size: 2, workerUrl: fixture('exits-always') });
    const layer = pool.createAttention(TOY);
    expectClose(await layer.forward(x(), { parallel: 'always' }), await single(TOY, x()));
    expect(pool.size).toBe(1);
    expect(pool.fallbackReason).toMatch(/failed again after being replaced: worker \d\.1 exited \(code 3\)/);
    expect(layer.willSplit).toBe(false);
    expectClose(await layer.forward(x(), { parallel: 'always' }), await single(TOY, x()));
    pool.dispose();
  });

  test('a worker that never answers is replaced after its deadline', async () => {
    // The deadline also bounds a replacement's start (a fresh wasm instance): 5 s, so that on a
    // loaded machine only the hanging worker misses it.
    const pool = await createPool({ size: 2, workerUrl: fixture('hangs-once'), timeoutMs: 5000 });
    const layer = pool.createAttention(TOY);
    const t0 = performance.now();
    expectClose(await layer.forward(x(), { parallel: 'always' }), await single(TOY, x()));
    expect(performance.now() - t0).toBeGreaterThan(4900);
    expect([pool.size, pool.replacements, pool.fallbackReason]).toEqual([2, 2, null]);
    pool.dispose();
  });

  test('a worker whose answer is not what was asked for is refused', async () => {
    const pool = await createPool({ size: 2, workerUrl: fixture('lies') });
    const layer = pool.createAttention(TOY);
    expectClose(await layer.forward(x(), { parallel: 'always' }), await single(TOY, x()));
    expect(pool.fallbackReason).toMatch(/sent an invalid message: forward must answer a Float32Array of 72 values/);
    pool.dispose();
  });

  test('workers that never start: one instance, with the reason', async () => {
    const silent = await createPool({ size: 2, workerUrl: fixture('never-starts'), timeoutMs: 1000 });
    expect(silent.size).toBe(1);
    expect(silent.fallbackReason).toMatch(/no worker could start \(node workers: worker 0\.0 did not answer init/);
    const missing = await createPool({ size: 2, workerUrl: fixture('no-such-file') });
    expect(missing.fallbackReason).toMatch(/no worker could start \(node workers: .*(exited|threw)/);
    const layer = missing.createAttention(TOY);
    expect(await layer.forward(x())).toEqual(await single(TOY, x()));
    silent.dispose();
    missing.dispose();
  });
});

test('the shared pool: one set of workers for every lease; the last lease stops them', async () => {
  const threadsBefore = await settledThreads();
  const [a, b] = await Promise.all([sharedPool({ size: 2 }), sharedPool()]);
  expect(threads()).toBe(threadsBefore + 2);
  const la = a.createAttention(TOY);
  const lb = b.createAttention({ ...TOY, seed: 8 });
  await Promise.all([la.forward(x1(), { parallel: 'always' }), lb.forward(x1(), { parallel: 'always' })]);
  expect((await a.workerStats()).map((s) => s.liveLayers)).toEqual([2, 2]);
  a.dispose();
  expect(la.disposed).toBe(true);
  expect((await b.workerStats()).map((s) => s.liveLayers)).toEqual([1, 1]);
  expect(() => a.createAttention(TOY)).toThrow(/lease was disposed/);
  expectClose(await lb.forward(x1(), { parallel: 'always' }), await single({ ...TOY, seed: 8 }, x1()));
  b.dispose();
  await until(() => threads() <= threadsBefore);
  expect(threads()).toBe(threadsBefore);
  const c = await sharedPool({ size: 2 }); // a fresh one after the last lease
  expect(c.size).toBe(2);
  c.dispose();
  function x1() {
    return hw.randomInput(TOY, 4);
  }
});
