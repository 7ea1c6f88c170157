// A matrix as a heatmap figure (for the canvas and the SVG export) and as an HTML table (its text
// equivalent for screen readers). Large matrices are drawn as block averages, said in the title;
// which cells and colours is decided in heatmap-cells.js, this file only lays them out.
import { Figure } from './figure.js';
import { textOn } from './colour-scale.js';
import { textWidth, wrapText } from './text-boxes.js';
import { LECTURE_WORDS } from '../lecture/presets.js';
import { headColour } from './head-colours.js';
import {
  cellColours,
  cellText,
  maxAbsVisible,
  MAX_DRAWN_COLS,
  MAX_DRAWN_ROWS,
  poolMatrix,
  pooledRow,
  valuesFit,
} from './heatmap-cells.js';

const MAX_TABLE_CELLS = 1200;

const shortLabel = (label) => (label.length > 12 ? `${label.slice(0, 11)}…` : label);
const SIN45 = Math.SQRT1_2;

/**
 * How column labels stand above cells `cell` px wide: turned 45 degrees when neighbours clear each
 * other, upright (-90) when only that clears them, and then only every `step`-th one.
 */
function columnLabelLayout(cell, size) {
  if (cell * SIN45 >= size + 1) return { rotate: -45, step: 1 };
  return { rotate: -90, step: Math.max(1, Math.ceil((size + 1) / cell)) };
}

const wordOf = (label) => label.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * Which of n labels are drawn when only every `step`-th one fits: first the ones in `must`, in its
 * order (the highlighted row, the peaks of its row, the lecture's words), each unless it would
 * collide with one before it; then the others that keep `step` away from every label already drawn
 * (the others are thinned first).
 */
export function labelledIndices(n, step, must) {
  if (step <= 1) return new Set(Array.from({ length: n }, (_, i) => i));
  const chosen = [];
  const clear = (i) => chosen.every((c) => Math.abs(c - i) >= step);
  for (const i of must) if (i >= 0 && i < n && clear(i)) chosen.push(i);
  for (let i = 0; i < n; i += 1) if (clear(i)) chosen.push(i);
  return new Set(chosen);
}

/** The columns a heatmap labels first: the peaks of the highlighted row, then its key words'. */
function mustLabel(labels, keyWords, o, p) {
  const keys = new Set(keyWords.map(wordOf));
  const must = [];
  const row = o.highlightRow;
  if (row != null && row >= 0 && row < o.rows && p.cb === 1) {
    const offset = (o.offset ?? 0) + row * o.cols;
    const open = [...Array(o.cols).keys()].filter((j) => !o.masked?.(row, j));
    open.sort((a, b) => o.values[offset + b] - o.values[offset + a]);
    // A peak is one of the two largest and at least a quarter of the largest (not a near-zero runner-up).
    const top = o.values[offset + open[0]];
    must.push(...open.slice(0, 2).filter((j) => o.values[offset + j] >= 0.25 * top));
  }
  // The lecture's words in their order (ball, catch, it), each word's last place first (the row read
  // is the sentence's end).
  const places = [...keys].flatMap((word) =>
    labels.flatMap((label, i) => (wordOf(label) === word ? [i] : [])).reverse(),
  );
  return [...must, ...places];
}

/**
 * A heatmap's title as drawn: with the note that it shows block averages when it does, in lines
 * that fit maxWidth, and the height they take (so a layout can budget for it before drawing).
 */
export function heatmapTitle({ title = '', rows, cols, maxWidth = 480, textScale: k = 1 }) {
  const [rb, cb] = [Math.ceil(rows / MAX_DRAWN_ROWS), Math.ceil(cols / MAX_DRAWN_COLS)];
  const note = rb > 1 || cb > 1 ? ` (drawn as ${Math.ceil(rows / rb)} x ${Math.ceil(cols / cb)} block averages)` : '';
  const lines = wrapText(title + note, Math.max(200, maxWidth - 4), 13 * k);
  return { text: title + note, lines, lineHeight: 16 * k, height: 6 * k + 16 * k * lines.length };
}

/**
 * options: values (Float32Array), offset, rows, cols, rowLabels, colLabels, title,
 * scale ('probability' in [0, 1] | 'signed'), maxAbs (a fixed end of the signed scale; default the
 * largest visible |value|), zeroBelow (|values| below it drawn and printed as 0), maxWidth,
 * maxHeight (cells shrink to fit it; rows shorter than their labels label every few rows), cellSize
 * ([width, height] of a cell, instead: maps side by side alike), textScale (every
 * font size times it: a slide's figures read at the slide's size), masked(i, j) and highlightRow in
 * matrix indices (not drawn cells), showValues, digits (decimals of the printed cells, default 1),
 * columnBands: [{ from, to, label }] drawn under the columns (heads in the concatenation), keyWords
 * (tokens always labelled when labels are thinned; default the lecture's words, presets.js).
 * For the cell tooltip: cellLabels (row and column tokens named though not drawn), quantity
 * ('attention' | 'scores' | undefined), headDim, and the other of the pair aligned with `values`
 * (same offset): scores (for an attention map), attention (for scores).
 */
export function heatmapFigure(o) {
  const { values, offset = 0, rows, cols, title = '', scale = 'signed', maxWidth = 480 } = o;
  const k = o.textScale ?? 1;
  const maxHeight = o.maxHeight ?? Infinity;
  const p = poolMatrix(values, rows, cols, { offset, masked: o.masked });
  const rowLabels = p.rb === 1 ? (o.rowLabels ?? []).map(shortLabel) : [];
  const colLabels = p.cb === 1 ? (o.colLabels ?? []).map(shortLabel) : [];
  const fontSize = 12 * k;
  const titleSize = 13 * k;
  const valueSize = 10 * k;
  const gap = 6 * k; // between a label and the cells
  const widest = (labels, weight = 'normal') => Math.max(0, ...labels.map((l) => textWidth(l, fontSize, weight)));
  // Without row labels the first column's upright label (fontSize tall, centred on a cell that may
  // be only a few pixels wide) still needs half its height left of the grid.
  const left = rowLabels.length
    ? Math.ceil(gap + widest(rowLabels, '700') + 2)
    : Math.max(8, Math.ceil(fontSize / 2 + 1));
  const { text: fullTitle, lines: titleLines, lineHeight: titleLine, height: titleHeight } = heatmapTitle(o);
  const bands = o.columnBands ?? [];
  const bottom = bands.length ? Math.ceil(12 * k + 12) : 4;
  const minRow = rowLabels.length ? Math.ceil(fontSize + 1) : 1;
  const colWidth = widest(colLabels);
  const columnSpace = (layout) => {
    if (!colLabels.length) return 0;
    const up = layout.rotate === -45 ? colWidth * SIN45 + fontSize * SIN45 * 0.5 : colWidth;
    return Math.ceil(gap + up + 2);
  };
  const rowHeight = (c) => Math.max(c, minRow, p.rb > 1 || p.r * c < 60 ? Math.min(40, Math.ceil(60 / p.r)) : c);
  // fill: cells as wide as maxWidth allows and as tall as maxHeight does (no taller than wide): a
  // matrix of a few columns across a slide.
  const across = Math.floor((maxWidth - left - 8) / p.c);
  let cell = Math.max(1, o.fill ? across : Math.min(Math.round(40 * k), across));
  let labels = columnLabelLayout(cell, fontSize);
  let top = titleHeight + columnSpace(labels);
  let cellH = rowHeight(cell);
  // Too tall: shorter rows, and cells no wider than the rows are tall (which may turn the column
  // labels upright, so measure twice). Rows shorter than their labels label every few rows.
  for (let pass = 0; pass < 2 && top + p.r * cellH + bottom > maxHeight; pass += 1) {
    cellH = Math.max(1, Math.floor((maxHeight - top - bottom) / p.r));
    if (!o.fill) cell = Math.max(1, Math.min(cell, cellH));
    labels = columnLabelLayout(cell, fontSize);
    top = titleHeight + columnSpace(labels);
  }
  // fill: the rows as tall as the height allows, up to square (or 40 px a row where cells are narrower).
  if (o.fill && Number.isFinite(maxHeight)) {
    const fitH = Math.floor((maxHeight - top - bottom) / p.r);
    cellH = Math.max(1, Math.min(fitH, Math.max(cell, Math.round(40 * k))));
  }
  if (o.cellSize) {
    [cell, cellH] = o.cellSize;
    labels = columnLabelLayout(cell, fontSize);
    top = titleHeight + columnSpace(labels);
  }
  const rowStep = Math.max(1, Math.ceil((fontSize + 1) / cellH));
  const keyWords = o.keyWords ?? LECTURE_WORDS;
  // Row labels taller than their rows reach above the grid: with no column labels there, keep them off the title.
  if (rowLabels.length && !colLabels.length) top += Math.ceil(Math.max(0, (fontSize - cellH) / 2));
  const labelX = (j) => left + j * cell + cell / 2 + (labels.rotate === -45 ? 3 * k : 0);
  const lastLabel = colLabels.length ? labelX(colLabels.length - 1) : 0;
  const labelsRight = colLabels.length
    ? lastLabel + (labels.rotate === -45 ? widest(colLabels.slice(-1)) * SIN45 + fontSize : fontSize / 2) + 2
    : 0;
  const titleWidth = Math.max(...titleLines.map((l) => textWidth(l, titleSize, '600')));
  const figWidth = Math.max(left + p.c * cell + 8, labelsRight, Math.min(maxWidth, titleWidth + 4), titleWidth + 2);
  const fig = new Figure(figWidth, top + p.r * cellH + bottom, fullTitle);
  titleLines.forEach((line, i) => fig.text(0, 6 * k + titleLine * (i + 0.4), line, { size: titleSize, weight: '600' }));
  const zeroBelow = o.zeroBelow ?? 0;
  const maxAbs = scale === 'signed' ? (o.maxAbs ?? maxAbsVisible(values, rows, cols, { offset, masked: o.masked })) : 0;
  const colours = cellColours(p, scale, maxAbs, zeroBelow);
  // Values are printed only when every one fits its cell (by the estimate and as measured); in rows
  // shorter than the text none does, and none is written (thousands of cells, a layout's trial maps).
  const cellTexts = [];
  const mayPrint = o.showValues ?? cellH >= valueSize + 8;
  for (let n = 0; mayPrint && n < colours.length; n += 1) {
    if (p.hidden[n]) continue;
    const i = Math.floor(n / p.c);
    const j = n % p.c;
    const text = cellText(p.mean[n], scale, zeroBelow, o.digits);
    cellTexts.push([left + j * cell + cell / 2, top + i * cellH + cellH / 2, text, textOn(colours[n])]);
  }
  const printed = cellTexts.map((t) => t[2]);
  const measured = Math.max(0, ...printed.map((text) => textWidth(text, valueSize))) <= cell - 4;
  if (!(o.showValues ?? (valuesFit(printed, cell, cellH, valueSize) && measured))) cellTexts.length = 0;
  fig.grid(left, top, cell, cellH, p.r, p.c, colours);
  fig.heatmaps.push(cellDescription(o, p, { x: left, y: top, cellW: cell, cellH }));
  for (const [x, y, text, fill] of cellTexts) fig.text(x, y, text, { size: valueSize, anchor: 'middle', fill });
  const highlight = pooledRow(p, o.highlightRow, rows);
  if (highlight != null) fig.rect(left - 1, top + highlight * cellH - 1, p.c * cell + 2, cellH + 2, null, 'accent2', 3);
  // Rows shorter than their labels: every rowStep-th row is labelled, and the highlighted one
  // always (its neighbours within a step give way to it).
  const marked = o.highlightRow >= 0 && o.highlightRow < rowLabels.length ? o.highlightRow : null;
  const rowKeys = rowLabels.flatMap((label, i) => (keyWords.map(wordOf).includes(wordOf(label)) ? [i] : []));
  const labelledRows = labelledIndices(rowLabels.length, rowStep, marked === null ? rowKeys : [marked, ...rowKeys]);
  rowLabels.forEach((label, i) => {
    if (!labelledRows.has(i)) return;
    // A label on a row thinner than itself is kept inside the figure.
    const y = Math.min(Math.max(top + i * cellH + cellH / 2, titleHeight + fontSize / 2), fig.height - fontSize / 2);
    fig.text(left - gap, y, label, {
      size: fontSize,
      anchor: 'end',
      weight: i === marked ? '700' : 'normal',
      fill: i === marked ? 'accent2' : 'fg',
    });
  });
  const labelledCols = labelledIndices(colLabels.length, labels.step, mustLabel(colLabels, keyWords, o, p));
  colLabels.forEach((label, j) => {
    if (!labelledCols.has(j)) return;
    fig.text(labelX(j), top - gap, label, { size: fontSize, rotate: labels.rotate });
  });
  drawBands(fig, bands, { left, y: top + p.r * cellH + 4, unit: cell / p.cb, k });
  return fig;
}

// Coloured bars under column ranges, labelled "head n", or "n" when that is all that fits, or
// every other one when not even that does.
function drawBands(fig, bands, { left, y, unit, k }) {
  const size = 10 * k;
  const room = Math.min(...bands.map((b) => (b.to - b.from) * unit)) - 4;
  const short = (label) => label.replace(/^head /, '');
  const wide = Math.max(0, ...bands.map((b) => textWidth(b.label, size)));
  const narrow = Math.max(0, ...bands.map((b) => textWidth(short(b.label), size)));
  const name = wide <= room ? (l) => l : short;
  const step = wide <= room || narrow <= room ? 1 : Math.ceil((narrow + 4) / (room + 4));
  bands.forEach((band, n) => {
    const x1 = left + band.from * unit;
    const x2 = left + band.to * unit;
    fig.rect(x1 + 1, y, Math.max(1, x2 - x1 - 2), 4, headColour(n));
    if (n % step === 0)
      fig.text((x1 + x2) / 2, y + 6 + size * 0.7, name(band.label), { size, anchor: 'middle', fill: 'muted' });
  });
}

/**
 * What a drawn heatmap shows, for reading it cell by cell (the cell tooltip): where its grid is in the
 * figure, the pooling, the labels of rows and columns and the numbers behind each cell. The one place
 * the tooltip learns a cell's tokens and values from.
 */
function cellDescription(o, pool, box) {
  return {
    ...box,
    r: pool.r,
    c: pool.c,
    rb: pool.rb,
    cb: pool.cb,
    rows: o.rows,
    cols: o.cols,
    offset: o.offset ?? 0,
    values: o.values,
    mean: pool.mean,
    hidden: pool.hidden,
    masked: o.masked ?? null,
    zeroBelow: o.zeroBelow ?? 0,
    // Labels not drawn (none given, or an empty list on a map that shares its neighbour's axis).
    rowLabels: (o.rowLabels?.length ? o.rowLabels : null) ?? o.cellLabels ?? o.rowLabels ?? null,
    colLabels: (o.colLabels?.length ? o.colLabels : null) ?? o.cellLabels ?? o.colLabels ?? null,
    quantity: o.quantity ?? null,
    headDim: o.headDim ?? null,
    scores: o.quantity === 'scores' ? o.values : (o.scores ?? null),
    attention: o.quantity === 'attention' ? o.values : (o.attention ?? null),
  };
}

/** The matrix as a table (row and column headers), capped in size with a note. */
export function heatmapTable(o) {
  const { values, offset = 0, rows, cols, title, digits = 4 } = o;
  const shownCols = Math.min(cols, Math.max(1, Math.floor(MAX_TABLE_CELLS / rows)));
  const shownRows = Math.min(rows, Math.floor(MAX_TABLE_CELLS / shownCols));
  const table = document.createElement('table');
  const caption = table.createCaption();
  caption.textContent =
    title +
    (shownCols < cols || shownRows < rows
      ? ` (first ${shownRows} of ${rows} rows, ${shownCols} of ${cols} columns; all numbers are in the JSON export)`
      : '');
  const head = table.createTHead().insertRow();
  head.appendChild(document.createElement('th'));
  for (let j = 0; j < shownCols; j += 1) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = o.colLabels?.[j] ?? String(j);
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (let i = 0; i < shownRows; i += 1) {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = o.rowLabels?.[i] ?? String(i);
    tr.appendChild(th);
    for (let j = 0; j < shownCols; j += 1) {
      const masked = o.masked?.(i, j);
      // A negative value that rounds to zero prints as 0, not -0.0000.
      const text = values[offset + i * cols + j].toFixed(digits).replace(/^-(0\.?0*)$/, '$1');
      tr.insertCell().textContent = masked ? 'masked' : text;
    }
  }
  return table;
}
