// The pool's messages: a real worker refuses every malformed request with a reason and keeps
// working, and the pool's side refuses every reply it did not ask for (and gives up the worker).
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Channel, WorkerFailure } from '../../web/pool/channel.js';

describe('a real worker (web/pool/worker.js) and hostile requests', () => {
  let worker;
  const replies = [];
  let waiting = null;
  beforeAll(() => {
    worker = new Worker(new URL('../../web/pool/worker.js', import.meta.url), { workerData: { name: 'test.0' } });
    worker.on('message', (m) => {
      replies.push(m);
      waiting?.();
    });
  });
  afterAll(() => worker.terminate());

  // Posts and waits for the next reply.
  async function ask(message, transfer) {
    const count = replies.length;
    worker.postMessage(message, transfer);
    while (replies.length === count) await new Promise((resolve) => (waiting = resolve));
    return replies[count];
  }
  const refusal = (id, pattern) => ({
    id,
    ok: false,
    error: { name: 'TypeError', message: expect.stringMatching(pattern) },
  });

  const HOSTILE = [
    ['a number', 42, null, /must be a plain object/],
    ['null', null, null, /must be a plain object/],
    ['an array', [1, 2], null, /must be a plain object/],
    ['a Map', new Map([['id', 1]]), null, /must be a plain object/],
    ['no id', { op: 'stats' }, null, /needs an id/],
    ['a negative id', { id: -1, op: 'stats' }, null, /needs an id/],
    ['an id of 2^60', { id: 2 ** 60, op: 'stats' }, null, /needs an id/],
    ['an unknown op', { id: 3, op: 'eval' }, 3, /unknown op "eval"/],
    ['op __proto__', { id: 4, op: '__proto__' }, 4, /unknown op "__proto__"/],
    ['op toString', { id: 5, op: 'toString' }, 5, /unknown op "toString"/],
    ['an op that is not a string', { id: 6, op: 7 }, 6, /unknown op number/],
    ['an extra field', { id: 7, op: 'stats', code: 'x' }, 7, /unexpected field "code"/],
    ['x as a string', { id: 8, op: 'forward', layer: 1, x: 'abc' }, 8, /x must be a Float32Array/],
    ['x as a Float64Array', { id: 9, op: 'forward', layer: 1, x: new Float64Array(3) }, 9, /x must be a Float32Array/],
    ['layer 0', { id: 10, op: 'forward', layer: 0, x: new Float32Array(3) }, 10, /layer must be a positive/],
    ['a config field of the wrong kind', { id: 11, op: 'create', layer: 1, config: { heads: {} } }, 11, /"heads"/],
    ['a config field named constructor', { id: 12, op: 'create', layer: 1, config: { constructor: 1 } }, 12, /refused/],
    ['weights named constructor', { id: 13, op: 'weights', layer: 1, weights: { constructor: 1 } }, 13, /refused/],
    ['wasmBinary that is not an ArrayBuffer', { id: 14, op: 'init', wasmBinary: 'AGFzbQ' }, 14, /wasmBinary/],
    ['steps 0', { id: 16, op: 'trainerStep', trainer: 1, steps: 0 }, 16, /steps must be a whole number from 1/],
    ['steps 1001', { id: 17, op: 'trainerStep', trainer: 1, steps: 1001 }, 17, /steps must be a whole number/],
    ['ids as an array', { id: 18, op: 'trainerAttention', trainer: 1, ids: [1, 2] }, 18, /ids must be an Int32Array/],
    ['an option that is an object', { id: 19, op: 'trainerCreate', trainer: 1, options: { seed: {} } }, 19, /"seed"/],
    [
      'a batch state of 2^32',
      {
        id: 20,
        op: 'trainerGradients',
        trainer: 1,
        parameters: new Float32Array(1),
        batchState: 2 ** 32,
        from: 0,
        to: 1,
      },
      20,
      /batchState must be a whole number below 2\^32/,
    ],
    [
      'parameters as an array',
      { id: 21, op: 'trainerSetParameters', trainer: 1, parameters: [1, 2] },
      21,
      /parameters must be a Float32Array/,
    ],
    [
      'a gradients request without its slice',
      { id: 22, op: 'trainerGradients', trainer: 1, parameters: new Float32Array(1), batchState: 0, from: 0 },
      22,
      /to must be a whole number/,
    ],
    ['steps NaN', { id: 23, op: 'trainerStep', trainer: 1, steps: NaN }, 23, /steps must be a whole number/],
    ['steps 1.5', { id: 24, op: 'trainerStep', trainer: 1, steps: 1.5 }, 24, /steps must be a whole number/],
    ['steps as a string', { id: 25, op: 'trainerStep', trainer: 1, steps: '3' }, 25, /steps must be a whole/],
    ['ids of 4097', { id: 26, op: 'trainerAttention', trainer: 1, ids: new Int32Array(4097) }, 26, /1 to 4096 ids/],
    ['no ids', { id: 27, op: 'trainerAttention', trainer: 1, ids: new Int32Array(0) }, 27, /got 0/],
    ['ids as a Uint32Array', { id: 28, op: 'trainerAttention', trainer: 1, ids: new Uint32Array(3) }, 28, /Int32/],
    [
      'an option named __proto__',
      { id: 29, op: 'trainerCreate', trainer: 1, options: JSON.parse('{"__proto__": 1}') },
      29,
      /field "__proto__" refused/,
    ],
    [
      'an option named constructor',
      { id: 30, op: 'trainerCreate', trainer: 1, options: { constructor: 'x' } },
      30,
      /field "constructor" refused/,
    ],
    [
      'options of 65 fields',
      {
        id: 31,
        op: 'trainerCreate',
        trainer: 1,
        options: Object.fromEntries([...Array(65)].map((_, i) => [`k${i}`, 1])),
      },
      31,
      /65 fields, more than 64/,
    ],
    [
      'an option text of 10^6 characters',
      { id: 32, op: 'trainerCreate', trainer: 1, options: { task: 'x'.repeat(1e6) } },
      32,
      /1000000 characters, more than 200/,
    ],
    ['a trainer id of NaN', { id: 33, op: 'trainerMeasure', trainer: NaN }, 33, /trainer must be a positive/],
    [
      'a trainerStep with an extra field',
      { id: 34, op: 'trainerStep', trainer: 1, steps: 1, code: 'x' },
      34,
      /unexpected field "code"/,
    ],
    [
      'wasmModule that is not a WebAssembly.Module',
      { id: 15, op: 'init', wasmModule: new ArrayBuffer(8) },
      15,
      /wasmModule/,
    ],
  ];
  test.each(HOSTILE)('%s is refused with a reason', async (_, message, id, pattern) => {
    expect(await ask(message)).toEqual(refusal(id, pattern));
  });

  test('before init: a clear error; after: sizes and values checked by the public API', async () => {
    expect(await ask({ id: 20, op: 'stats' })).toMatchObject({ id: 20, ok: false, error: { message: /init/ } });
    expect(await ask({ id: 21, op: 'init' })).toEqual({ id: 21, ok: true, result: { simdArch: 'sse4.2' } });
    const config = { batch: 1, tokens: 2, dModel: 2, heads: 1, headDim: 2, causal: true, bias: false };
    expect(await ask({ id: 22, op: 'create', layer: 1, config: { ...config, tokens: 0 } })).toMatchObject({
      ok: false,
      error: { name: 'HeadwiseError', message: /tokens/ },
    });
    // Option and weight names are the core's tables' to judge, in the worker's module.
    expect(await ask({ id: 31, op: 'create', layer: 2, config: { ...config, evil: 1 } })).toMatchObject({
      ok: false,
      error: { name: 'TypeError', message: /unknown configuration option "evil"/ },
    });
    expect(await ask({ id: 32, op: 'create', layer: 2, config: { ...config, heads: '1' } })).toMatchObject({
      ok: false,
      error: { name: 'TypeError', message: /heads must be a number/ },
    });
    expect(await ask({ id: 23, op: 'create', layer: 1, config })).toEqual({ id: 23, ok: true, result: null });
    expect(await ask({ id: 33, op: 'weights', layer: 1, weights: { evil: new Float32Array(1) } })).toMatchObject({
      ok: false,
      error: { name: 'TypeError', message: /unknown weight "evil"/ },
    });
    expect(await ask({ id: 24, op: 'create', layer: 1, config })).toMatchObject({ error: { message: /exists/ } });
    const wrong = await ask({ id: 25, op: 'weights', layer: 1, weights: { wq: new Float32Array(3) } });
    expect(wrong).toMatchObject({ ok: false, error: { name: 'RangeError', message: /wq must have 4 values/ } });
    const nan = await ask({ id: 26, op: 'forward', layer: 1, x: new Float32Array([1, NaN, 0, 0]) });
    expect(nan).toMatchObject({ ok: false, error: { name: 'RangeError', message: /x\[1\] is NaN/ } });
    expect(await ask({ id: 27, op: 'forward', layer: 9, x: new Float32Array(4) })).toMatchObject({
      error: { message: /no layer 9/ },
    });
    // Still working: a real forward, then the layer freed.
    const y = await ask({ id: 28, op: 'forward', layer: 1, x: new Float32Array([1, 0, 0, 1]) });
    expect(y.ok).toBe(true);
    expect(y.result).toBeInstanceOf(Float32Array);
    expect(y.result.length).toBe(4);
    expect(await ask({ id: 29, op: 'dispose', layer: 1 })).toEqual({ id: 29, ok: true, result: null });
    expect((await ask({ id: 30, op: 'stats' })).result.liveLayers).toBe(0);
  });

  test('a trainer in the worker: created by the public API, steps, measures, attention, disposed', async () => {
    expect(await ask({ id: 40, op: 'trainerCreate', trainer: 1, options: { heads: 3 } })).toMatchObject({
      ok: false,
      error: { message: /heads/ },
    });
    // Its sizes come back: the caller bounds its requests and checks their replies with them; and
    // its options, task and parameters (the trainer contract's members).
    const created = await ask({ id: 41, op: 'trainerCreate', trainer: 1, options: { heads: 2, seed: 2 } });
    expect(created).toMatchObject({
      id: 41,
      ok: true,
      result: { stepMultiplyAdds: 3219456, layers: 1, heads: 2, tokens: 12, vocabulary: 21, evalSize: 2048, batch: 32 },
    });
    expect(created.result.maxStepsPerCall).toBe(Math.floor(2e9 / 3219456));
    expect(created.result.options).toMatchObject({ heads: 2, seed: 2, evalSize: 2048 });
    expect(created.result.task).toMatchObject({ name: 'verb-noun', tokens: 12, readout: 'last' });
    expect(created.result.parameters[0]).toEqual({ name: expect.any(String), shape: expect.any(Array) });
    const stepped = await ask({ id: 42, op: 'trainerStep', trainer: 1, steps: 3 });
    expect(stepped).toMatchObject({ ok: true, result: { step: 3 } });
    expect(stepped.result.loss).toBeGreaterThan(0);
    const measured = await ask({ id: 43, op: 'trainerMeasure', trainer: 1 });
    expect(measured.result.step).toBe(3);
    expect(measured.result.heldOut.accuracy).toBeGreaterThanOrEqual(0);
    expect(measured.result.roles[0].map((h) => typeof h.role)).toEqual(['string', 'string']);
    const ids = Int32Array.from([0, 8, 16, 1, 9, 17, 2, 10, 18, 3, 11]);
    const maps = await ask({ id: 44, op: 'trainerAttention', trainer: 1, ids });
    expect(maps.result).toHaveLength(1);
    expect(maps.result[0]).toHaveLength(2);
    expect(maps.result[0][0]).toBeInstanceOf(Float32Array);
    expect(await ask({ id: 45, op: 'trainerStep', trainer: 2, steps: 1 })).toMatchObject({
      error: { message: /no trainer 2/ },
    });
    // The data-parallel slice: a wrong slice is refused; a right one answers the gradient.
    const { loadHeadwise } = await import('../../web/headwise.js');
    const local = (await loadHeadwise()).createTrainer({ heads: 2, seed: 2 });
    const parameters = local.parameterBuffer();
    local.dispose();
    expect(
      await ask({ id: 48, op: 'trainerGradients', trainer: 1, parameters, batchState: 7, from: 3, to: 3 }),
    ).toMatchObject({ ok: false, error: { name: 'RangeError', message: /0 <= from < to/ } });
    const slice = await ask({ id: 49, op: 'trainerGradients', trainer: 1, parameters, batchState: 7, from: 0, to: 4 });
    expect(slice.result.gradient).toBeInstanceOf(Float32Array);
    expect(slice.result.gradient.length).toBe(parameters.length);
    expect(slice.result.counted).toBe(4);
    expect(slice.result.batchState).not.toBe(7);
    // Within the work limit: steps x the trainer's multiply-adds (3.2e6 here) of at most 2e10.
    const big = { task: 'induction', layers: 2, heads: 4, dModel: 64, mlpWidth: 0, batch: 32, evalSize: 8 };
    expect(await ask({ id: 50, op: 'trainerCreate', trainer: 3, options: big })).toMatchObject({ ok: true });
    expect(await ask({ id: 51, op: 'trainerStep', trainer: 3, steps: 1000 })).toMatchObject({
      ok: false,
      error: { name: 'RangeError', message: /steps 1000 is more work than one request may ask: at most 61/ },
    });
    expect(await ask({ id: 52, op: 'trainerDispose', trainer: 3 })).toMatchObject({ ok: true });
    expect(await ask({ id: 46, op: 'trainerDispose', trainer: 1 })).toEqual({ id: 46, ok: true, result: null });
    expect(await ask({ id: 47, op: 'trainerMeasure', trainer: 1 })).toMatchObject({
      error: { message: /no trainer 1/ },
    });
  });

  test('hostile trainer requests: clear errors, the worker keeps serving, its heap back to where it was', async () => {
    const heap = async (id) => (await ask({ id, op: 'stats' })).result.heapInUseBytes;
    const before = await heap(60);
    const options = { heads: 2, seed: 2, evalSize: 8 };
    expect(await ask({ id: 61, op: 'trainerCreate', trainer: 5, options })).toMatchObject({ ok: true });
    const HOSTILE_TRAINER = [
      [{ op: 'trainerCreate', trainer: 6, options: { heads: 2, evil: 1 } }, /evil/],
      [{ op: 'trainerCreate', trainer: 6, options: { heads: 2, dModel: 1e9 } }, /dModel|budget|memory/],
      [{ op: 'trainerCreate', trainer: 5, options }, /exists already/],
      [{ op: 'trainerAttention', trainer: 5, ids: Int32Array.from([0, 1, 2]) }, /must be 12 tokens/],
      [{ op: 'trainerAttention', trainer: 5, ids: new Int32Array(12).fill(999) }, /token id between 0 and 20/],
      [{ op: 'trainerAttention', trainer: 5, ids: new Int32Array(12).fill(-5) }, /token id between 0 and 20/],
      [{ op: 'trainerStep', trainer: 7, steps: 1 }, /no trainer 7/],
    ];
    let id = 62;
    for (const [message, pattern] of HOSTILE_TRAINER) {
      const reply = await ask({ id, ...message });
      expect(reply, JSON.stringify(message).slice(0, 80)).toMatchObject({ id, ok: false, error: { message: pattern } });
      id += 1;
    }
    expect(await ask({ id: 80, op: 'trainerStep', trainer: 5, steps: 2 })).toMatchObject({
      ok: true,
      result: { step: 2 },
    });
    expect(await ask({ id: 81, op: 'trainerDispose', trainer: 5 })).toMatchObject({ ok: true });
    expect(await heap(82)).toBe(before);
  });
});

describe("the pool's side refuses replies it did not ask for", () => {
  function channel() {
    const endpoint = { posted: [], terminated: 0, busy() {} };
    endpoint.post = (m) => endpoint.posted.push(m);
    endpoint.terminate = () => (endpoint.terminated += 1);
    return { endpoint, channel: new Channel(endpoint, 'worker 0.0') };
  }
  const BAD = [
    ['a reply to no request', (id) => ({ id: id + 1, ok: true, result: null }), /a reply to no request/],
    ['a string', () => 'hello', /must be a plain object/],
    ['an extra field', (id) => ({ id, ok: true, result: null, eval: 1 }), /unexpected field/],
    ['ok missing', (id) => ({ id, result: null }), /needs ok/],
    ['a result of the wrong length', (id) => ({ id, ok: true, result: new Float32Array(5) }), /of 4 values/],
    ['a result of the wrong kind', (id) => ({ id, ok: true, result: [0, 0, 0, 0] }), /Float32Array/],
    ['an error of an unknown class', (id) => ({ id, ok: false, error: { name: 'EvalError', message: 'x' } }), /error/],
  ];
  test.each(BAD)('%s: the worker is given up, the request fails with the reason', async (_, reply, pattern) => {
    const { endpoint, channel: c } = channel();
    const pending = c.request('forward', { layer: 1, x: new Float32Array(4) }, { timeoutMs: 5000, expectedLength: 4 });
    endpoint.onMessage(reply(endpoint.posted[0].id));
    await expect(pending).rejects.toThrow(WorkerFailure);
    await expect(pending).rejects.toThrow(pattern);
    expect(c.broken).toMatch(/^worker 0\.0 sent an invalid message/);
    expect(endpoint.terminated).toBe(1);
    await expect(c.request('stats', {}, { timeoutMs: 10 })).rejects.toThrow(/invalid message/);
  });

  test("a worker's own error reply rejects with its class and keeps the channel", async () => {
    const { endpoint, channel: c } = channel();
    const pending = c.request('stats', {}, { timeoutMs: 5000 });
    endpoint.onMessage({ id: endpoint.posted[0].id, ok: false, error: { name: 'RangeError', message: 'too big' } });
    await expect(pending).rejects.toThrow(RangeError);
    await expect(pending).rejects.toThrow('worker 0.0: too big');
    expect(c.broken).toBeNull();
  });
});
