// Attacks through the public API that once corrupted or killed the shared module (each of these
// failed before its fix): re-entrant arguments, lying Proxies, coerced elements, huge sparse
// arrays, foreign-realm arrays, prototype names as weights, mutable shapes, stack overflows,
// and memory filled to the module's ceiling.
import vm from 'node:vm';
import { expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import { referenceMha } from './reference.js';
import './matchers.js';

function answersCorrectly(hw) {
  const layer = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 5 });
  const x = hw.randomInput(layer.config, 5);
  expect(layer.forward(x)).toBeCloseToReference(referenceMha(layer.config, layer.getWeights(), x).output);
  layer.dispose();
}

test('an element whose valueOf disposes the layer and creates another cannot write into the new one', async () => {
  const hw = await loadHeadwise({});
  const a = hw.createAttention();
  let b = null;
  let ran = false;
  const evil = {
    valueOf() {
      ran = true;
      a.dispose();
      b = hw.createAttention({ dModel: 12, heads: 2 });
      return 1000;
    },
  };
  expect(() => a.forward([evil, ...Array(35).fill(1000)])).toThrow(
    new TypeError('x[0] must be a number, got a Object'),
  );
  expect(ran).toBe(false);
  b ??= hw.createAttention({ dModel: 12, heads: 2 });
  const fresh = hw.createAttention({ dModel: 12, heads: 2 });
  expect(Array.from(b.getWeights().wk)).toEqual(Array.from(fresh.getWeights().wk));
});

test('a getter that disposes the layer mid-conversion cannot write into freed memory', async () => {
  const hw = await loadHeadwise({});
  const a = hw.createAttention();
  let b = null;
  const x = Array(36).fill(1000);
  Object.defineProperty(x, 5, {
    get() {
      a.dispose();
      b = hw.createAttention({ dModel: 12, heads: 2 });
      return 1000;
    },
  });
  expect(() => a.forward(x)).toThrow(/disposed/);
  const fresh = hw.createAttention({ dModel: 12, heads: 2 });
  expect(Array.from(b.getWeights().wk)).toEqual(Array.from(fresh.getWeights().wk));
  expect(Array.from(b.getWeights().wq)).toEqual(Array.from(fresh.getWeights().wq));
});

test('a getter that grows memory mid-conversion gives the right answer, not a detached buffer', async () => {
  const hw = await loadHeadwise({});
  const layer = hw.createAttention({ seed: 2 });
  const values = Array.from(hw.randomInput(layer.config, 2));
  const x = [...values];
  const big = [];
  Object.defineProperty(x, 0, {
    get() {
      big.push(hw.createAttention({ tokens: 2048, dModel: 256, heads: 4 }));
      return values[0];
    },
  });
  const memoryBefore = hw.memoryStats().wasmMemoryBytes;
  const y = layer.forward(x);
  expect(hw.memoryStats().wasmMemoryBytes).toBeGreaterThan(memoryBefore);
  expect(y).toBeCloseToReference(referenceMha(layer.config, layer.getWeights(), values).output);
  for (const l of big) l.dispose();
});

test('a Proxy over a Float32Array is refused; it cannot hand NaN past the check', async () => {
  const hw = await loadHeadwise({});
  const layer = hw.createAttention();
  const reads = new Map();
  // Finite on the first read of each index, NaN afterwards.
  const lying = new Proxy(new Float32Array(36).fill(0.5), {
    get(target, key) {
      if (typeof key === 'string' && /^\d+$/.test(key)) {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        return reads.get(key) > 1 ? NaN : 0.5;
      }
      return Reflect.get(target, key);
    },
  });
  const wq = layer.getWeights().wq;
  expect(() => layer.forward(lying)).toThrow(TypeError);
  expect(() => layer.setWeights({ wq: lying })).toThrow(TypeError);
  expect(Array.from(layer.getWeights().wq)).toEqual(Array.from(wq));
  expect(layer.forward(new Float32Array(36).fill(0.5)).every(Number.isFinite)).toBe(true);
});

test('a sparse array of length 2^32-1 is refused by its length before anything is allocated', async () => {
  const hw = await loadHeadwise({});
  const layer = hw.createAttention();
  const huge = [];
  huge.length = 2 ** 32 - 1;
  expect(() => layer.forward(huge)).toThrow(new RangeError('x must have 36 values ((1, 6, 6)), got 4294967295'));
  expect(() => layer.setWeights({ wOut: huge })).toThrow(RangeError);
});

test.each([
  [null, 'null'],
  ['', '""'],
  [[], 'an array'],
  [true, 'true'],
  ['0x10', '"0x10"'],
  [1n, '1n'],
  [[[7]], 'an array'],
  [undefined, 'undefined'],
])('an element %o is a TypeError, not coerced to a number', async (element, shown) => {
  const hw = await loadHeadwise({});
  const layer = hw.createAttention();
  const x = Array(36).fill(0.25);
  x[3] = element;
  expect(() => layer.forward(x)).toThrow(new TypeError(`x[3] must be a number, got ${shown}`));
  expect(() => layer.setWeights({ wk: x })).toThrow(TypeError);
});

test('a finite number beyond float32 is refused naming the index, not turned into Infinity', async () => {
  const hw = await loadHeadwise({});
  const layer = hw.createAttention();
  const x = Array(36).fill(0);
  x[2] = 1e39;
  expect(() => layer.forward(x)).toThrow(/^x\[2\] is 1e\+39; every value must be finite in float32/);
});

test('a Float32Array from another realm (an iframe) is accepted and computes the same', async () => {
  const hw = await loadHeadwise({});
  const layer = hw.createAttention({ seed: 4 });
  const x = hw.randomInput(layer.config, 4);
  const foreign = vm.runInNewContext('new Float32Array(36)');
  expect(foreign instanceof Float32Array).toBe(false);
  foreign.set(x);
  expect(Array.from(layer.forward(foreign))).toEqual(Array.from(layer.forward(x)));
  const int32 = vm.runInNewContext('new Int32Array(36)');
  expect(() => layer.forward(int32)).toThrow(
    new TypeError('x must be a Float32Array (or an array of numbers), got a Int32Array'),
  );
});

test.each(['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf'])(
  'setWeights({ %s }) is an unknown weight, not a property lookup',
  async (name) => {
    const hw = await loadHeadwise({});
    const layer = hw.createAttention();
    const weights = JSON.parse(`{"${name}": [1, 2, 3]}`);
    expect(() => layer.setWeights(weights)).toThrow(
      new TypeError(`unknown weight "${name}" (this layer has wq, wk, wv, wOut)`),
    );
  },
);

test('shapes are frozen all the way down and never trusted inside', async () => {
  const hw = await loadHeadwise({});
  const layer = hw.createAttention();
  expect(Object.isFrozen(layer.shapes.input)).toBe(true);
  expect(() => {
    'use strict';
    layer.shapes.input[1] = 0;
  }).toThrow(TypeError);
  expect(layer.shapes.input).toEqual([1, 6, 6]);
  expect(() => layer.forward(new Float32Array(0))).toThrow(RangeError);
});

test('randomInput: negative sizes are RangeErrors; a seed of the wrong type is a TypeError', async () => {
  const hw = await loadHeadwise({});
  expect(() => hw.randomInput({ batch: -1, tokens: -1 })).toThrow(new RangeError('batch must be at least 1, got -1'));
  expect(() => hw.randomInput({ dModel: 0 })).toThrow(RangeError);
  expect(() => hw.randomInput({}, '3')).toThrow(new TypeError('seed must be a number, got "3"'));
  expect(() => hw.randomInput({}, 1.5)).toThrow(RangeError);
  expect(() => hw.randomInput({}, -1)).toThrow(RangeError);
});

test('forward options: unknown keys and non-objects are TypeErrors', async () => {
  const hw = await loadHeadwise({});
  const layer = hw.createAttention();
  const x = new Float32Array(36);
  expect(() => layer.forward(x, { intermediate: true })).toThrow(
    new TypeError('unknown forward option "intermediate" (known: variant, intermediates)'),
  );
  expect(() => layer.forward(x, 'loop')).toThrow(TypeError);
  expect(() => layer.forwardLoop(x, { variant: 'fused' })).toThrow(TypeError);
  expect(() => layer.attend(layer.split(layer.project(x)), { scores: true })).toThrow(TypeError);
  expect(layer.forward(x, { intermediates: false, variant: 'loop' }).length).toBe(36);
});

// Recursion down to the end of the JS stack, then a call into the module at every depth on the
// way back: at some depth the overflow happens inside the module.
function callAtTheStackLimit(call) {
  let rounds = 0;
  const deep = () => {
    try {
      deep();
    } catch {
      /* the bottom */
    }
    try {
      call();
    } catch {
      rounds += 1;
    }
  };
  for (let i = 0; i < 5; i++) deep();
  return rounds;
}

test('a JS stack overflow inside a call restores the stack pointer (and stops the module, saying why)', async () => {
  for (const name of ['forward', 'shapeTrace', 'memoryStats', 'check', 'randomInput', 'intermediates']) {
    const hw = await loadHeadwise({});
    const layer = hw.createAttention();
    const x = hw.randomInput(layer.config, 1);
    const calls = {
      forward: () => layer.forward(x),
      shapeTrace: () => hw.shapeTrace({ dModel: 768, heads: 12 }),
      memoryStats: () => hw.memoryStats(),
      check: () => hw.check({ heads: 4 }),
      randomInput: () => hw.randomInput({}, 1),
      intermediates: () => layer.forward(x, { intermediates: true }),
    };
    const before = hw.memoryStats().stackPointer;
    // Thousands of calls that overflow (the leak used to trap the module after about 4,800).
    expect(callAtTheStackLimit(calls[name]), name).toBeGreaterThan(5000);
    if (hw.stoppedReason === null) {
      expect(hw.memoryStats().stackPointer, name).toBe(before);
      answersCorrectly(hw);
    } else {
      expect(hw.stoppedReason, name).toMatch(/interrupted inside the module/);
      expect(() => hw.memoryStats()).toThrow(/load a fresh one/);
    }
  }
  answersCorrectly(await loadHeadwise({}));
}, 120_000);

test('filling the module to its 2 GB ceiling with layers gives refusals, never an abort', async () => {
  const hw = await loadHeadwise({});
  const before = hw.memoryStats();
  const heapBefore = before.heapInUseBytes;
  const layers = [];
  let refusals = 0;
  for (let tokens = 4096, width = 1024; tokens >= 1 && width >= 2; tokens /= 2, width /= 2) {
    for (;;) {
      try {
        layers.push(hw.createAttention({ tokens, dModel: width, heads: 2, memoryBudget: 2 ** 31 }));
      } catch (error) {
        expect(error).toBeInstanceOf(HeadwiseError);
        expect(error.message).toMatch(/out of memory/);
        refusals += 1;
        break;
      }
    }
  }
  expect(hw.stoppedReason).toBe(null);
  // Full: what needs memory is refused cleanly; what does not still works.
  const full = hw.memoryStats();
  console.log(
    `fill test: ${layers.length} layers, ${refusals} refusals, wasm memory ${full.wasmMemoryBytes} bytes, ` +
      `heap in use ${full.heapInUseBytes} bytes`,
  );
  expect(full.wasmMemoryBytes).toBeGreaterThan(2 ** 31 - 2 ** 27);
  for (let i = 0; i < 500; i++) {
    try {
      layers.push(hw.createAttention({ tokens: 1 + i, dModel: 2, heads: 1 }));
    } catch (error) {
      expect(error).toBeInstanceOf(HeadwiseError);
    }
    expect(typeof (hw.check({ dModel: 7, heads: 2 }) ?? '')).toBe('string');
  }
  expect(hw.stoppedReason).toBe(null);
  // Every other call that allocates, on a full module: a result or a clean refusal.
  const small = layers.at(-1);
  const x = new Float32Array(small.config.batch * small.config.tokens * small.config.dModel).fill(0.5);
  const atFull = [
    () => small.forward(x),
    () => small.forward(x, { intermediates: true }),
    () => small.forwardLoop(x, { intermediates: true }),
    () => small.attend(small.split(small.project(x)), { intermediates: true }),
    () => small.getWeights(),
    () => small.setWeights({ wq: new Float32Array(small.config.dModel ** 2) }),
    () => small.shapeTrace(),
    () => hw.shapeTrace({ dModel: 768, heads: 12 }),
    () => hw.randomInput({ tokens: 4096, dModel: 1024 }, 3),
    () => hw.memoryStats(),
    () => layers[0].forward(new Float32Array(4096 * 1024), { intermediates: true }),
  ];
  for (let round = 0; round < 20; round++) {
    for (const call of atFull) {
      try {
        call();
      } catch (error) {
        expect(error).toBeInstanceOf(HeadwiseError);
      }
      expect(hw.stoppedReason).toBe(null);
    }
  }
  for (const layer of layers) layer.dispose();
  expect(hw.liveLayers()).toBe(0);
  const after = hw.memoryStats();
  console.log(
    `fill test: heap in use ${before.heapInUseBytes} bytes before, ${full.heapInUseBytes} full, ` +
      `${after.heapInUseBytes} after disposing; ` +
      `wasm memory ${before.wasmMemoryBytes} -> ${after.wasmMemoryBytes} bytes; ` +
      `stack pointer ${before.stackPointer} -> ${after.stackPointer}`,
  );
  expect(after.heapInUseBytes).toBe(heapBefore);
  expect(after.stackPointer).toBe(before.stackPointer);
  answersCorrectly(hw);
}, 300_000);

test('values at +-2^20 (the documented range) give finite outputs; beyond it is not refused', async () => {
  const hw = await loadHeadwise({});
  // Inputs, weights and biases all at the edge; scores grow with dModel * headDim, so wide heads.
  for (const heads of [1, 4]) {
    const layer = hw.createAttention({ tokens: 3, dModel: 1024, heads, bias: true });
    const weights = layer.getWeights();
    const edge = {};
    for (const name of Object.keys(weights)) edge[name] = new Float32Array(weights[name].length).fill(2 ** 20);
    layer.setWeights(edge);
    const n = 3 * 1024;
    for (const x of [
      new Float32Array(n).fill(2 ** 20),
      new Float32Array(n).map((_, i) => (i % 3 ? 2 ** 20 : -(2 ** 20))),
    ]) {
      expect(layer.forward(x).every(Number.isFinite), `heads ${heads}`).toBe(true);
      expect(layer.forwardLoop(x).every(Number.isFinite), `heads ${heads} loop`).toBe(true);
    }
    layer.dispose();
  }
  // Near the float32 limit the products overflow: documented, not refused, and the module goes on.
  const layer = hw.createAttention();
  expect(layer.forward(new Float32Array(36).fill(3.4e38)).every(Number.isFinite)).toBe(false);
  expect(hw.stoppedReason).toBe(null);
  answersCorrectly(hw);
});
