import { beforeAll, expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

const text = (trace) => trace.map((e) => `${e.step} (${e.shape.join(',')})`).join(' -> ');

test("the lecture's example reads (2,6,6) -> (2,6,2,3) -> (2,2,6,3), scores (2,2,6,6), back to (2,6,6)", () => {
  const layer = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2 });
  expect(text(layer.shapeTrace())).toBe(
    'input (2,6,6) -> project (2,6,6) -> split (2,6,2,3) -> split (2,2,6,3) -> attend (2,2,6,6)' +
      ' -> attend (2,2,6,6) -> attend (2,2,6,3) -> merge (2,6,2,3) -> merge (2,6,6) -> out-project (2,6,6)',
  );
  expect(layer.shapeTrace()[4].name).toBe('scores = q @ k.transpose(-2, -1) / sqrt(hd)');
  layer.dispose();
});

test('GPT-3 shapes come without allocating anything', () => {
  const trace = hw.shapeTrace({ tokens: 2048, dModel: 12288, heads: 96 });
  expect(trace[3].shape).toEqual([1, 96, 2048, 128]);
  expect(trace[4].shape).toEqual([1, 96, 2048, 2048]);
  expect(trace.at(-1).shape).toEqual([1, 2048, 12288]);
  expect(hw.check({ tokens: 2048, dModel: 12288, heads: 96 })).toMatch(/more than the memory budget/);
});

test('4000 heads of 3 on width 6: the concatenation is 12000 wide, W_out maps it back', () => {
  const trace = hw.shapeTrace({ batch: 2, tokens: 6, dModel: 6, heads: 4000, headDim: 3 });
  expect(trace[1].shape).toEqual([2, 6, 12000]);
  expect(trace[3].shape).toEqual([2, 4000, 6, 3]);
  expect(trace.at(-1).shape).toEqual([2, 6, 6]);
});

test('an invalid configuration has no trace', () => {
  expect(() => hw.shapeTrace({ dModel: 768, heads: 10 })).toThrow(HeadwiseError);
});
