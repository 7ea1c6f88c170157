// A matrix product drawn as one figure, left to right: A @ B = C. Each term is a column of
// figures (a heatmap, and under it e.g. a crop of the same matrix); the first figure of every
// column is moved down so that its grid's top lines up with the others', and the operators sit
// between the columns at the height of the first grid's middle rows.
import { Figure, movedItem } from './figure.js';
import { textWidth, wrapText } from './text-boxes.js';

/** The width of an operator's column (times the text scale). */
export const OPERATOR_WIDTH = 28;

/** Where a figure's (first) grid of cells is, in its own coordinates; null when it has none. */
export function gridBox(figure) {
  const grid = figure.items.find((it) => it.kind === 'grid');
  if (!grid) return null;
  return { x: grid.x, y: grid.y, w: grid.cols * grid.cellW, h: grid.rows * grid.cellH };
}

/**
 * terms: an array of strings (operators such as '@', '=') and arrays of figures (one column each,
 * stacked top to bottom). Returns the composed figure and where each column landed
 * ({ x, y, w, h } of each column's first grid, in the order of the columns). stacked: the terms top
 * to bottom instead (a narrow screen), each operator on its own line under the term before it.
 */
export function productFigure(
  terms,
  { title = '', gap = 12, maxWidth = 1100, textScale: k = 1, stacked = false } = {},
) {
  const columns = terms.filter((t) => typeof t !== 'string');
  const gridTop = Math.max(0, ...columns.map((figures) => gridBox(figures[0])?.y ?? 0));
  const titleLines = title ? wrapText(title, Math.max(200, maxWidth - 8), 13 * k) : [];
  const top = titleLines.length ? 8 * k + 16 * k * titleLines.length : 0;
  const first = gridBox(columns[0][0]);
  const operatorY = top + gridTop + (first ? first.h / 2 : 0);
  const placed = [];
  const boxes = [];
  let x = 0;
  let height = top;
  const place = (term, left, y) => {
    term.forEach((figure, i) => {
      if (i === 0) {
        const box = gridBox(figure);
        boxes.push(box ? { x: left + box.x, y: y + box.y, w: box.w, h: box.h } : null);
      }
      placed.push({ figure, x: left, y });
      y += figure.height + gap;
    });
    return y - gap;
  };
  if (stacked) {
    // The operators under the first grid's middle column.
    const middle = first ? first.x + first.w / 2 : (OPERATOR_WIDTH * k) / 2;
    for (const term of terms) {
      if (typeof term === 'string') {
        placed.push({ text: term, x: middle, y: height + (OPERATOR_WIDTH * k) / 2 });
        height += OPERATOR_WIDTH * k;
      } else height = place(term, 0, height);
      x = Math.max(x, typeof term === 'string' ? 0 : Math.max(...term.map((f) => f.width)));
    }
  } else {
    for (const term of terms) {
      if (typeof term === 'string') {
        placed.push({ text: term, x: x + (OPERATOR_WIDTH * k) / 2, y: operatorY });
        x += OPERATOR_WIDTH * k;
        continue;
      }
      height = Math.max(height, place(term, x, top + gridTop - (gridBox(term[0])?.y ?? 0)));
      x += Math.max(...term.map((f) => f.width));
    }
  }
  const titleWidth = Math.max(0, ...titleLines.map((l) => textWidth(l, 13 * k, '600')));
  const out = new Figure(Math.max(x, Math.min(maxWidth, titleWidth + 4)), height + 4, title);
  titleLines.forEach((line, i) => out.text(0, 10 * k + 16 * k * i, line, { size: 13 * k, weight: '600' }));
  for (const p of placed) {
    if (p.text) out.text(p.x, p.y, p.text, { size: 20 * k, anchor: 'middle', weight: '600' });
    else for (const item of p.figure.items) out.items.push(movedItem(item, p.x, p.y));
  }
  return { figure: out, boxes };
}
