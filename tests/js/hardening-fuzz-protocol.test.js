// Property test of the pool worker's side (web/pool/serve.js) through its message handler, as a
// hostile page or a confused pool would talk to it: random requests (every op, fields right, of
// the wrong kind, missing or extra; ids good and bad; layers and trainers that exist or not; sizes
// that fit or not; things that are not requests at all). Every message gets exactly one reply,
// with the request's id (null when it had none); a refusal carries a reason (an error name the pool
// knows and a message); an answer passes the pool's own reply check (protocol.js replyProblem);
// nothing takes long; the worker keeps serving (a sentinel layer answers bit for bit as at the
// start); the module never stops; after disposing what the fuzz made, heap use is back to baseline.
//   HEADWISE_FUZZ_SECONDS=60 HEADWISE_FUZZ_SEED=n npx vitest run tests/js/hardening-fuzz-protocol.test.js
import { expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { MAX_IDS, REQUESTS, replyProblem } from '../../web/pool/protocol.js';
import { serve } from '../../web/pool/serve.js';
import { mulberry32 } from '../../web/train-task.js';

const SECONDS = Number(process.env.HEADWISE_FUZZ_SECONDS ?? 3);
const SEED = Number(process.env.HEADWISE_FUZZ_SEED ?? Date.now() % 2 ** 32);
// The fuzz's layers and trainers are small (a reply takes 0-200 ms here); one that takes this
// long is a hang.
const SLOW_MS = 20_000;
const SENTINEL = 2 ** 40; // a layer id the fuzz never picks

const random = mulberry32(SEED);
const int = (n) => Math.floor(random() * n);
const pick = (items) => items[int(items.length)];
const chance = (p) => random() < p;

// What structured cloning can carry to a worker, of every wrong kind.
const HOSTILE = () =>
  pick([
    undefined,
    null,
    0,
    -1,
    1.5,
    NaN,
    Infinity,
    2 ** 53,
    '1',
    'x'.repeat(int(300)),
    true,
    10n,
    [],
    [1, 2],
    {},
    { a: 1 },
    new Map(),
    new Date(0),
    new Float32Array(3),
    new Int32Array(2),
    new Float64Array(2),
    new ArrayBuffer(8),
    Object.create(null),
  ]);

const id = () => (chance(0.95) ? 1 + int(1e6) : HOSTILE());
// A layer or trainer id: mostly one the worker holds (held: a Map), else 1-4 or hostile.
const handle = (held) => (held.size > 0 && chance(0.6) ? pick([...held.keys()]) : chance(0.9) ? 1 + int(4) : HOSTILE());
const floats = (n) => {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i += 1) a[i] = random() - 0.5;
  if (n > 0 && chance(0.1)) a[int(n)] = pick([NaN, Infinity, 3e38, 2048]);
  return a;
};

function config() {
  const heads = pick([1, 2, 3]);
  const c = { batch: 1 + int(2), tokens: 1 + int(8), dModel: heads * (1 + int(4)), heads };
  if (chance(0.3)) c.causal = chance(0.5);
  if (chance(0.3)) c.bias = chance(0.5);
  if (chance(0.1)) c.memoryBudget = pick([1, 1e3, 1e6, 2 ** 64]);
  if (chance(0.1)) c[pick(['batch', 'tokens', 'dModel', 'heads', 'headDim'])] = HOSTILE();
  if (chance(0.05)) c[pick(['width', '__proto__', 'constructor'])] = 1;
  return c;
}

function trainerOptions() {
  const o = {};
  if (chance(0.7)) o.task = pick(['verb-noun', 'verb', 'induction', 'nope']);
  if (chance(0.5)) o.layers = 1 + int(2);
  if (chance(0.5)) o.heads = 1 + int(2);
  if (chance(0.5)) o.dModel = pick([4, 8, 16]);
  o.evalSize = 1 + int(16);
  o.batch = 1 + int(4);
  if (chance(0.3)) o.seed = int(2 ** 32);
  if (chance(0.05)) o[pick(['bogus', 'constructor', 'x'.repeat(300)])] = 1;
  if (chance(0.05)) o.task = { nested: 1 };
  return o;
}

// What the fuzz knows the worker holds (from the replies), so that many requests fit: per layer
// id its tensors' sizes, per trainer id its tokens, vocabulary, batch and parameter count.
const layersHeld = new Map();
const trainersHeld = new Map();
const size = (shape) => shape.reduce((a, b) => a * b, 1);
// The layer's learned tensors, from the core's tensor table once the module is loaded (the protocol
// keeps no list of its own).
let weightNames = [];

// A value for each field: mostly of the right kind (sizes right or wrong), sometimes hostile.
const FIELDS = {
  wasmBinary: () => (chance(0.9) ? undefined : pick([new ArrayBuffer(16), new Uint8Array(4), HOSTILE()])),
  wasmModule: () => (chance(0.95) ? undefined : HOSTILE()),
  layer: () => handle(layersHeld),
  trainer: () => handle(trainersHeld),
  config,
  weights: (m) => {
    const w = {};
    const held = layersHeld.get(m.layer);
    for (const name of weightNames) {
      if (!chance(0.5)) continue;
      w[name] = floats(held && chance(0.8) ? held[name] : pick([1, 4, 9, 16, 36, 64, int(100)]));
    }
    if (chance(0.05)) w[pick(['wx', 'constructor', '__proto__'])] = floats(1);
    if (chance(0.05)) w.wq = HOSTILE();
    return w;
  },
  x: (m) => {
    const held = layersHeld.get(m.layer);
    return floats(held && chance(0.8) ? held.input : pick([0, 1, 4, 8, 16, 24, 48, 96, int(200)]));
  },
  options: trainerOptions,
  steps: () => (chance(0.9) ? 1 + int(3) : pick([0, 1000, 1001, 1.5, -1, HOSTILE()])),
  repeats: () => (chance(0.9) ? 1 + int(3) : pick([0, 17, 1.5, -1, HOSTILE()])),
  ids: (m) => {
    const held = trainersHeld.get(m.trainer);
    const fits = held && chance(0.8);
    const n = fits ? held.tokens : chance(0.9) ? 1 + int(40) : pick([0, MAX_IDS, MAX_IDS + 1]);
    const ids = new Int32Array(n);
    for (let i = 0; i < n; i += 1) {
      ids[i] = chance(0.98) ? int(fits ? held.vocabulary : 24) : pick([-1, 2 ** 31 - 1, 64, 65]);
    }
    return chance(0.95) ? ids : HOSTILE();
  },
  parameters: (m) => {
    const held = trainersHeld.get(m.trainer);
    return floats(held && chance(0.8) ? held.parameterCount : pick([0, 1, 100, 1000, int(5000)]));
  },
  tensors: (m) => {
    const held = trainersHeld.get(m.trainer);
    const t = {};
    for (const { name, size: n } of held?.tensors ?? [{ name: 'tokenEmbedding', size: 10 }]) {
      if (chance(0.8)) t[name] = floats(chance(0.9) ? n : int(2 * n + 1));
    }
    if (chance(0.05)) t[pick(['bogus', 'constructor', 'format', 'x'.repeat(300)])] = floats(3);
    if (chance(0.05)) t[pick(Object.keys(t).concat('a'))] = HOSTILE();
    return t;
  },
  zeroHeads: () => {
    if (chance(0.5)) return undefined;
    const n = chance(0.9) ? 2 * int(3) : pick([1, 3, MAX_IDS + 2]);
    const pairs = new Int32Array(n);
    for (let i = 0; i < n; i += 1) pairs[i] = chance(0.9) ? int(3) : pick([-1, 2 ** 31 - 1]);
    return chance(0.95) ? pairs : HOSTILE();
  },
  batchState: () => (chance(0.9) ? int(2 ** 32) : pick([2 ** 32, -1, 1.5, HOSTILE()])),
  from: () => (chance(0.9) ? int(3) : HOSTILE()),
  to: (m) => (chance(0.9) ? (Number.isSafeInteger(m.from) ? m.from : 0) + 1 + int(3) : HOSTILE()),
};
const OPS = Object.keys(REQUESTS);

function message() {
  if (chance(0.03)) return HOSTILE();
  const op = chance(0.97) ? pick(OPS) : pick(['', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 42, null]);
  const m = { op };
  if (chance(0.98)) m.id = id();
  for (const field of Object.hasOwn(REQUESTS, op) ? REQUESTS[op] : []) {
    if (chance(0.03)) continue; // missing
    m[field] = FIELDS[field](m);
  }
  if (chance(0.03)) m[pick(['extra', 'layer', 'trainer', 'x', 'result', '__proto__'])] = HOSTILE();
  return m;
}

// serve()'s port, in this thread: requests go in through the listener, replies come out in order.
function worker(load) {
  let listener = null;
  const replies = [];
  let wake = null;
  serve(
    {
      post(reply, transfer = []) {
        expect(Array.isArray(transfer)).toBe(true);
        replies.push(structuredClone(reply));
        wake?.();
      },
      listen(handler) {
        listener = handler;
      },
    },
    load,
  );
  // Sends one message and waits for its one reply.
  return async function ask(m) {
    const before = replies.length;
    listener(m);
    const t0 = performance.now();
    while (replies.length === before) {
      if (performance.now() - t0 > SLOW_MS) throw new Error(`no reply in ${SLOW_MS} ms to ${describeMessage(m)}`);
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 0)); // a second reply would show here
    expect(replies.length, `one reply to ${describeMessage(m)}`).toBe(before + 1);
    return { reply: replies.at(-1), ms: performance.now() - t0 };
  };
}

function text(v) {
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.length})`;
  try {
    return typeof v === 'string' ? JSON.stringify(v.slice(0, 30)) : String(v).slice(0, 30);
  } catch {
    return typeof v; // an object without a prototype
  }
}
const describeMessage = (m) =>
  m !== null && typeof m === 'object' && !Array.isArray(m)
    ? `{ ${Object.entries(m)
        .map(([k, v]) => `${k}: ${text(v)}`)
        .join(', ')} }`
    : text(m);

const isSafeId = (v) => Number.isSafeInteger(v) && v > 0;

// After an answered request: what the worker now holds, measured on twins made here.
function learn(m, hw) {
  if (m.op === 'create') {
    const twin = hw.createAttention(m.config);
    const { input, wq, wOut, bq, bOut } = twin.shapes;
    const q = size(wq);
    layersHeld.set(m.layer, {
      input: size(input),
      wq: q,
      wk: q,
      wv: q,
      wOut: size(wOut),
      bq: size(bq),
      bk: size(bq),
      bv: size(bq),
      bOut: size(bOut),
    });
    twin.dispose();
  } else if (m.op === 'dispose') layersHeld.delete(m.layer);
  else if (m.op === 'trainerCreate') {
    const twin = hw.createTrainer(m.options);
    const { tokens } = twin.task;
    const tensors = twin.parameters.map(({ name, shape }) => ({ name, size: size(shape) }));
    const vocabulary = twin.task.words.length;
    trainersHeld.set(m.trainer, { tokens, vocabulary, parameterCount: twin.parameterCount, tensors });
    twin.dispose();
  } else if (m.op === 'trainerDispose') trainersHeld.delete(m.trainer);
}

test(
  `fuzz: random worker requests for ${SECONDS} s (seed ${SEED})`,
  async () => {
    let hw = null;
    const ask = worker(async (given) => {
      const fresh = await loadHeadwise(given.wasmModule || given.wasmBinary ? given : {});
      hw ??= fresh;
      return fresh;
    });
    expect((await ask({ id: 1, op: 'init' })).reply.ok).toBe(true);
    weightNames = hw.tensorTable().tensors.flatMap((t) => (['weight', 'bias'].includes(t.role) ? [t.name] : []));
    expect(weightNames).toContain('wOut');
    // The sentinel layer: the same forward before, during and after.
    const sentinel = { batch: 1, tokens: 4, dModel: 8, heads: 2 };
    const x = Float32Array.from({ length: 32 }, (_, i) => Math.sin(i));
    expect((await ask({ id: 2, op: 'create', layer: SENTINEL, config: sentinel })).reply.ok).toBe(true);
    const sentinelForward = async () => {
      const { reply } = await ask({ id: 3, op: 'forward', layer: SENTINEL, x: x.slice() });
      expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
      return reply.result;
    };
    const expected = await sentinelForward();
    // First use of a trainer allocates what the module keeps.
    await ask({ id: 4, op: 'trainerCreate', trainer: 1, options: { evalSize: 1 } });
    await ask({ id: 5, op: 'trainerDispose', trainer: 1 });
    const baseline = hw.memoryStats();

    const counts = { messages: 0, answered: 0, refused: 0, slowest: 0 };
    const ops = {};
    const started = performance.now();
    while (performance.now() - started < SECONDS * 1000) {
      const m = message();
      counts.messages += 1;
      const context = `seed ${SEED}, message ${counts.messages}: ${describeMessage(m)}`;
      const { reply, ms } = await ask(m);
      counts.slowest = Math.max(counts.slowest, Math.round(ms));
      const requestId = m !== null && typeof m === 'object' && isSafeId(m.id) ? m.id : null;
      expect(reply.id, context).toBe(requestId);
      const op = m?.op;
      const tally = (ops[typeof op === 'string' && Object.hasOwn(REQUESTS, op) ? op : '(not an op)'] ??= {
        ok: 0,
        refused: 0,
      });
      if (reply.ok) {
        learn(m, hw);
        counts.answered += 1;
        tally.ok += 1;
        // The pool's own check of an answer (a forward's length as the reply says: the pool knows it).
        const expectedLength = op === 'forward' ? reply.result?.length : reply.result?.gradient?.length;
        expect(replyProblem(reply, { id: requestId, op, expected: expectedLength }), context).toBe(null);
      } else {
        counts.refused += 1;
        tally.refused += 1;
        expect(replyProblem(reply, { id: requestId, op: 'stats' }), `${context}: ${JSON.stringify(reply)}`).toBe(null);
        expect(reply.error.message.length, context).toBeGreaterThan(0);
        expect(reply.error.message, context).not.toMatch(/^\d+$|RuntimeError|unreachable|memory access/);
      }
      expect(hw.stoppedReason, context).toBe(null);
      if (counts.messages % 50 === 0) expect(await sentinelForward(), context).toEqual(expected);
    }
    expect(await sentinelForward()).toEqual(expected);
    // Everything the fuzz made, disposed through the protocol: the heap is back where it was.
    for (let n = 1; n <= 4; n += 1) {
      await ask({ id: 6, op: 'dispose', layer: n });
      await ask({ id: 7, op: 'trainerDispose', trainer: n });
    }
    const { reply: stats } = await ask({ id: 8, op: 'stats' });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `protocol fuzz: ${counts.messages} messages in ${seconds.toFixed(1)} s, seed ${SEED}: ` +
        `${JSON.stringify(counts)}; ` +
        `by op ${JSON.stringify(ops)}`,
    );
    expect(stats.result.liveLayers).toBe(1);
    expect(stats.result.liveTrainers).toBe(0);
    expect(hw.memoryStats().heapInUseBytes).toBe(baseline.heapInUseBytes);
    expect(hw.memoryStats().stackPointer).toBe(baseline.stackPointer);
    expect(counts.answered).toBeGreaterThan(0);
    expect(counts.refused).toBeGreaterThan(0);
  },
  (SECONDS + 120) * 1000,
);
