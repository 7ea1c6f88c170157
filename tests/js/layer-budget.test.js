// A layer never holds more of the heap than the smallest memory budget it is accepted with: the
// budget counts the layer object, its handle and the allocator's headers, not only its tensors
// (before, a layer used 544-592 B more than that budget).
import { expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';

const CONFIGS = [
  {},
  { tokens: 64, dModel: 64, heads: 4 },
  { batch: 2, tokens: 6, dModel: 6, heads: 2, positions: 'learned', bias: true },
  { tokens: 33, dModel: 24, heads: 3, positions: 'alibi' },
  { tokens: 9, dModel: 8, heads: 5, headDim: 3, positions: 'rope' },
];

// The smallest budget check() accepts, by bisection.
function smallestBudget(hw, config) {
  let [low, high] = [1, 2 ** 31];
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (hw.check({ ...config, memoryBudget: mid }) === null) high = mid;
    else low = mid + 1;
  }
  return low;
}

test.each(CONFIGS)('a layer fits the smallest budget it is accepted with (%j)', async (config) => {
  const hw = await loadHeadwise({});
  hw.createAttention().dispose(); // first use allocates what the module keeps
  const budget = smallestBudget(hw, config);
  expect(hw.check({ ...config, memoryBudget: budget - 1 })).toMatch(/more than the memory budget/);
  const before = hw.memoryStats().heapInUseBytes;
  const layer = hw.createAttention({ ...config, memoryBudget: budget });
  const held = hw.memoryStats().heapInUseBytes - before;
  layer.dispose();
  expect(held).toBeGreaterThan(0);
  expect(held).toBeLessThanOrEqual(budget);
  // and not far below it: the overhead counted is an estimate, not a blanket
  expect(budget - held).toBeLessThan(2048);
});
