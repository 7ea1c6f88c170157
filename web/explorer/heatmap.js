// A matrix as a heatmap figure (for the canvas and the SVG export) and as an HTML table (its text
// equivalent for screen readers). Large matrices are drawn as block averages, said in the title;
// which cells and colours is decided in heatmap-cells.js, this file only lays them out.
import { Figure } from './figure.js';
import { textOn } from './colour-scale.js';
import { cellColours, cellText, maxAbsVisible, poolMatrix, pooledRow, valuesFit } from './heatmap-cells.js';

const MAX_TABLE_CELLS = 1200;

const approxTextWidth = (text, size) => text.length * size * 0.58;
/** Splits a title into lines that fit `width` pixels at 13 px. */
export function wrapText(text, width, size = 13) {
  const perLine = Math.max(12, Math.floor(width / (size * 0.58)));
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > perLine) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

const shortLabel = (label) => (label.length > 12 ? `${label.slice(0, 11)}…` : label);

/**
 * options: values (Float32Array), offset, rows, cols, rowLabels, colLabels, title,
 * scale ('probability' in [0, 1] | 'signed'), maxAbs (a fixed end of the signed scale; default the
 * largest visible |value|), zeroBelow (|values| below it drawn and printed as 0), maxWidth,
 * masked(i, j) and highlightRow in matrix
 * indices (not drawn cells), showValues,
 * columnBands: [{ from, to, label }] drawn under the columns (heads in the concatenation).
 * For the cell tooltip: cellLabels (row and column tokens named though not drawn), quantity
 * ('attention' | 'scores' | undefined), headDim, and the other of the pair aligned with `values`
 * (same offset): scores (for an attention map), attention (for scores).
 */
export function heatmapFigure(o) {
  const { values, offset = 0, rows, cols, title = '', scale = 'signed', maxWidth = 480 } = o;
  const p = poolMatrix(values, rows, cols, { offset, masked: o.masked });
  const rowLabels = p.rb === 1 ? (o.rowLabels ?? []) : [];
  const colLabels = p.cb === 1 ? (o.colLabels ?? []) : [];
  const fontSize = 12;
  const labelWidth = (labels) => Math.max(...labels.map((l) => approxTextWidth(shortLabel(l), fontSize)));
  const left = rowLabels.length ? Math.min(96, 8 + labelWidth(rowLabels)) : 8;
  const pooledNote = p.rb > 1 || p.cb > 1 ? ` (drawn as ${p.r} x ${p.c} block averages)` : '';
  const titleLines = wrapText(title + pooledNote, Math.max(200, maxWidth - 8));
  const top = 6 + 16 * titleLines.length + (colLabels.length ? Math.min(72, 10 + labelWidth(colLabels) * 0.72) : 0);
  const bands = o.columnBands ?? [];
  const bottom = bands.length ? 22 : 4;
  const cell = Math.max(1, Math.min(40, Math.floor((maxWidth - left - 8) / p.c)));
  const cellH = Math.max(cell, p.rb > 1 || p.r * cell < 60 ? Math.min(40, Math.ceil(60 / p.r)) : cell);
  const titleWidth = Math.max(...titleLines.map((l) => approxTextWidth(l, 13)));
  const figWidth = Math.max(left + p.c * cell + 8, Math.min(maxWidth, titleWidth + 4));
  const fig = new Figure(figWidth, top + p.r * cellH + bottom, title + pooledNote);
  titleLines.forEach((line, i) => fig.text(0, 10 + 16 * i, line, { size: 13, weight: '600' }));
  const zeroBelow = o.zeroBelow ?? 0;
  const maxAbs = scale === 'signed' ? (o.maxAbs ?? maxAbsVisible(values, rows, cols, { offset, masked: o.masked })) : 0;
  const colours = cellColours(p, scale, maxAbs, zeroBelow);
  // Values are printed only when every one fits its cell (cells under 12 px hold none).
  const valueSize = 10;
  const cellTexts = [];
  if (o.showValues ?? cell >= 12) {
    for (let k = 0; k < colours.length; k += 1) {
      if (p.hidden[k]) continue;
      const i = Math.floor(k / p.c);
      const j = k % p.c;
      const v = p.mean[k];
      const text = cellText(v, scale, zeroBelow);
      cellTexts.push([left + j * cell + cell / 2, top + i * cellH + cellH / 2, text, textOn(colours[k])]);
    }
  }
  const printed = cellTexts.map((t) => t[2]);
  if (!(o.showValues ?? valuesFit(printed, cell, cellH, valueSize))) cellTexts.length = 0;
  fig.grid(left, top, cell, cellH, p.r, p.c, colours);
  fig.heatmaps.push(cellDescription(o, p, { x: left, y: top, cellW: cell, cellH }));
  for (const [x, y, text, fill] of cellTexts) fig.text(x, y, text, { size: valueSize, anchor: 'middle', fill });
  const highlight = pooledRow(p, o.highlightRow, rows);
  if (highlight != null) fig.rect(left - 1, top + highlight * cellH - 1, p.c * cell + 2, cellH + 2, null, 'accent2', 3);
  rowLabels.forEach((label, i) =>
    fig.text(left - 6, top + i * cellH + cellH / 2, shortLabel(label), {
      size: fontSize,
      anchor: 'end',
      weight: i === o.highlightRow ? '700' : 'normal',
      fill: i === o.highlightRow ? 'accent2' : 'fg',
    }),
  );
  colLabels.forEach((label, j) => {
    fig.text(left + j * cell + cell / 2 + 3, top - 6, shortLabel(label), { size: fontSize, rotate: -45 });
  });
  bands.forEach((band, k) => {
    const x1 = left + (band.from / p.cb) * cell;
    const x2 = left + (band.to / p.cb) * cell;
    const y = top + p.r * cellH + 4;
    fig.rect(x1 + 1, y, Math.max(1, x2 - x1 - 2), 4, k % 2 ? 'accent2' : 'accent');
    if (x2 - x1 > 30) fig.text((x1 + x2) / 2, y + 12, band.label, { size: 11, anchor: 'middle', fill: 'muted' });
  });
  return fig;
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
    rowLabels: o.rowLabels ?? o.cellLabels ?? null,
    colLabels: o.colLabels ?? o.cellLabels ?? null,
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
