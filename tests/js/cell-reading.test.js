// Reading heatmap cells without a browser: the heatmap's cell description, which cell a point is in,
// what a cell says, the keyboard cursor, the tip's place inside its frame, printed values that fit,
// no "-0" anywhere, and the contrast of the colours used for masked cells.
import { describe, expect, test } from 'vitest';
import { heatmapFigure } from '../../web/explorer/figures/heatmap.js';
import { cellText, readingText, valuesFit } from '../../web/explorer/figures/heatmap-cells.js';
import { cellAt, cellBox, cellReading, placeTip, stepCell } from '../../web/explorer/figures/cell-reading.js';
import { contrastRatio, viridis } from '../../web/explorer/figures/colour-scale.js';
import { DARK, LIGHT, stackFigures } from '../../web/explorer/figures/figure.js';

const TOKENS = ['The', 'dog', 'saw', 'it'];
const T = TOKENS.length;
const causal = (i, j) => j > i;
// Scores and the causal softmax of each row, in double precision, stored as float32 like the module's.
const scores = Float32Array.from({ length: T * T }, (_, k) =>
  causal(Math.floor(k / T), k % T) ? -Infinity : k / 7 - 1,
);
const attention = new Float32Array(T * T);
for (let i = 0; i < T; i += 1) {
  const row = Array.from({ length: i + 1 }, (_, j) => Math.exp(scores[i * T + j]));
  const sum = row.reduce((a, b) => a + b, 0);
  row.forEach((e, j) => (attention[i * T + j] = e / sum));
}
const attentionMap = () =>
  heatmapFigure({
    values: attention,
    rows: T,
    cols: T,
    rowLabels: TOKENS,
    colLabels: TOKENS,
    scale: 'probability',
    masked: causal,
    quantity: 'attention',
    scores,
    headDim: 3,
    title: 'head 1',
  });

describe('the heatmap describes its cells in one place', () => {
  test('the description matches the drawn grid; every cell centre is found back', () => {
    const figure = attentionMap();
    const grid = figure.items.find((it) => it.kind === 'grid');
    const [map] = figure.heatmaps;
    expect([map.x, map.y, map.cellW, map.cellH, map.r, map.c]).toEqual([
      grid.x,
      grid.y,
      grid.cellW,
      grid.cellH,
      grid.rows,
      grid.cols,
    ]);
    for (let i = 0; i < T; i += 1) {
      for (let j = 0; j < T; j += 1) {
        const b = cellBox(map, i, j);
        expect(cellAt(figure.heatmaps, b.x + b.w / 2, b.y + b.h / 2)).toEqual({ m: 0, i, j });
      }
    }
    expect(cellAt(figure.heatmaps, map.x - 1, map.y + 1)).toBeNull();
    expect(cellAt(figure.heatmaps, map.x + 1, map.y + map.r * map.cellH + 1)).toBeNull();
  });

  test('stacking figures keeps each heatmap, moved down with its figure', () => {
    const a = attentionMap();
    const b = attentionMap();
    const stacked = stackFigures([a, b], 'two', 16);
    expect(stacked.heatmaps.length).toBe(2);
    expect(stacked.heatmaps[1].y).toBe(b.heatmaps[0].y + a.height + 16);
    const second = cellBox(stacked.heatmaps[1], 2, 1);
    expect(cellAt(stacked.heatmaps, second.x + 1, second.y + 1)).toEqual({ m: 1, i: 2, j: 1 });
  });
});

describe('what a cell says', () => {
  test('an attention cell: its tokens, q_i . k_j / sqrt(hd) before softmax and the weight after', () => {
    const [map] = attentionMap().heatmaps;
    const { heading, lines } = cellReading(map, 3, 1);
    expect(heading).toBe('row 4 “it”, column 2 “dog”');
    expect(lines).toEqual([
      `q_4 · k_2 / √3 = ${scores[13].toPrecision(4)} (before softmax)`,
      `weight ${attention[13].toPrecision(4)} (after softmax)`,
    ]);
  });

  test('a masked cell says so, with the score and weight the mask gives', () => {
    const [map] = attentionMap().heatmaps;
    expect(cellReading(map, 0, 3).lines).toEqual([
      'masked: the causal mask hides a later token',
      'score −∞ before softmax, weight 0 after',
    ]);
  });

  test('a scores map gives the same two numbers; a plain map its value, zero below zeroBelow', () => {
    const figure = heatmapFigure({ values: scores, rows: T, cols: T, masked: causal, quantity: 'scores', attention });
    expect(cellReading(figure.heatmaps[0], 2, 2).lines).toEqual([
      `q_3 · k_3 / √head_dim = ${scores[10].toPrecision(4)} (before softmax)`,
      `weight ${attention[10].toPrecision(4)} (after softmax)`,
    ]);
    const values = Float32Array.from([-3e-8, 0.25, -0.5, 2]);
    const plain = heatmapFigure({ values, rows: 2, cols: 2, zeroBelow: 1e-6 });
    expect(cellReading(plain.heatmaps[0], 0, 0)).toEqual({ heading: 'row 1, column 1', lines: ['value 0'] });
    expect(cellReading(plain.heatmaps[0], 1, 0).lines).toEqual(['value -0.5000']);
  });

  test('a pooled block gives its rows, columns and mean', () => {
    const rows = 130;
    const values = Float32Array.from({ length: rows * 2 }, (_, k) => k);
    const [map] = heatmapFigure({ values, rows, cols: 2 }).heatmaps;
    expect(map.rb).toBe(3);
    const { heading, lines } = cellReading(map, 43, 1);
    expect(heading).toBe('rows 130-130, columns 2-2 (one block)');
    expect(lines).toEqual([`mean of its visible entries ${readingText(values[129 * 2 + 1])}`]);
    expect(cellReading(map, 0, 0).lines).toEqual([`mean of its visible entries ${readingText((0 + 2 + 4) / 3)}`]);
  });

  test('numbers never print as -0, in the tip or in a cell', () => {
    for (const v of [-0, -1e-30, -4e-5, -0.00049, -1e-12]) {
      expect(readingText(v)).not.toMatch(/^-0(\.0*)?$/);
      expect(cellText(v, 'signed')).not.toBe('-0.0');
    }
    expect(readingText(-0)).toBe('0');
    expect(readingText(-4e-5)).toBe('-4.000e-5');
    expect(readingText(0.27123)).toBe('0.2712');
    expect(readingText(-Infinity)).toBe('−∞');
  });
});

describe('the keyboard cursor', () => {
  test('arrows stay inside a map, and go on to the next map past its bottom', () => {
    const maps = [
      { r: 2, c: 3 },
      { r: 4, c: 2 },
    ];
    expect(stepCell(maps, { m: 0, i: 0, j: 2 }, 'ArrowRight')).toEqual({ m: 0, i: 0, j: 2 });
    expect(stepCell(maps, { m: 0, i: 0, j: 0 }, 'ArrowLeft')).toEqual({ m: 0, i: 0, j: 0 });
    expect(stepCell(maps, { m: 0, i: 1, j: 2 }, 'ArrowDown')).toEqual({ m: 1, i: 0, j: 1 });
    expect(stepCell(maps, { m: 1, i: 0, j: 1 }, 'ArrowUp')).toEqual({ m: 0, i: 1, j: 1 });
    expect(stepCell(maps, { m: 1, i: 3, j: 0 }, 'ArrowDown')).toEqual({ m: 1, i: 3, j: 0 });
    expect(stepCell(maps, { m: 0, i: 1, j: 1 }, 'End')).toEqual({ m: 0, i: 1, j: 2 });
    expect(stepCell(maps, { m: 0, i: 1, j: 1 }, 'Home')).toEqual({ m: 0, i: 1, j: 0 });
    expect(stepCell(maps, { m: 0, i: 1, j: 1 }, 'Tab')).toBeNull();
  });
});

describe('the tip stays inside its frame', () => {
  const frame = { left: 0, top: 0, right: 390, bottom: 844 };
  const tip = { width: 200, height: 60 };
  const inside = (p, size = tip) =>
    p.left >= frame.left &&
    p.top >= frame.top &&
    p.left + size.width <= frame.right &&
    p.top + size.height <= frame.bottom;

  test('centred above the cell when there is room', () => {
    const cell = { left: 180, top: 400, right: 210, bottom: 430 };
    expect(placeTip(cell, tip, frame)).toEqual({ left: 95, top: 334 });
  });

  test('below a cell at the top, clamped at the right and left edges', () => {
    const right = placeTip({ left: 370, top: 10, right: 390, bottom: 40 }, tip, frame);
    expect(right).toEqual({ left: 190, top: 46 });
    expect(inside(right)).toBe(true);
    const left = placeTip({ left: 0, top: 500, right: 20, bottom: 530 }, tip, frame);
    expect(left.left).toBe(0);
    expect(inside(left)).toBe(true);
  });

  test('for every cell of a phone-sized map the tip is inside', () => {
    for (let y = 0; y < 844; y += 20) {
      for (let x = 0; x < 390; x += 15) {
        const place = placeTip({ left: x, top: y, right: x + 15, bottom: y + 20 }, tip, frame);
        expect(inside(place), `cell at ${x}, ${y}`).toBe(true);
      }
    }
  });
});

describe('values are printed only where they fit', () => {
  test('a check of the widest text against the cell', () => {
    expect(valuesFit(['.27', '1.00'], 30, 30, 10)).toBe(true);
    expect(valuesFit(['-12.3'], 30, 30, 10)).toBe(false);
    expect(valuesFit(['.27'], 30, 16, 10)).toBe(false);
  });

  test('a heatmap with wide numbers in narrow cells prints none; with short ones it prints all', () => {
    const texts = (figure) => figure.items.filter((it) => it.kind === 'text' && it.size === 10).map((it) => it.text);
    const wide = Float32Array.from({ length: 16 }, (_, k) => -10.5 - k);
    expect(texts(heatmapFigure({ values: wide, rows: 4, cols: 4, maxWidth: 150 }))).toEqual([]);
    const short = Float32Array.from({ length: 16 }, (_, k) => k / 10);
    expect(texts(heatmapFigure({ values: short, rows: 4, cols: 4, maxWidth: 200 })).length).toBe(16);
  });
});

describe('colours', () => {
  test('the contrast ratio is WCAG 2 (black on white 21, a colour on itself 1, #767676 on white 4.54)', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 6);
    expect(contrastRatio('#5e3c99', '#5e3c99')).toBe(1);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });

  test('masked cells stand apart from the lowest attention by >= 3:1 in both themes', () => {
    for (const palette of [LIGHT, DARK]) {
      for (const low of [0, 0.02, 0.05]) {
        expect(
          contrastRatio(palette.masked, viridis(low)),
          `${palette.masked} vs viridis(${low})`,
        ).toBeGreaterThanOrEqual(3);
      }
    }
  });
});
