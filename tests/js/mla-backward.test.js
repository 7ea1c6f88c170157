// LatentAttention.backward(dy): the gradients of L = sum(output * dy) at the last forward()'s
// input, for every weight and the input, against central differences of the plain double loop
// (mla-reference.js) and against central differences of the layer's own float32 forward; the
// refusals (no forward yet, a wrong dy, past the memory budget) with the module working after.
import { beforeAll, expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import './matchers.js';
import { referenceMla } from './mla-reference.js';

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

const WEIGHTS = ['wDkv', 'wUk', 'wUv', 'wq', 'wQr', 'wKr', 'wOut'];

// dy: a fixed pattern in [-1, 1], the same for the layer and the reference.
const pattern = (n, phase) => Float32Array.from({ length: n }, (_, i) => Math.sin(0.37 * i + phase));

const loss = (y, dy) => y.reduce((sum, v, i) => sum + v * dy[i], 0);

// dL/d(entry i of `name`) by central differences of the double loop (h = 1e-4 in doubles).
function referenceGradient(config, weights, x, dy, name, i) {
  const h = 1e-4;
  const at = (delta) => {
    const w = { ...weights };
    const input = name === 'x' ? Float64Array.from(x) : x;
    if (name === 'x') input[i] += delta;
    else (w[name] = Float64Array.from(weights[name]))[i] += delta;
    return loss(referenceMla(config, w, input), dy);
  };
  return (at(h) - at(-h)) / (2 * h);
}

// Tail sizes: odd latents and widths, one sequence and two, causal and not, with and without the
// RoPE key (ropeDim 0: wQr and wKr are empty, so are their gradients).
const SIZES = [
  { batch: 2, tokens: 5, dModel: 8, heads: 2, kvLatent: 3, ropeDim: 2, causal: true, seed: 5 },
  { batch: 1, tokens: 6, dModel: 6, heads: 3, kvLatent: 5, ropeDim: 0, causal: false, seed: 6 },
  { batch: 1, tokens: 3, dModel: 12, heads: 2, kvLatent: 4, ropeDim: 4, headDim: 6, causal: true, seed: 7 },
];

test.each(SIZES)(
  'every gradient equals central differences of the double loop within 1e-6 + 1e-5 |ref| (%o)',
  (options) => {
    const layer = hw.createAttention({ attention: 'mla', ...options });
    const x = hw.randomInput(layer.config, options.seed);
    const y = layer.forward(x);
    const dy = pattern(y.length, options.seed);
    const weights = layer.getWeights();
    const { dx, gradients } = layer.backward(dy);
    expect(Object.keys(gradients)).toEqual(WEIGHTS);
    for (const name of WEIGHTS) {
      expect(gradients[name].length).toBe(weights[name].length);
      const expected = weights[name].map((_, i) => referenceGradient(layer.config, weights, x, dy, name, i));
      expect(gradients[name]).toBeCloseToReference(Float64Array.from(expected), 1e-6, 1e-5);
    }
    const expectedDx = Array.from(x, (_, i) => referenceGradient(layer.config, weights, x, dy, 'x', i));
    expect(dx).toBeCloseToReference(Float64Array.from(expectedDx), 1e-6, 1e-5);
    expect(layer.getWeights()).toEqual(weights); // backward changes no weight
    layer.dispose();
  },
);

test("central differences of the layer's own float32 forward agree within 2e-3 + 2e-2 |fd|", () => {
  const layer = hw.createAttention({ attention: 'mla', ...SIZES[0] });
  const x = hw.randomInput(layer.config, 9);
  const dy = pattern(x.length, 2);
  layer.forward(x);
  const { dx, gradients } = layer.backward(dy);
  const weights = layer.getWeights();
  const h = 1e-2;
  const lossAt = (name, i, delta) => {
    if (name === 'x') {
      const moved = x.slice();
      moved[i] += delta;
      return loss(layer.forward(moved), dy);
    }
    const moved = weights[name].slice();
    moved[i] += delta;
    layer.setWeights({ [name]: moved });
    const value = loss(layer.forward(x), dy);
    layer.setWeights({ [name]: weights[name] });
    return value;
  };
  for (const [name, got] of [['x', dx], ...Object.entries(gradients)]) {
    for (const i of [0, 1, Math.floor(got.length / 2), got.length - 1]) {
      const fd = (lossAt(name, i, h) - lossAt(name, i, -h)) / (2 * h);
      expect(Math.abs(got[i] - fd), `${name}[${i}]: ${got[i]} against ${fd}`).toBeLessThanOrEqual(
        2e-3 + 2e-2 * Math.abs(fd),
      );
    }
  }
  layer.dispose();
});

test("backward is at the last forward's input, whichever form ran, and repeats bit for bit", () => {
  const layer = hw.createAttention({ attention: 'mla', ...SIZES[0] });
  const [a, b] = [hw.randomInput(layer.config, 1), hw.randomInput(layer.config, 2)];
  const dy = pattern(a.length, 0);
  layer.forward(a);
  const atA = layer.backward(dy);
  layer.forward(b, { form: 'absorbed' });
  const atB = layer.backward(dy);
  expect(atB.dx).not.toEqual(atA.dx);
  layer.forward(a, { form: 'absorbed' });
  expect(layer.backward(dy)).toEqual(atA);
  layer.dispose();
});

test('refusals in words, the module working after', () => {
  const layer = hw.createAttention({ attention: 'mla', ...SIZES[0] });
  expect(() => layer.backward(new Float32Array(80))).toThrow(HeadwiseError);
  expect(() => layer.backward(new Float32Array(80))).toThrow(/needs a forward\(\) first/);
  const x = hw.randomInput(layer.config, 3);
  layer.forward(x);
  expect(() => layer.backward(new Float32Array(79))).toThrow(/dy must have 80 values \(\(2, 5, 8\)\), got 79/);
  expect(() => layer.backward(new Float32Array(80).fill(NaN))).toThrow(RangeError);
  expect(layer.backward(pattern(80, 1)).dx.length).toBe(80);
  layer.dispose();
  expect(() => layer.backward(pattern(80, 1))).toThrow(/disposed/);

  // The smallest budget (doubling from 1 KiB) that holds the layer does not hold its gradients.
  const config = { attention: 'mla', batch: 2, tokens: 16, dModel: 32, heads: 4, kvLatent: 8, ropeDim: 4 };
  let budget = 1024;
  while (hw.check({ ...config, memoryBudget: budget }) !== null) budget *= 2;
  const small = hw.createAttention({ ...config, memoryBudget: budget });
  small.forward(hw.randomInput(small.config, 4));
  expect(() => small.backward(pattern(2 * 16 * 32, 0))).toThrow(
    /layer with its gradients and its \(B, H, T, T\) attention kept need .* more than the memory budget/,
  );
  expect(small.forward(hw.randomInput(small.config, 4)).length).toBe(2 * 16 * 32);
  small.dispose();
  const again = hw.createAttention({ attention: 'mla', ...SIZES[1] });
  again.forward(hw.randomInput(again.config, 1));
  expect(again.backward(pattern(36, 0)).gradients.wQr.length).toBe(0);
  again.dispose();
});
