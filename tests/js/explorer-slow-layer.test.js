// A layer of width 512 or more takes tens of milliseconds per call: the page says so before it
// starts. Wider than the page computes (PAGE_MAX_WIDTH) it refuses at once, so no notice promises
// a layer that will not come.
import { expect, test } from 'vitest';
import { slowLayerNotice, SLOW_LAYER_WIDTH } from '../../web/explorer/computation.js';
import { PAGE_MAX_WIDTH } from '../../web/explorer/compute-budget.js';

test.each([512, 768, PAGE_MAX_WIDTH])('width %i gets a notice before the layer is created', (width) => {
  expect(slowLayerNotice(width)).toBe(`Computing a layer of width ${width}...`);
});

test.each([1, 6, 64, SLOW_LAYER_WIDTH - 1, 'x', Number.NaN])('width %s computes at once, without a notice', (width) => {
  expect(slowLayerNotice(width)).toBe(null);
});

test.each([PAGE_MAX_WIDTH + 1, 4096, 8000, 12288, 1_000_000])(
  'width %i is refused at once, without a notice',
  (width) => {
    expect(slowLayerNotice(width)).toBe(null);
  },
);
