// Property test of loadCheckpoint: the shipped checkpoints (web/checkpoints/*.json) mutated at
// random (fields removed or replaced by hostile values, options changed, the parameter count moved,
// the base64 text cut, stretched, corrupted or re-encoded with non-finite or huge weights, the
// metadata given functions, symbols, cycles and deep nesting, the JSON text's bytes changed). Every
// load either gives a trainer (disposed here) or a clear refusal (TypeError, RangeError,
// HeadwiseError with a message); none takes long; the module never stops; heap use, the stack
// pointer and the live trainers return to their baseline.
//   HEADWISE_FUZZ_SECONDS=60 HEADWISE_FUZZ_SEED=n npx vitest run tests/js/hardening-fuzz-checkpoints.test.js
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { CHECKPOINT_NAMES, HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import { mulberry32 } from '../../web/train-task.js';

const SECONDS = Number(process.env.HEADWISE_FUZZ_SECONDS ?? 3);
const SEED = Number(process.env.HEADWISE_FUZZ_SEED ?? Date.now() % 2 ** 32);
// One load of a shipped checkpoint takes 50-500 ms here (3 s at load 23); a load or a refusal that
// takes this long is a hang.
const SLOW_MS = 15_000;

const random = mulberry32(SEED);
const int = (n) => Math.floor(random() * n);
const pick = (items) => items[int(items.length)];
const chance = (p) => random() < p;

const TEXTS = Object.fromEntries(
  CHECKPOINT_NAMES.map((name) => [
    name,
    readFileSync(new URL(`../../web/checkpoints/${name}.json`, import.meta.url), 'utf8'),
  ]),
);

function deep(levels) {
  let value = {};
  for (let i = 0; i < levels; i += 1) value = { d: value };
  return value;
}

function hostile() {
  const cycle = { a: [1] };
  cycle.a.push(cycle);
  return pick([
    null,
    undefined,
    0,
    -1,
    1.5,
    NaN,
    Infinity,
    2 ** 53,
    2 ** 24,
    '',
    'x'.repeat(int(5000)),
    [],
    {},
    [1, 'a', null],
    () => 1,
    Symbol('s'),
    10n,
    cycle,
    deep(pick([5, 40, 100_000])),
    new Map([[1, 2]]),
    new Date(0),
    new Float32Array(4),
    Object.create(null),
  ]);
}

const base64 = (values) => Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
const decode = (text) => {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~3)));
};

// A path into a JSON value: a random walk down from the root.
function randomPath(value) {
  const path = [];
  let at = value;
  while (at !== null && typeof at === 'object' && chance(0.7)) {
    const keys = Object.keys(at);
    if (keys.length === 0) break;
    const key = pick(keys);
    if (path.length === 0 && key === 'weights') break;
    path.push(key);
    at = at[key];
  }
  return path;
}

function setAt(root, path, value) {
  if (path.length === 0) return value;
  let at = root;
  for (const key of path.slice(0, -1)) at = at[key];
  if (value === DELETE) delete at[path.at(-1)];
  else at[path.at(-1)] = value;
  return root;
}
const DELETE = Symbol('delete');

const MUTATIONS = {
  field: (c) => setAt(c, randomPath(c), chance(0.2) ? DELETE : hostile()),
  topField: (c) => {
    const key = pick([...Object.keys(c), 'extra', '__proto__', 'constructor']);
    if (chance(0.3)) delete c[key];
    else Object.defineProperty(c, key, { value: hostile(), enumerable: true, configurable: true, writable: true });
    return c;
  },
  option: (c) => {
    if (c.options === null || typeof c.options !== 'object') return c;
    const key = pick([...Object.keys(c.options), 'bogus']);
    c.options[key] = pick([
      c.options[key],
      1,
      2,
      3,
      8,
      16,
      64,
      0,
      -1,
      'induction',
      'verb-noun',
      'verb',
      true,
      false,
      hostile(),
    ]);
    return c;
  },
  otherOptions: (c) => {
    c.options = JSON.parse(TEXTS[pick(CHECKPOINT_NAMES)]).options;
    return c;
  },
  parameterCount: (c) => {
    const n = Number.isSafeInteger(c.parameterCount) ? c.parameterCount : 1000;
    c.parameterCount = pick([n + 1, n - 1, 2 * n, n >> 1, 0, 2 ** int(60), hostile()]);
    return c;
  },
  weightsText: (c) => {
    if (typeof c.weights !== 'string') return c;
    const t = c.weights;
    const at = int(t.length + 1);
    c.weights = pick([
      t.slice(0, at),
      t.slice(at),
      t + 'A'.repeat(1 + int(8)),
      t.slice(0, at) + pick(['!', '=', '==', ' ', '\n', '-', '_', 'é', '\u0000']) + t.slice(at + 1),
      t.slice(0, at) + 'A' + t.slice(at + 1),
      t.replace(/=+$/, ''),
      t + '=',
      JSON.parse(TEXTS[pick(CHECKPOINT_NAMES)]).weights,
    ]);
    return c;
  },
  weightValue: (c) => {
    if (typeof c.weights !== 'string') return c;
    const values = decode(c.weights);
    if (values.length === 0) return c;
    for (let k = 1 + int(3); k > 0; k -= 1) {
      values[int(values.length)] = pick([NaN, Infinity, -Infinity, 3e38, 1025, -1025, 1024, -1024, 0, 1e-45]);
    }
    c.weights = base64(values);
    return c;
  },
  hugeConsistent: (c) => {
    // 2^16 to 2^23 parameters of zeros, the text's length right for them.
    const n = 2 ** (16 + int(8));
    const data = Math.ceil((4 * 4 * n) / 3);
    c.parameterCount = n;
    c.weights = 'A'.repeat(data) + '='.repeat(4 * Math.ceil((4 * n) / 3) - data);
    return c;
  },
};

// Last, when chosen: a field read through a getter that throws or answers differently the second time.
function getter(c) {
  const key = pick(['weights', 'options', 'evaluation', 'extra']);
  let reads = 0;
  const value = c[key];
  Object.defineProperty(c, key, {
    enumerable: true,
    configurable: true,
    get() {
      reads += 1;
      if (chance(0.3)) throw new Error('a getter throws');
      return reads > 1 ? hostile() : value;
    },
  });
  return c;
}

// The JSON text's bytes changed: a few characters replaced, removed or duplicated.
function mutateText(text) {
  let t = text;
  for (let k = 1 + int(4); k > 0; k -= 1) {
    const at = int(t.length);
    const op = int(3);
    if (op === 0) t = t.slice(0, at) + String.fromCharCode(32 + int(95)) + t.slice(at + 1);
    else if (op === 1) t = t.slice(0, at) + t.slice(at + 1 + int(20));
    else t = t.slice(0, at) + t.slice(at, at + 1 + int(20)) + t.slice(at);
  }
  return t;
}

function candidate() {
  const name = pick(CHECKPOINT_NAMES);
  if (chance(0.15)) {
    try {
      return { kind: 'text', checkpoint: JSON.parse(mutateText(TEXTS[name])) };
    } catch {
      return null; // not JSON any more: nothing to load
    }
  }
  let c = JSON.parse(TEXTS[name]);
  const kinds = [];
  for (let k = chance(0.1) ? 0 : 1 + int(3); k > 0; k -= 1) {
    // The root itself was replaced (by a hostile value: a typed array, a Proxy, ...): mutate no more.
    if (c === null || typeof c !== 'object' || Object.getPrototypeOf(c) !== Object.prototype) break;
    const kind = pick(Object.keys(MUTATIONS));
    kinds.push(kind);
    try {
      c = MUTATIONS[kind](c);
    } catch (error) {
      // A mutation that cannot apply where an earlier one put a hostile value (deleting an index of
      // a typed array throws in strict code, seed 1090408063) is a fault of the mutator, not of
      // loadCheckpoint: the candidate keeps what it has.
      if (!(error instanceof TypeError)) throw error;
      kinds.push('(not applied)');
    }
  }
  if (c !== null && typeof c === 'object' && Object.getPrototypeOf(c) === Object.prototype && chance(0.1)) {
    kinds.push('getter');
    c = getter(c);
  }
  return { kind: kinds.join('+') || 'none', checkpoint: c };
}

const isRefusal = (error) =>
  (error instanceof TypeError || error instanceof RangeError || error instanceof HeadwiseError) &&
  typeof error.message === 'string' &&
  error.message.length > 0;

test(
  `fuzz: mutated checkpoints for ${SECONDS} s (seed ${SEED})`,
  async () => {
    const hw = await loadHeadwise({});
    (await hw.loadCheckpoint(JSON.parse(TEXTS['induction-2-layers']))).dispose(); // what the module keeps
    const baseline = hw.memoryStats();
    const counts = { loaded: 0, refused: 0, notJson: 0, slowest: 0 };
    const reasons = {};
    const started = performance.now();
    let iterations = 0;
    while (performance.now() - started < SECONDS * 1000) {
      iterations += 1;
      const made = candidate();
      if (made === null) {
        counts.notJson += 1;
        continue;
      }
      const context = `seed ${SEED}, iteration ${iterations}, ${made.kind}`;
      const t0 = performance.now();
      let trainer = null;
      try {
        trainer = await hw.loadCheckpoint(made.checkpoint);
        counts.loaded += 1;
      } catch (error) {
        expect(isRefusal(error), `${context}: ${error?.name}: ${error?.message}`).toBe(true);
        counts.refused += 1;
        const reason = error.message.replace(/\d+/g, 'N').slice(0, 60);
        reasons[reason] = (reasons[reason] ?? 0) + 1;
      }
      const ms = performance.now() - t0;
      counts.slowest = Math.max(counts.slowest, Math.round(ms));
      expect(ms, `${context}: took ${ms} ms`).toBeLessThan(SLOW_MS);
      // A loaded trainer works (now and then: an evaluation of the induction models takes a while).
      if (trainer && chance(0.1)) expect(trainer.evaluate().loss, context).toBeGreaterThanOrEqual(0);
      trainer?.dispose();
      expect(hw.stoppedReason, context).toBe(null);
      expect(hw.liveTrainers(), context).toBe(0);
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `checkpoint fuzz: ${iterations} iterations in ${seconds.toFixed(1)} s, seed ${SEED}: ` +
        `${JSON.stringify(counts)}; ` +
        `${Object.keys(reasons).length} kinds of refusal, most common: ` +
        JSON.stringify(
          Object.entries(reasons)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 6),
        ),
    );
    const after = hw.memoryStats();
    expect(after.heapInUseBytes).toBe(baseline.heapInUseBytes);
    expect(after.stackPointer).toBe(baseline.stackPointer);
    expect(counts.loaded + counts.refused).toBeGreaterThan(0);
  },
  (SECONDS + 120) * 1000,
);
