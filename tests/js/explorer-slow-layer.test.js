// A link such as ?width=8000&heads=1 creates a 1 GB layer in one call that takes seconds: the page
// must say so before it starts, at every width from 512 up, not only up to 4096 as it once did.
import { expect, test } from 'vitest';
import { slowLayerNotice, SLOW_LAYER_WIDTH } from '../../web/explorer/computation.js';

test.each([512, 768, 4096, 4097, 8000, 1_000_000])('width %i gets a notice before the layer is created', (width) => {
  expect(slowLayerNotice(width)).toBe(`Computing a layer of width ${width}...`);
});

test.each([1, 6, 64, SLOW_LAYER_WIDTH - 1, 'x', Number.NaN])('width %s computes at once, without a notice', (width) => {
  expect(slowLayerNotice(width)).toBe(null);
});
