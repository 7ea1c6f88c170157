// Sizes cannot wrap in the module's 32-bit size_t: every size is checked in 64 bits and the budget
// is capped at the 2 GB the module can ever hold. These are the attacks of issue 11, item 2; each
// one, before the fix, was accepted and then trapped, wrote past a buffer or returned nothing.
import { beforeAll, expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
  hw.createAttention({}).dispose(); // the first layer sizes the module's own tables for good
});

const CEILING = 'more than the module can ever hold (2.0 GB)';

function heapIsBack(before) {
  expect(hw.liveLayers()).toBe(0);
  expect(hw.memoryStats().heapInUseBytes).toBe(before.heapInUseBytes);
  expect(hw.stoppedReason).toBe(null);
}

test('65536 heads of width 65536 under a 1e12 budget are refused, not created empty', () => {
  const before = hw.memoryStats();
  const config = { tokens: 1, dModel: 65536, heads: 65536, memoryBudget: 1e12 };
  const message = `this configuration needs 64.0 GB, ${CEILING}`;
  expect(hw.check(config)).toBe(message);
  expect(() => hw.createAttention(config)).toThrow(new HeadwiseError(message));
  heapIsBack(before);
});

test.each([32769, 32768])('%i tokens: kept scores beyond 2 GB are refused, not wrapped or empty', (tokens) => {
  const before = hw.memoryStats();
  const config = { tokens, dModel: 2, heads: 2, headDim: 1, memoryBudget: 2 ** 36 };
  const layer = hw.createAttention(config);
  const x = hw.randomInput(config, 1);
  expect(() => layer.forward(x, { intermediates: true })).toThrow(
    new HeadwiseError(`this configuration needs 16.0 GB (with the (B, H, T, T) scores kept), ${CEILING}`),
  );
  // Still usable without them (one step: a whole forward at this length takes seconds).
  const { q } = layer.project(x);
  expect(q.length).toBe(tokens * 2);
  expect(q.every(Number.isFinite)).toBe(true);
  layer.dispose();
  heapIsBack(before);
});

test('a budget of 2^64 bytes is the module ceiling, not 0 bytes', () => {
  const config = { tokens: 4, dModel: 8, heads: 2, memoryBudget: 2 ** 64 };
  expect(hw.check(config)).toBe(null);
  const layer = hw.createAttention(config);
  expect(layer.forward(hw.randomInput(config, 2)).length).toBe(32);
  layer.dispose();
  expect(hw.check({ ...config, tokens: 65536, dModel: 65536, heads: 1 })).toMatch(CEILING);
});

test('a width of 1e308 is too large in its own words, not 9223372036854775807', () => {
  const message = 'width 1e+308 is too large (at most 65536)';
  expect(hw.check({ dModel: 1e308, heads: 2 })).toBe(message);
  expect(() => hw.createAttention({ dModel: 1e308, heads: 2 })).toThrow(new HeadwiseError(message));
  expect(hw.check({ dModel: 8, heads: 2 ** 64 })).toBe('heads 18446744073709552000 is too large (at most 65536)');
  expect(() => hw.shapeTrace({ tokens: 2 ** 63, dModel: 8, heads: 2 })).toThrow(
    new HeadwiseError('tokens 9223372036854776000 is too large (at most 65536)'),
  );
});
