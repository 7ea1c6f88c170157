// Property test of the wasm module through the public API: random configurations (budgets up to
// 2^64), random argument kinds (wrong types, Proxies, valueOf and getter re-entrancy, huge sparse
// arrays, foreign-realm arrays). Every call must be a clean refusal (TypeError, RangeError,
// HeadwiseError) or a correct result; the module never traps or aborts; heap use and the stack
// pointer return to their baseline. A few seconds in `npm test`; longer with
//   HEADWISE_FUZZ_SECONDS=600 npx vitest run tests/js/hardening-fuzz.test.js
// and HEADWISE_FUZZ_SEED=n to replay one run (the seed is printed).
import vm from 'node:vm';
import { expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import { mulberry32 } from '../../web/train-task.js';
import { compare, referenceMha } from './reference.js';

const SECONDS = Number(process.env.HEADWISE_FUZZ_SECONDS ?? 3);
const SEED = Number(process.env.HEADWISE_FUZZ_SEED ?? Date.now() % 2 ** 32);
// Layers get budgets up to 2^64 too, like check(): all size arithmetic in the core is checked
// 64-bit (issue 11, item 2), so no budget lets a 32-bit size wrap. HEADWISE_FUZZ_HUGE_BUDGETS=0
// keeps layer budgets at 2^26 or less (faster runs, no layers of up to 2 GB).
const HUGE_BUDGETS_FOR_LAYERS = process.env.HEADWISE_FUZZ_HUGE_BUDGETS !== '0';

const random = mulberry32(SEED);
const int = (n) => Math.floor(random() * n);
const pick = (items) => items[int(items.length)];
const chance = (p) => random() < p;

function size() {
  if (chance(0.9)) return 1 + int(8);
  return pick([
    0,
    -1,
    -(2 ** 31),
    2 ** int(65),
    2 ** int(65) - 1,
    2 ** int(40) + 1,
    65536,
    65537,
    32768,
    32769,
    1e308,
    NaN,
    Infinity,
    1.5,
    '3',
    null,
    {},
    [2],
    10n,
    true,
    new Proxy({}, {}),
  ]);
}

function budget(upTo) {
  if (chance(0.3)) return undefined;
  if (chance(0.05)) return pick([0, -1, 1.5, NaN, '1e6', 2 ** 64, 2 ** 64 + 2 ** 12, 1e308, Infinity]);
  return Math.min(2 ** int(upTo + 1) + pick([0, 0, 1, -1, int(1000)]), 2 ** 64);
}

function config(budgetUpTo) {
  const c = {};
  for (const key of ['batch', 'tokens', 'dModel', 'heads']) if (chance(0.9)) c[key] = size();
  if (chance(0.3)) c.headDim = size();
  if (chance(0.3)) c.causal = pick([true, false, 'yes', 0]);
  if (chance(0.3)) c.bias = pick([true, false, null]);
  if (chance(0.3)) c.seed = pick([0, 7, 2 ** 32 - 1, 2 ** 32, -1, 1.5, '1']);
  const b = budget(budgetUpTo);
  if (b !== undefined) c.memoryBudget = b;
  if (chance(0.02)) c.width = 6;
  return c;
}

const isRefusal = (error) =>
  error instanceof TypeError || error instanceof RangeError || error instanceof HeadwiseError;

function expectRefusalOrResult(call) {
  try {
    return { value: call() };
  } catch (error) {
    if (!isRefusal(error) || /stopped/.test(error.message)) throw error;
    return { refused: error };
  }
}

// Arguments of the right length in every kind that must be refused or computed correctly.
function argument(layer, hw, good, length) {
  const kind = int(12);
  const bad = () => (chance(0.5) ? Array(length).fill(0.5) : new Float32Array(length));
  switch (kind) {
    case 0:
      return good;
    case 1:
      return Array.from(good);
    case 2: {
      const a = vm.runInNewContext(`new Float32Array(${length})`);
      a.set(good);
      return a;
    }
    case 3:
      return new Float32Array(length + pick([-1, 1]));
    case 4: {
      const a = [];
      a.length = pick([2 ** 32 - 1, 2 ** 31, length + 1]);
      return a;
    }
    case 5:
      return new Proxy(good, {});
    case 6: {
      const a = bad();
      a[int(length)] = a instanceof Array ? pick([null, '1', 1n, [1], {}, true, NaN]) : NaN;
      return a;
    }
    case 7: {
      // valueOf re-entrancy: disposes, creates, forwards
      const a = Array.from(good);
      a[int(length)] = {
        valueOf() {
          layer.dispose();
          hw.createAttention().dispose();
          return 1;
        },
      };
      return a;
    }
    case 8: {
      // a getter that runs the layer itself, disposes it, or grows memory, then answers honestly
      const a = Array.from(good);
      const i = int(length);
      const action = int(3);
      Object.defineProperty(a, i, {
        get() {
          if (action === 0) layer.forward(good);
          else if (action === 1) layer.dispose();
          else hw.createAttention({ tokens: 256, dModel: 64, heads: 4 }).dispose();
          return good[i];
        },
      });
      return a;
    }
    case 9:
      return pick([
        null,
        undefined,
        'x',
        3,
        {},
        new Float64Array(length),
        new Int32Array(length),
        new DataView(new ArrayBuffer(8)),
      ]);
    case 10: {
      const a = Array.from(good);
      a[int(length)] = pick([1e39, -1e39]);
      return a;
    }
    default:
      return new Proxy(Array.from(good), { get: (t, k) => (k === 'length' ? length : NaN) });
  }
}

test(
  `fuzz: random configurations and arguments for ${SECONDS} s (seed ${SEED})`,
  async () => {
    const hw = await loadHeadwise({});
    hw.createAttention().dispose(); // first use allocates what the module keeps
    const baseline = hw.memoryStats();
    const counts = { checks: 0, created: 0, refused: 0, calls: 0, computed: 0, compared: 0 };
    const started = performance.now();
    let iterations = 0;
    while (performance.now() - started < SECONDS * 1000) {
      iterations += 1;
      const context = { seed: SEED, iteration: iterations };
      counts.checks += 1;
      const reason = hw.check(config(64));
      expect(reason === null || typeof reason === 'string', JSON.stringify(context)).toBe(true);

      const c = config(HUGE_BUDGETS_FOR_LAYERS ? 64 : 26);
      const created = expectRefusalOrResult(() => hw.createAttention(c));
      if (created.refused) {
        counts.refused += 1;
        continue;
      }
      counts.created += 1;
      const layer = created.value;
      const { batch: B, tokens: T, dModel: D, heads: H } = layer.config;
      const length = B * T * D;
      const small = length <= 2048 && B * H * T * T <= 20000;
      if (small) {
        const good = hw.randomInput(layer.config, iterations);
        for (let round = 0; round < 4 && !layer.disposed; round += 1) {
          counts.calls += 1;
          const x = argument(layer, hw, good, length);
          const options = pick([
            undefined,
            { intermediates: true },
            { variant: 'loop' },
            { variant: 'x' },
            { other: 1 },
            'fused',
          ]);
          const result = expectRefusalOrResult(() => layer.forward(x, options));
          if (result.refused || layer.disposed) continue;
          counts.computed += 1;
          const output = result.value.output ?? result.value;
          expect(output.length).toBe(length);
          if (layer.config.dModel * layer.config.heads <= 4096) {
            counts.compared += 1;
            const { failure } = compare(output, referenceMha(layer.config, layer.getWeights(), good).output);
            expect(failure, JSON.stringify({ ...context, config: layer.config })).toBe(null);
          }
        }
        const name = pick(['wq', 'wOut', 'bq', 'constructor', 'x']);
        const w = expectRefusalOrResult(() =>
          layer.setWeights({
            [name]: argument(layer, hw, new Float32Array(D * D), D * D),
          }),
        );
        if (!w.refused) counts.calls += 1;
      } else if (B * T * (T * layer.config.concatWidth + D * layer.config.concatWidth) <= 5e7) {
        // Larger layers: one forward if it is cheap (T = 65536 would take minutes), checked for shape only.
        const result = expectRefusalOrResult(() => layer.forward(new Float32Array(length)));
        if (!result.refused) expect(result.value.length).toBe(length);
      }
      layer.dispose();
      expect(hw.stoppedReason, JSON.stringify(context)).toBe(null);
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`fuzz: ${iterations} iterations in ${seconds.toFixed(1)} s, seed ${SEED}: ${JSON.stringify(counts)}`);
    expect(hw.stoppedReason).toBe(null);
    expect(hw.liveLayers()).toBe(0);
    const after = hw.memoryStats();
    expect(after.heapInUseBytes).toBe(baseline.heapInUseBytes);
    expect(after.stackPointer).toBe(baseline.stackPointer);
    expect(counts.computed).toBeGreaterThan(0);
  },
  (SECONDS + 120) * 1000,
);
