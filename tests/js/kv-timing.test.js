// "Time generation" (issue 37): the protocol's timing ops in a real worker (refused with words, the
// worker working after), the pool's check of their replies, the plan and the numbers the figure and
// the words are made of, and a whole run in a Node worker (web/pool/worker-timer.js).
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { replyProblem, requestProblem, MAX_TIMED_REPEATS } from '../../web/pool/protocol.js';
import { workerSlotStats } from '../../web/pool/worker-slots.js';
import {
  DECODES_TIMED,
  FORWARD_REPEATS,
  GENERATION_TOKENS,
  decodeCapacity,
  decodeWork,
  forwardWork,
  generationPlan,
  generationRows,
  generationSentence,
  msText,
  rateText,
  ratioText,
} from '../../web/explorer/panels/kv/kv-timing-numbers.js';
import { generationFigure } from '../../web/explorer/panels/kv/kv-timing-figure.js';
import { GenerationTiming } from '../../web/explorer/panels/kv/kv-timing.js';
import { loadHeadwise } from '../../web/headwise.js';

describe('decodeTime and forwardTime in a real worker (web/pool/worker.js)', () => {
  let worker;
  const replies = [];
  let waiting = null;
  let nextId = 1;
  beforeAll(() => {
    worker = new Worker(new URL('../../web/pool/worker.js', import.meta.url), { workerData: { name: 'timing.0' } });
    worker.on('message', (m) => {
      replies.push(m);
      waiting?.();
    });
  });
  afterAll(() => worker.terminate());
  async function ask(fields) {
    const count = replies.length;
    const message = { id: nextId++, ...fields };
    worker.postMessage(message);
    while (replies.length === count) await new Promise((resolve) => (waiting = resolve));
    const reply = replies[count];
    expect(reply.id).toBe(message.id);
    return reply;
  }

  test.each([
    [
      'repeats 0',
      { op: 'forwardTime', layer: 1, x: new Float32Array(4), repeats: 0 },
      /repeats must be a whole number from 1 to 16/,
    ],
    ['repeats 17', { op: 'forwardTime', layer: 1, x: new Float32Array(4), repeats: 17 }, /repeats must be/],
    ['repeats 1.5', { op: 'forwardTime', layer: 1, x: new Float32Array(4), repeats: 1.5 }, /repeats must be/],
    ['no repeats', { op: 'forwardTime', layer: 1, x: new Float32Array(4) }, /repeats must be/],
    ['x as an array', { op: 'decodeTime', layer: 1, x: [1, 2] }, /x must be a Float32Array/],
    ['layer 0', { op: 'decodeTime', layer: 0, x: new Float32Array(4) }, /layer must be a positive/],
    [
      'an extra field',
      { op: 'decodeTime', layer: 1, x: new Float32Array(4), repeats: 2 },
      /unexpected field "repeats"/,
    ],
  ])('%s is refused with a reason before anything runs', async (_, fields, pattern) => {
    expect(requestProblem({ id: 1, ...fields })).toMatch(pattern);
    expect(await ask(fields)).toMatchObject({
      ok: false,
      error: { name: 'TypeError', message: expect.stringMatching(pattern) },
    });
  });

  test('positions decoded into the cache, each call timed; refusals in words; the worker keeps working', async () => {
    expect(await ask({ op: 'init' })).toMatchObject({ ok: true });
    const config = { batch: 1, tokens: 6, dModel: 8, heads: 2, causal: true, seed: 3 };
    expect(await ask({ op: 'create', layer: 1, config })).toMatchObject({ ok: true });
    const two = await ask({ op: 'decodeTime', layer: 1, x: new Float32Array(2 * 8).fill(0.5) });
    expect(two).toMatchObject({ ok: true, result: { length: 2 } });
    expect(two.result.ms).toHaveLength(2);
    expect(replyProblem(two, { id: two.id, op: 'decodeTime', expected: 2 })).toBe(null);
    // The next request goes on from the cache's end.
    const three = await ask({ op: 'decodeTime', layer: 1, x: new Float32Array(3 * 8).fill(-0.25) });
    expect(three.result.length).toBe(5);
    expect(three.result.ms.every((ms) => ms >= 0)).toBe(true);
    // Not a whole number of positions, none, or past the cache: refused in words.
    expect(await ask({ op: 'decodeTime', layer: 1, x: new Float32Array(12) })).toMatchObject({
      ok: false,
      error: { name: 'RangeError', message: /positions of batch x dModel = 8 values, got 12 values/ },
    });
    expect(await ask({ op: 'decodeTime', layer: 1, x: new Float32Array(0) })).toMatchObject({ ok: false });
    expect(await ask({ op: 'decodeTime', layer: 1, x: new Float32Array(2 * 8) })).toMatchObject({
      ok: false,
      error: { message: /full/ },
    });
    expect(await ask({ op: 'decodeTime', layer: 7, x: new Float32Array(8) })).toMatchObject({
      error: { message: /no layer 7/ },
    });
    const nan = await ask({ op: 'forwardTime', layer: 1, x: new Float32Array(48).fill(NaN), repeats: 1 });
    expect(nan).toMatchObject({ ok: false, error: { message: /NaN/ } });
    // Still working: forward timed 4 times.
    const timed = await ask({ op: 'forwardTime', layer: 1, x: new Float32Array(48).fill(0.1), repeats: 4 });
    expect(timed).toMatchObject({ ok: true });
    expect(timed.result.ms).toHaveLength(4);
    expect(replyProblem(timed, { id: timed.id, op: 'forwardTime', expected: 4 })).toBe(null);
    expect(await ask({ op: 'dispose', layer: 1 })).toMatchObject({ ok: true });
    expect((await ask({ op: 'stats' })).result.liveLayers).toBe(0);
  });
});

describe("the pool's check of a timing reply", () => {
  const ok = (result) => ({ id: 3, ok: true, result });
  test.each([
    ['decodeTime', { length: 2, ms: [0.5, 1] }, 2, null],
    ['decodeTime', { length: 2, ms: [0.5] }, 2, /decodeTime must answer/],
    ['decodeTime', { length: 2, ms: [0.5, -1] }, 2, /decodeTime must answer/],
    ['decodeTime', { length: 2, ms: [0.5, NaN] }, 2, /decodeTime must answer/],
    ['decodeTime', { length: -1, ms: [1] }, 1, /decodeTime must answer/],
    ['decodeTime', { length: 1, ms: [1], extra: 1 }, 1, /decodeTime must answer/],
    ['decodeTime', { length: 1, ms: '1' }, 1, /decodeTime must answer/],
    ['forwardTime', { ms: [3, 4, 5] }, 3, null],
    ['forwardTime', { ms: [3, 4] }, 3, /forwardTime must answer/],
    ['forwardTime', { ms: [3, Infinity, 5] }, 3, /forwardTime must answer/],
    ['forwardTime', { ms: [3], length: 1 }, 1, /forwardTime must answer/],
    ['forwardTime', null, 1, /forwardTime must answer/],
  ])('%s answering %j (expecting %i calls)', (op, result, expected, problem) => {
    const found = replyProblem(ok(result), { id: 3, op, expected });
    if (problem === null) expect(found).toBe(null);
    else expect(found).toMatch(problem);
  });
  test('MAX_TIMED_REPEATS bounds a request', () => {
    expect(MAX_TIMED_REPEATS).toBe(16);
  });
});

describe('the plan and the numbers', () => {
  test('the plan decodes every position once, in order, and times DECODES_TIMED at each T', () => {
    const plan = generationPlan();
    const decoded = plan.filter((s) => s.kind !== 'forward').flatMap((s) => [s.from, s.to]);
    // Contiguous: each request starts where the last one ended, from 0 to the capacity.
    expect(decoded[0]).toBe(0);
    for (let i = 1; i < decoded.length - 1; i += 2) expect(decoded[i + 1]).toBe(decoded[i]);
    expect(decoded.at(-1)).toBe(decodeCapacity());
    expect(decodeCapacity()).toBe(1024 + DECODES_TIMED);
    const timed = plan.filter((s) => s.kind === 'decode');
    expect(timed.map((s) => [s.T, s.from, s.to - s.from])).toEqual(GENERATION_TOKENS.map((T) => [T, T, DECODES_TIMED]));
    expect(plan.filter((s) => s.kind === 'forward').map((s) => s.T)).toEqual([...GENERATION_TOKENS]);
  });

  test('the work estimates are the multiply-adds counted by hand', () => {
    // Position 0 of width 2: 4 products of 2 x 2, and one key (scores and values: 2 x 1 x 2).
    expect(decodeWork(0, 1, 2)).toBe(16 + 4);
    expect(decodeWork(0, 2, 2)).toBe(16 + 4 + 16 + 8);
    expect(forwardWork(3, 2)).toBe(4 * 3 * 4 + 9 * 2);
  });

  // Made-up measurements with known medians: 2 ms and 100 ms at T 128, 4 ms and 600 ms at T 1024.
  const measured = [
    { T: 128, decodeMs: [2, 9, 1, 2, 2, 3, 1, 2, 2, 2, 2, 2, 5, 2, 2, 1], forwardMs: [100, 140, 90] },
    { T: 1024, decodeMs: [4, 4, 4, 4, 4, 4, 4, 4, 3, 5, 4, 4, 4, 4, 30, 4], forwardMs: [600, 590, 700] },
  ];
  const rows = generationRows(measured);

  test('rows are the medians, tokens a second and their ratio', () => {
    expect(rows).toEqual([
      { T: 128, cachedMs: 2, forwardMs: 100, cachedPerSecond: 500, forwardPerSecond: 10, ratio: 50 },
      { T: 1024, cachedMs: 4, forwardMs: 600, cachedPerSecond: 250, forwardPerSecond: 1000 / 600, ratio: 150 },
    ]);
    // An even count takes the mean of the middle two.
    expect(generationRows([{ T: 1, decodeMs: [1, 2, 3, 10], forwardMs: [5] }])[0].cachedMs).toBe(2.5);
  });

  test('the words say the numbers of the rows, with the caveat', () => {
    const text = generationSentence(rows, { cores: 2 });
    expect(text).toContain(
      'at T 1024 the next token takes 4 ms with the KV cache (250 tokens/s) and 600 ms without it, a forward ' +
        'pass over all 1024 tokens (1.67 tokens/s): 150x faster with the cache; at T 128, 50x.',
    );
    expect(text).toContain(`median of the next ${DECODES_TIMED}; the median of ${FORWARD_REPEATS} forward passes`);
    expect(text).toContain('Whatever else this machine runs (2 logical cores here) slows both sides');
    expect([msText(2.0734), msText(176.4), msText(1040.2)]).toEqual(['2.07', '176', '1040']);
    expect([rateText(482.3), rateText(5.678)]).toEqual(['482', '5.68']);
    expect([ratioText(84.4), ratioText(4.271)]).toEqual(['84x', '4.27x']);
  });

  test("the figure's bars are the rows: two per T, lengths in proportion to tokens a second, labelled", () => {
    const figure = generationFigure({ rows, maxWidth: 500 });
    expect(figure.bars.map((b) => [b.T, b.side, b.perSecond, b.ms])).toEqual([
      [128, 'cache', 500, 2],
      [128, 'forward', 10, 100],
      [1024, 'cache', 250, 4],
      [1024, 'forward', 1000 / 600, 600],
    ]);
    const [longest] = figure.bars.map((b) => b.width);
    figure.bars.forEach((b) => expect(b.width).toBeCloseTo(Math.max(2, (b.perSecond / 500) * longest), 9));
    const texts = figure.items.filter((it) => it.kind === 'text').map((it) => it.text);
    expect(texts).toContain('500 tokens/s, 2 ms');
    expect(texts).toContain('1.67 tokens/s, 600 ms (150x)');
    expect(texts).toContain('T 1024, with the cache');
    expect(figure.width).toBeGreaterThanOrEqual(500);
  });
});

describe('a whole run in a Node worker (worker-timer.js)', () => {
  let hw;
  beforeAll(async () => {
    hw = await loadHeadwise();
  });

  test('short T: every T timed in the worker, the rows its medians; a second start does nothing', async () => {
    const changes = [];
    const run = new GenerationTiming(hw, { tokens: [16, 48], onChange: () => changes.push(run.state) });
    const started = run.start();
    const again = run.start(); // while running: nothing
    await Promise.all([started, again]);
    expect(run.state).toBe('done');
    expect(run.error).toBe(null);
    expect(run.done).toBe(run.plan.length);
    expect(run.measured.map((m) => [m.T, m.decodeMs.length, m.forwardMs.length])).toEqual([
      [16, DECODES_TIMED, FORWARD_REPEATS],
      [48, DECODES_TIMED, FORWARD_REPEATS],
    ]);
    expect(run.rows).toEqual(generationRows(run.measured));
    expect(changes[0]).toBe('starting');
    expect(changes).toContain('running');
    // The page's thread did none of the layers' work: the module here holds no layer.
    expect(hw.liveLayers()).toBe(0);
    // Its worker ended with it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await workerSlotStats()).workers).toBe(0);
  });

  test('no worker here: nothing is timed on this thread, and the run says why', async () => {
    const run = new GenerationTiming(hw, { tokens: [16], kinds: [] });
    await run.start();
    expect(run.state).toBe('failed');
    expect(run.error).toMatch(/no worker started here \(no Worker here\): the timing is not run on the page's thread/);
    expect(run.done).toBe(0);
    expect((await workerSlotStats()).workers).toBe(0);
  });

  test('disposed while running: it stops without an error and frees its worker', async () => {
    const run = new GenerationTiming(hw, { tokens: [512, 1024] });
    const finished = run.start();
    while (run.done < 1 && run.state !== 'failed') await new Promise((resolve) => setTimeout(resolve, 5));
    run.dispose();
    await finished;
    expect(run.state).not.toBe('done');
    expect(run.error).toBe(null);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await workerSlotStats()).workers).toBe(0);
  });
});
