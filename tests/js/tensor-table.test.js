// The JS API takes its tensor ids, steps and weight names from the core's table at load: these
// check that what it builds from the table is what the public API has always promised.
import { beforeAll, expect, test } from 'vitest';
import { Headwise, loadHeadwise } from '../../web/headwise.js';
import { loadCore } from '../../web/core-loader.js';

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

test('getWeights lists the weight rows, then the bias rows when biases are on, in table order', () => {
  const plain = hw.createAttention({ tokens: 3, dModel: 6, heads: 2, headDim: 4 });
  expect(Object.keys(plain.getWeights())).toEqual(['wq', 'wk', 'wv', 'wOut']);
  expect(plain.getWeights().wq.length).toBe(6 * 8);
  expect(plain.getWeights().wOut.length).toBe(8 * 6);
  plain.dispose();
  const biased = hw.createAttention({ tokens: 3, dModel: 6, heads: 2, headDim: 4, bias: true });
  const w = biased.getWeights();
  expect(Object.keys(w)).toEqual(['wq', 'wk', 'wv', 'wOut', 'bq', 'bk', 'bv', 'bOut']);
  expect([w.bq.length, w.bOut.length]).toEqual([8, 6]);
  biased.dispose();
});

test('setWeights checks names against the table and shapes from its dimension symbols', () => {
  const layer = hw.createAttention({ tokens: 3, dModel: 6, heads: 2, headDim: 4, bias: true });
  const wOut = Float32Array.from({ length: 8 * 6 }, (_, i) => i / 100);
  layer.setWeights({ wOut, bOut: new Float32Array(6).fill(0.5) });
  expect(layer.getWeights().wOut).toEqual(wOut);
  expect(layer.getWeights().bOut).toEqual(new Float32Array(6).fill(0.5));
  expect(() => layer.setWeights({ wOut: new Float32Array(6 * 8 + 1) })).toThrow(RangeError);
  for (const name of ['q', 'scores', 'headScratch', 'constructor', 'toString', 'hasOwnProperty']) {
    expect(() => layer.setWeights({ [name]: new Float32Array(1) })).toThrow(
      new TypeError(`unknown weight "${name}" (this layer has wq, wk, wv, wOut, bq, bk, bv, bOut)`),
    );
  }
  layer.dispose();
  const plain = hw.createAttention({ tokens: 3, dModel: 6, heads: 2 });
  expect(() => plain.setWeights({ bq: new Float32Array(6) })).toThrow(
    new TypeError('unknown weight "bq" (this layer has wq, wk, wv, wOut)'),
  );
  plain.dispose();
});

test("randomInput draws from the input row's stream, as it always has", () => {
  // Values of stream 9 (the documented input stream) for seed 5, from the core's generator.
  const x = hw.randomInput({ batch: 1, tokens: 2, dModel: 3 }, 5);
  const again = hw.randomInput({ batch: 1, tokens: 3, dModel: 2 }, 5);
  expect(x).toEqual(again); // a pure function of (seed, stream, index), not of the shape
  expect(x.length).toBe(6);
  expect(x.every((v) => v >= -1 && v < 1)).toBe(true);
});

test("the layer's shapes and its argument checks come from the table's rows, not from a copy in JS", async () => {
  // The same module with two rows changed in the table it hands over at load: the public shapes
  // and the size a forward's input must have follow the rows.
  const raw = await loadCore();
  const edited = Object.create(raw);
  edited.tensorTable = () => {
    const table = raw.tensorTable();
    const row = (name) => table.tensors.find((r) => r.name === name);
    row('qHeads').shape = ['B', 'T', 'H', 'hd'];
    row('input').shape = ['B', 'T', 'C'];
    return table;
  };
  const layer = new Headwise(edited).createAttention({ batch: 2, tokens: 3, dModel: 6, heads: 2, headDim: 4 });
  expect(layer.shapes.heads).toEqual([2, 3, 2, 4]);
  expect(layer.shapes.input).toEqual([2, 3, 8]);
  expect(() => layer.forward(new Float32Array(2 * 3 * 6))).toThrow(RangeError);
  layer.dispose();
  const plain = hw.createAttention({ batch: 2, tokens: 3, dModel: 6, heads: 2, headDim: 4 });
  expect(plain.shapes.heads).toEqual([2, 2, 3, 4]);
  expect(plain.forward(new Float32Array(2 * 3 * 6)).length).toBe(36);
  plain.dispose();
});
