// The seeded generator, reimplemented here from its documentation (wasm/core/rng.hpp) with BigInt:
// the module's weights and inputs are exactly these values, so a seed means the same everywhere.
import { beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';

const MASK = (1n << 64n) - 1n;
const GOLDEN = 0x9e3779b97f4a7c15n;
function mix64(z) {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}
function documentedValue(seed, stream, index, bound) {
  const key = mix64((BigInt(seed) + GOLDEN * BigInt(stream + 1)) & MASK);
  const bits = mix64((key + GOLDEN * BigInt(index + 1)) & MASK);
  const u = Number(bits >> 40n) / 2 ** 24;
  return Math.fround(Math.fround(2 * u - 1) * bound);
}

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

test.each([0, 1, 42, 4294967295])('seed %i gives the documented weights bit for bit', (seed) => {
  const layer = hw.createAttention({ dModel: 6, heads: 2, bias: true, seed });
  const w = layer.getWeights();
  const bound = Math.fround(1 / Math.fround(Math.sqrt(6)));
  const streams = { wq: 1, wk: 2, wv: 3, wOut: 4, bq: 5, bk: 6, bv: 7, bOut: 8 };
  for (const [name, stream] of Object.entries(streams)) {
    const expected = Array.from(w[name], (_, i) => documentedValue(seed, stream, i, bound));
    expect(Array.from(w[name]), name).toEqual(expected);
  }
  layer.dispose();
});

test('W_out is scaled by its own fan-in when head_dim is given', () => {
  const layer = hw.createAttention({ dModel: 6, heads: 5, headDim: 3, seed: 9 });
  const { wOut, wq } = layer.getWeights();
  const bound = Math.fround(1 / Math.fround(Math.sqrt(15)));
  expect(wOut.length).toBe(15 * 6);
  expect(wq.length).toBe(6 * 15);
  expect(Array.from(wOut.subarray(0, 10))).toEqual(
    Array.from({ length: 10 }, (_, i) => documentedValue(9, 4, i, bound)),
  );
  layer.dispose();
});

test('randomInput is the documented input stream with bound 1', () => {
  const x = hw.randomInput({ batch: 2, tokens: 6, dModel: 6 }, 77);
  expect(x.length).toBe(72);
  expect(Array.from(x)).toEqual(Array.from({ length: 72 }, (_, i) => documentedValue(77, 9, i, 1)));
  expect(() => hw.randomInput({}, -1)).toThrow(RangeError);
});
