// The heatmap as drawn: every cell's colour in the figure's grid against a plain loop that pools
// the matrix into blocks (at most 64 x 96 of them), leaves out masked entries and colours the rest.
import { describe, expect, test } from 'vitest';
import { heatmapFigure } from '../../web/explorer/figures/heatmap.js';
import { diverging, viridis } from '../../web/explorer/figures/colour-scale.js';
import { maxAbsVisible, poolMatrix, pooledRow } from '../../web/explorer/figures/heatmap-cells.js';

const causal = (i, j) => j > i;

// A deterministic stand-in for attention: row i is a softmax over columns 0..i, zeros after.
function causalAttention(T, seed = 7) {
  let s = seed;
  const random = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const a = new Float32Array(T * T);
  for (let i = 0; i < T; i += 1) {
    let sum = 0;
    for (let j = 0; j <= i; j += 1) {
      a[i * T + j] = Math.exp(3 * random());
      sum += a[i * T + j];
    }
    for (let j = 0; j <= i; j += 1) a[i * T + j] /= sum;
  }
  return a;
}

// What each drawn cell should be: the mean of its block's visible entries, or null when every
// entry of the block is masked.
function expectedCells(values, rows, cols, masked = () => false) {
  const rb = Math.ceil(rows / 64);
  const cb = Math.ceil(cols / 96);
  const r = Math.ceil(rows / rb);
  const c = Math.ceil(cols / cb);
  const cells = [];
  for (let i = 0; i < r; i += 1) {
    for (let j = 0; j < c; j += 1) {
      let sum = 0;
      let n = 0;
      for (let a = i * rb; a < Math.min(rows, (i + 1) * rb); a += 1) {
        for (let b = j * cb; b < Math.min(cols, (j + 1) * cb); b += 1) {
          if (!masked(a, b)) {
            sum += values[a * cols + b];
            n += 1;
          }
        }
      }
      cells.push(n ? sum / n : null);
    }
  }
  return { rb, cb, r, c, cells };
}

const gridOf = (figure) => figure.items.find((it) => it.kind === 'grid');

describe('heatmap cells', () => {
  test('T = 200, causal: every pooled cell is its block mean, masked only when the whole block is', () => {
    const T = 200;
    const values = causalAttention(T);
    const want = expectedCells(values, T, T, causal);
    const grid = gridOf(heatmapFigure({ values, rows: T, cols: T, scale: 'probability', masked: causal }));
    expect([grid.rows, grid.cols]).toEqual([want.r, want.c]);
    expect([want.rb, want.cb, want.r, want.c]).toEqual([4, 3, 50, 67]);
    const lastRow = grid.colours.slice((want.r - 1) * want.c);
    expect(lastRow.filter((colour) => colour === 'masked').length, 'masked cells drawn in the last row').toBe(0);
    // First block row (rows 0..3): blocks 0 and 1 (columns 0..5) hold visible entries, 2..66 none.
    expect(grid.colours.slice(0, want.c).filter((colour) => colour === 'masked').length).toBe(65);
    want.cells.forEach((v, k) => {
      expect(grid.colours[k], `cell ${Math.floor(k / want.c)}, ${k % want.c}`).toBe(v === null ? 'masked' : viridis(v));
    });
  });

  test('small matrices are drawn cell for cell; the mask is asked with the matrix indices', () => {
    const T = 12;
    const values = causalAttention(T, 3);
    const grid = gridOf(heatmapFigure({ values, rows: T, cols: T, scale: 'probability', masked: causal }));
    expect([grid.rows, grid.cols]).toEqual([T, T]);
    for (let i = 0; i < T; i += 1) {
      for (let j = 0; j < T; j += 1)
        expect(grid.colours[i * T + j]).toBe(j > i ? 'masked' : viridis(values[i * T + j]));
    }
  });

  test('signed values: pooled means on the diverging scale, symmetric about the largest |value|', () => {
    const rows = 130;
    const cols = 200;
    const offset = 5;
    const values = new Float32Array(offset + rows * cols);
    for (let k = 0; k < rows * cols; k += 1) values[offset + k] = Math.sin(0.37 * k) * (1 + (k % 7));
    let maxAbs = 0;
    for (let k = 0; k < rows * cols; k += 1) maxAbs = Math.max(maxAbs, Math.abs(values[offset + k]));
    const want = expectedCells(values.subarray(offset), rows, cols);
    const figure = heatmapFigure({ values, offset, rows, cols, scale: 'signed' });
    const grid = gridOf(figure);
    expect([grid.rows, grid.cols]).toEqual([want.r, want.c]);
    want.cells.forEach((v, k) => expect(grid.colours[k]).toBe(diverging(v, maxAbs)));
    expect(figure.title).toContain(`drawn as ${want.r} x ${want.c} block averages`);
  });

  test('the highlighted row is given in matrix rows and drawn around its block', () => {
    const T = 200;
    const values = causalAttention(T);
    for (const [row, block] of [
      [199, 49],
      [0, 0],
      [130, 32],
    ]) {
      const options = { values, rows: T, cols: T, scale: 'probability', masked: causal, highlightRow: row };
      const figure = heatmapFigure(options);
      const grid = gridOf(figure);
      const frame = figure.items.filter((it) => it.kind === 'rect' && it.stroke === 'accent2');
      expect(frame.length, `row ${row}`).toBe(1);
      expect(frame[0].y).toBe(grid.y + block * grid.cellH - 1);
      expect(frame[0].h).toBe(grid.cellH + 2);
    }
  });
});

describe('poolMatrix and maxAbsVisible', () => {
  test('masked entries (here -Infinity scores) enter neither a block mean nor the signed scale', () => {
    const rows = 130;
    const scores = new Float32Array(rows * rows);
    for (let i = 0; i < rows; i += 1) {
      for (let j = 0; j < rows; j += 1) scores[i * rows + j] = j > i ? -Infinity : Math.cos(i + 2 * j);
    }
    const pool = poolMatrix(scores, rows, rows, { masked: causal });
    const want = expectedCells(scores, rows, rows, causal);
    expect([pool.rb, pool.cb, pool.r, pool.c]).toEqual([want.rb, want.cb, want.r, want.c]);
    want.cells.forEach((v, k) => {
      expect(pool.hidden[k]).toBe(v === null ? 1 : 0);
      if (v !== null) expect(Math.abs(pool.mean[k] - v)).toBeLessThanOrEqual(1e-12 + 1e-12 * Math.abs(v));
    });
    let maxAbs = 0;
    for (let i = 0; i < rows; i += 1) {
      for (let j = 0; j <= i; j += 1) maxAbs = Math.max(maxAbs, Math.abs(scores[i * rows + j]));
    }
    expect(maxAbsVisible(scores, rows, rows, { masked: causal })).toBe(maxAbs);
    expect(pooledRow(pool, rows, rows)).toBe(null);
    expect(pooledRow(pool, -1, rows)).toBe(null);
    expect(pooledRow(pool, rows - 1, rows)).toBe(want.r - 1);
  });
});
