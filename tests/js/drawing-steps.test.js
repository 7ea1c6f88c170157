// The steps panel's figure helpers, without a browser: the attend maps' layout and scale, the
// product layout (concat @ W_out = output, grids aligned) and the full-resolution crop of W_out.
import { describe, expect, test } from 'vitest';
import { attendLayout, attendMapItems, scoresScale } from '../../web/explorer/panels/steps/attend-maps.js';
import { gridBox, productFigure } from '../../web/explorer/figures/product-figure.js';
import { arrangeFigures, movedItem } from '../../web/explorer/figures/figure.js';
import { CROP_SIZE, cropOf, isPooled, outProjectFigure } from '../../web/explorer/figures/out-project-figure.js';
import { heatmapFigure } from '../../web/explorer/figures/heatmap.js';

const ramp = (n, scale = 1) => Float32Array.from({ length: n }, (_, k) => Math.sin(k * 1.7) * scale);

describe('attend maps', () => {
  test('layout on a slide: the largest maps that fit both the width and the height', () => {
    // The toy's 4 maps in a 627 x 540 px column: 2 rows of 2 (188 px) beat 1 row of 4 (144 px).
    const toy = attendLayout(627, 2, { height: 540, chrome: 70 });
    expect(toy).toEqual({ perRow: 2, rows: 2, size: 188, gap: 12 });
    // A short column keeps them in one row.
    expect(attendLayout(627, 2, { height: 240, chrome: 70 })).toMatchObject({ perRow: 4, rows: 1 });
    for (const [width, heads, height] of [
      [627, 2, 540],
      [940, 12, 800],
      [1100, 4, 700],
    ]) {
      const l = attendLayout(width, heads, { height, chrome: 70 });
      expect(l.perRow * (l.size + l.gap) - l.gap, `${width} x ${height}, ${heads} heads`).toBeLessThanOrEqual(width);
      expect(l.rows * (l.size + 70 + l.gap), `${width} x ${height}, ${heads} heads`).toBeLessThanOrEqual(height);
    }
    // Nothing fits at 112 px or more: the width's layout, which the panel's fit then scales down.
    expect(attendLayout(627, 12, { height: 540, chrome: 70 })).toEqual(attendLayout(627, 12));
  });

  test('layout: pairs stay together, a few rows, maps no narrower than their titles', () => {
    // The toy on a slide (the figure column of 1280 px) and wide: one row of 4.
    expect(attendLayout(640, 2)).toEqual({ perRow: 4, rows: 1, size: 151, gap: 12 });
    expect(attendLayout(1100, 2).perRow).toBe(4);
    // GPT-2's 12 heads: 24 maps in 4 rows of 6 (3 heads a row), each at least 90 px.
    const gpt2 = attendLayout(640, 12);
    expect(gpt2).toMatchObject({ perRow: 6, rows: 4 });
    expect(gpt2.size).toBeGreaterThanOrEqual(90);
    // A phone: one pair a row.
    expect(attendLayout(260, 2)).toMatchObject({ perRow: 2, rows: 2 });
    for (const [width, heads] of [
      [260, 1],
      [640, 3],
      [640, 16],
      [1100, 16],
      [400, 7],
    ]) {
      const l = attendLayout(width, heads);
      expect(l.perRow % 2, `${width} px, ${heads} heads`).toBe(0);
      expect(l.perRow).toBeLessThanOrEqual(Math.max(2, 2 * heads));
      expect(l.perRow * (l.size + l.gap) - l.gap).toBeLessThanOrEqual(width);
    }
  });

  test('one scale for the scores: the largest |score| of the unmasked cells of every head', () => {
    const T = 3;
    const scores = new Float32Array(2 * T * T).fill(-Infinity);
    scores.set([0.5, -Infinity, -Infinity, -1, 0.2, -Infinity, 0.1, 0.3, -0.4]);
    scores.set([2, -Infinity, -Infinity, 0, 0, -Infinity, 0, 0, 0], T * T);
    expect(scoresScale(scores, 1, T, true)).toBe(1);
    expect(scoresScale(scores, 2, T, true)).toBe(2);
    const full = Float32Array.from({ length: T * T }, (_, k) => (k === 2 ? -7 : 1));
    expect(scoresScale(full, 1, T, true)).toBe(1); // (0, 2) lies above the diagonal
    expect(scoresScale(full, 1, T, false)).toBe(7);
  });

  test('two maps per head, scores then attention, masked cells grey on both', () => {
    const T = 4;
    const H = 3;
    const scores = ramp(H * T * T).map((v, k) => (k % T > Math.floor(k / T) % T ? -Infinity : v));
    const attention = new Float32Array(H * T * T).fill(0.25);
    const tokens = ['a', 'b', 'c', 'd'];
    const { items, maxAbs } = attendMapItems({
      attended: { scores, attention },
      T,
      H,
      hd: 2,
      causal: true,
      tokens,
      size: 150,
    });
    expect(items).toHaveLength(2 * H);
    expect(items.map((i) => i.figure.title)).toEqual([
      'head 1: scores',
      'head 1: softmax',
      'head 2: scores',
      'head 2: softmax',
      'head 3: scores',
      'head 3: softmax',
    ]);
    expect(items[2].label).toMatch(/^Head 2 scores before softmax, q\.k \/ sqrt\(2\), 4 by 4, grey cells masked/);
    expect(maxAbs).toBe(scoresScale(scores, H, T, true));
    for (const item of items) {
      const grid = item.figure.items.find((it) => it.kind === 'grid');
      expect(grid.colours.filter((c) => c === 'masked')).toHaveLength((T * (T - 1)) / 2);
    }
    const small = attendMapItems({ attended: { scores, attention }, T, H, hd: 2, causal: true, tokens, size: 96 });
    expect(small.items[5].figure.title).toBe('3: softmax');
  });
});

describe('the product concat @ W_out = output', () => {
  test('movedItem moves every kind of item; gridBox finds the cells', () => {
    expect(movedItem({ kind: 'rect', x: 1, y: 2, w: 3, h: 4 }, 10, 20)).toMatchObject({ x: 11, y: 22, w: 3, h: 4 });
    expect(movedItem({ kind: 'line', x1: 1, y1: 2, x2: 3, y2: 4 }, 10, 20)).toMatchObject({
      x1: 11,
      y1: 22,
      x2: 13,
      y2: 24,
    });
    expect(movedItem({ kind: 'polyline', points: [[1, 2]] }, 10, 20).points).toEqual([[11, 22]]);
    const f = heatmapFigure({ values: ramp(12), rows: 3, cols: 4, title: 't', maxWidth: 200 });
    const g = f.items.find((it) => it.kind === 'grid');
    expect(gridBox(f)).toEqual({ x: g.x, y: g.y, w: 4 * g.cellW, h: 3 * g.cellH });
  });

  test('columns left to right, the first grids of all columns top-aligned, operators between', () => {
    const short = heatmapFigure({ values: ramp(12), rows: 3, cols: 4, title: 'a', maxWidth: 200 });
    const tall = heatmapFigure({
      values: ramp(16),
      rows: 4,
      cols: 4,
      title: 'a title long enough to need two lines of text in this narrow figure',
      maxWidth: 200,
    });
    const under = heatmapFigure({ values: ramp(4), rows: 2, cols: 2, title: 'crop', maxWidth: 200 });
    const { figure, boxes } = productFigure([[short], '@', [tall, under], '=', [short]], { title: 'A @ B = C' });
    expect(boxes).toHaveLength(3);
    const tops = boxes.map((b) => b.y);
    expect(new Set(tops).size).toBe(1);
    expect(boxes[0].x + boxes[0].w).toBeLessThan(boxes[1].x);
    expect(boxes[1].x + boxes[1].w).toBeLessThan(boxes[2].x);
    const ops = figure.items.filter((it) => it.kind === 'text' && (it.text === '@' || it.text === '='));
    expect(ops.map((o) => o.text)).toEqual(['@', '=']);
    expect(ops[0].x).toBeGreaterThan(boxes[0].x + boxes[0].w);
    expect(ops[0].x).toBeLessThan(boxes[1].x);
    expect(ops[0].y).toBe(boxes[0].y + boxes[0].h / 2);
    // The crop sits under its column's first figure, inside the composed figure.
    const grids = figure.items.filter((it) => it.kind === 'grid');
    expect(grids).toHaveLength(4);
    expect(grids[2].y).toBeGreaterThan(boxes[1].y + boxes[1].h);
    for (const g of grids) expect(g.y + g.rows * g.cellH).toBeLessThanOrEqual(figure.height);
  });
});

test('figures export in rows, as on the page: each row left to right, rows one under another', () => {
  const maps = [3, 4, 5, 6, 7].map((rows) => heatmapFigure({ values: ramp(rows * 3), rows, cols: 3, maxWidth: 120 }));
  const rows = [maps.slice(0, 2), maps.slice(2, 4), maps.slice(4)];
  const out = arrangeFigures(rows, 't', 10);
  const tops = out.items.filter((it) => it.kind === 'grid').map((g) => [g.x, g.y]);
  const firstRow = Math.max(maps[0].height, maps[1].height) + 10;
  const secondRow = firstRow + Math.max(maps[2].height, maps[3].height) + 10;
  const g0 = gridBox(maps[0]);
  expect(tops[1]).toEqual([maps[0].width + 10 + gridBox(maps[1]).x, g0.y]);
  expect(tops[2]).toEqual([gridBox(maps[2]).x, firstRow + gridBox(maps[2]).y]);
  expect(tops[4]).toEqual([gridBox(maps[4]).x, secondRow + gridBox(maps[4]).y]);
  expect(out.width).toBe(Math.max(...rows.map((r) => r.reduce((w, f) => w + f.width, 0) + 10 * (r.length - 1))));
  expect(out.height).toBe(secondRow + maps[4].height + 10);
  // The cell descriptions (the tooltip's and the tables' reading of a cell) move with their maps.
  expect(out.heatmaps[1]).toMatchObject({ x: maps[0].width + 10 + maps[1].heatmaps[0].x, y: maps[1].heatmaps[0].y });
});

describe('W_out: block view and crop', () => {
  test('cropOf takes the top-left corner, row by row', () => {
    const m = Float32Array.from({ length: 12 }, (_, k) => k); // 3 x 4
    expect([...cropOf(m, 4, 2, 3)]).toEqual([0, 1, 2, 4, 5, 6]);
    expect(isPooled(64, 96)).toBe(false);
    expect(isPooled(65, 96)).toBe(true);
    expect(isPooled(6, 97)).toBe(true);
  });

  test("the toy's product has three grids at full resolution; GPT-2's adds a 64 x 64 crop of W_out", () => {
    const toy = (D, rows) => ({
      concat: ramp(rows * D),
      wOut: ramp(D * D, 0.03),
      output: ramp(rows * D, 0.5),
      rows,
      C: D,
      D,
      shapes: { concat: [2, rows / 2, D], wOut: [D, D], output: [2, rows / 2, D] },
      rowLabels: Array.from({ length: rows }, (_, i) => `t${i}`),
      bands: [],
      maxWidth: 640,
    });
    const small = outProjectFigure(toy(6, 12));
    expect(small.cropped).toBe(false);
    expect(small.figure.items.filter((it) => it.kind === 'grid')).toHaveLength(3);
    expect(small.boxes[0].h).toBe(small.boxes[2].h); // concat and output: the same rows
    const big = outProjectFigure(toy(768, 12));
    expect(big.cropped).toBe(true);
    const grids = big.figure.items.filter((it) => it.kind === 'grid');
    expect(grids.map((g) => [g.rows, g.cols])).toEqual([
      [12, 96],
      [64, 96],
      [CROP_SIZE, CROP_SIZE],
      [12, 96],
    ]);
    const titles = big.figure.items.filter((it) => it.kind === 'text').map((it) => it.text);
    expect(titles).toContain('W_out[0:64, 0:64]: every');
    expect(titles.join(' ')).toMatch(
      /out-project: output = concat @ W_out, \(2, 6, 768\) @ \(768, 768\) = \(2, 6, 768\)/,
    );
    // The crop's cells are the weights themselves: as many colours as a 64 x 64 random corner has.
    expect(new Set(grids[2].colours).size).toBeGreaterThan(100);
  });
});
