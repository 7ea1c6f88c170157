// The same head keeps its colour in every figure that tells heads apart (head-colours.js): the
// bands under a concatenation, the memory order of the split step and the why panel's bars of two heads.
// Before, the bands were blue then orange (accent, accent2) while the memory order drew head 1 orange.
import { expect, test } from 'vitest';
import { heatmapFigure } from '../../web/explorer/figures/heatmap.js';
import { barsFigure } from '../../web/explorer/figures/charts.js';
import { headColour } from '../../web/explorer/figures/head-colours.js';
import { memoryLayoutFigure } from '../../web/explorer/panels/steps/memory-layout.js';
import { headBands } from '../../web/explorer/figures/out-project-figure.js';

test('head h has one colour in the bands, the memory order and the bars', () => {
  const [T, H, hd] = [3, 4, 2];
  const bands = heatmapFigure({
    values: new Float32Array(T * H * hd),
    rows: T,
    cols: H * hd,
    columnBands: headBands(H, hd),
    maxWidth: 400,
  }).items.filter((it) => it.kind === 'rect' && it.h === 4);
  expect(bands.map((b) => b.fill)).toEqual([0, 1, 2, 3].map(headColour));
  // The memory order's cells of head h (the first token's cells come head after head).
  const memory = memoryLayoutFigure(T, H, hd, 600, 1).items.filter((it) => it.kind === 'rect' && it.fill !== null);
  for (let h = 0; h < H; h += 1) expect(memory.some((it) => it.fill === headColour(h))).toBe(true);
  expect(new Set(memory.map((it) => it.fill)).size).toBeLessThanOrEqual(H + 1);
  const bars = barsFigure({
    rows: [0, 1].map((h) => ({ name: `head ${h + 1}`, values: [1, 0], colour: headColour(h) })),
    labels: ['a', 'b'],
    title: 't',
  }).items.filter((it) => it.kind === 'rect' && it.h > 0);
  expect(bars.map((b) => b.fill)).toEqual([headColour(0), headColour(1)]);
});
