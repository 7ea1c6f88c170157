// What a heatmap draws, without drawing it: a matrix pooled into at most MAX_DRAWN_ROWS x
// MAX_DRAWN_COLS blocks, which blocks are masked, and each cell's colour. Pure, so tests check it
// against a plain loop.
import { diverging, viridis } from './colour-scale.js';

export const MAX_DRAWN_ROWS = 64;
export const MAX_DRAWN_COLS = 96;

/**
 * Pools rows x cols values (row-major from `offset`) into r x c blocks of rb x cb entries.
 * A block's value is the mean of its visible entries; it is masked only when `masked(i, j)`, asked
 * with matrix indices, holds for every entry. Masked entries never enter a mean: they may hold
 * -Infinity (scores) or zeros (attention) that say nothing about what is shown.
 */
export function poolMatrix(values, rows, cols, { offset = 0, masked = null } = {}) {
  const rb = Math.ceil(rows / MAX_DRAWN_ROWS);
  const cb = Math.ceil(cols / MAX_DRAWN_COLS);
  const r = Math.ceil(rows / rb);
  const c = Math.ceil(cols / cb);
  const mean = new Float64Array(r * c);
  const hidden = new Uint8Array(r * c);
  for (let i = 0; i < r; i += 1) {
    for (let j = 0; j < c; j += 1) {
      let sum = 0;
      let n = 0;
      for (let a = i * rb; a < Math.min(rows, (i + 1) * rb); a += 1) {
        for (let b = j * cb; b < Math.min(cols, (j + 1) * cb); b += 1) {
          if (!masked?.(a, b)) {
            sum += values[offset + a * cols + b];
            n += 1;
          }
        }
      }
      if (n) mean[i * c + j] = sum / n;
      else hidden[i * c + j] = 1;
    }
  }
  return { rb, cb, r, c, mean, hidden };
}

/** The largest |value| over the visible, finite entries: the end of a signed scale. */
export function maxAbsVisible(values, rows, cols, { offset = 0, masked = null } = {}) {
  let maxAbs = 0;
  for (let i = 0; i < rows; i += 1) {
    for (let j = 0; j < cols; j += 1) {
      const v = Math.abs(values[offset + i * cols + j]);
      if (Number.isFinite(v) && v > maxAbs && !masked?.(i, j)) maxAbs = v;
    }
  }
  return maxAbs;
}

/**
 * One colour per pooled cell: 'masked' (the theme's colour for masked cells) when masked. On the signed scale a
 * value with |v| < zeroBelow is drawn as zero (differences below float32 resolution).
 */
export function cellColours(pool, scale, maxAbs = 0, zeroBelow = 0) {
  const colours = new Array(pool.r * pool.c);
  for (let k = 0; k < colours.length; k += 1) {
    const v = pool.mean[k];
    if (pool.hidden[k]) colours[k] = 'masked';
    else if (scale === 'probability') colours[k] = viridis(v);
    else colours[k] = diverging(Math.abs(v) < zeroBelow ? 0 : v, maxAbs);
  }
  return colours;
}

/** A cell's printed value: one decimal (two for probabilities, without the leading 0), never "-0.0". */
export function cellText(v, scale, zeroBelow = 0, digits = 1) {
  if (scale === 'probability') return v.toFixed(2).replace(/^0/, '');
  const text = (Math.abs(v) < zeroBelow ? 0 : v).toFixed(digits);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** Whether every printed value fits its cell at `size` px (a few px clear of each edge). */
export function valuesFit(texts, cellW, cellH, size) {
  return cellH >= size + 8 && texts.every((text) => text.length * size * 0.58 + 6 <= cellW);
}

/** A number as the cell tooltip prints it: 4 significant digits, exponent form when tiny or huge, never "-0". */
export function readingText(v) {
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (Number.isNaN(v)) return 'NaN';
  if (v === 0) return '0';
  const a = Math.abs(v);
  const text = a >= 1e-3 && a < 1e5 ? v.toPrecision(4) : v.toExponential(3);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** The pooled row that holds matrix row `row`, or null when there is none. */
export function pooledRow(pool, row, rows) {
  return row != null && row >= 0 && row < rows ? Math.floor(row / pool.rb) : null;
}
