// A matrix as a heatmap figure (for the canvas and the SVG export) and as an HTML table (its text
// equivalent for screen readers). Large matrices are drawn as block averages, said in the title.
import { Figure } from './figure.js';
import { diverging, textOn, viridis } from './colour-scale.js';

const MAX_DRAWN_ROWS = 64;
const MAX_DRAWN_COLS = 96;
const MAX_TABLE_CELLS = 1200;

const approxTextWidth = (text, size) => text.length * size * 0.58;
/** Splits a title into lines that fit `width` pixels at 13 px. */
export function wrapText(text, width, size = 13) {
  const perLine = Math.max(12, Math.floor(width / (size * 0.58)));
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && (line.length + 1 + word.length) > perLine) { lines.push(line); line = word; } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

const shortLabel = (label) => (label.length > 12 ? `${label.slice(0, 11)}…` : label);

function pooled(values, rows, cols, offset) {
  const rb = Math.ceil(rows / MAX_DRAWN_ROWS);
  const cb = Math.ceil(cols / MAX_DRAWN_COLS);
  if (rb === 1 && cb === 1) return { rb, cb, r: rows, c: cols, at: (i, j) => values[offset + i * cols + j] };
  const r = Math.ceil(rows / rb);
  const c = Math.ceil(cols / cb);
  const out = new Float32Array(r * c);
  for (let i = 0; i < r; i += 1) {
    for (let j = 0; j < c; j += 1) {
      let sum = 0;
      let n = 0;
      for (let a = i * rb; a < Math.min(rows, (i + 1) * rb); a += 1) {
        for (let b = j * cb; b < Math.min(cols, (j + 1) * cb); b += 1) { sum += values[offset + a * cols + b]; n += 1; }
      }
      out[i * c + j] = sum / n;
    }
  }
  return { rb, cb, r, c, at: (i, j) => out[i * c + j] };
}

/**
 * options: values (Float32Array), offset, rows, cols, rowLabels, colLabels, title,
 * scale ('probability' in [0, 1] | 'signed'), maxWidth, masked(i, j), highlightRow, showValues,
 * columnBands: [{ from, to, label }] drawn under the columns (heads in the concatenation).
 */
export function heatmapFigure(o) {
  const { values, offset = 0, rows, cols, title = '', scale = 'signed', maxWidth = 480 } = o;
  const p = pooled(values, rows, cols, offset);
  const rowLabels = p.rb === 1 ? (o.rowLabels ?? []) : [];
  const colLabels = p.cb === 1 ? (o.colLabels ?? []) : [];
  const fontSize = 12;
  const left = rowLabels.length ? Math.min(96, 8 + Math.max(...rowLabels.map((l) => approxTextWidth(shortLabel(l), fontSize)))) : 8;
  const pooledNote = p.rb > 1 || p.cb > 1 ? ` (drawn as ${p.r} x ${p.c} block averages)` : '';
  const titleLines = wrapText(title + pooledNote, Math.max(200, maxWidth - 8));
  const top = 6 + 16 * titleLines.length + (colLabels.length ? Math.min(72, 10 + Math.max(...colLabels.map((l) => approxTextWidth(shortLabel(l), fontSize))) * 0.72) : 0);
  const bands = o.columnBands ?? [];
  const bottom = bands.length ? 22 : 4;
  const cell = Math.max(1, Math.min(40, Math.floor((maxWidth - left - 8) / p.c)));
  const cellH = Math.max(cell, p.rb > 1 || p.r * cell < 60 ? Math.min(40, Math.ceil(60 / p.r)) : cell);
  const titleWidth = Math.max(...titleLines.map((l) => approxTextWidth(l, 13)));
  const fig = new Figure(Math.max(left + p.c * cell + 8, Math.min(maxWidth, titleWidth + 4)), top + p.r * cellH + bottom, title + pooledNote);
  titleLines.forEach((line, i) => fig.text(0, 10 + 16 * i, line, { size: 13, weight: '600' }));
  let maxAbs = 0;
  if (scale === 'signed') for (let i = 0; i < rows * cols; i += 1) maxAbs = Math.max(maxAbs, Math.abs(values[offset + i]));
  const showValues = o.showValues ?? (cell >= 30 && cellH >= 22);
  const colours = new Array(p.r * p.c);
  const cellTexts = [];
  for (let i = 0; i < p.r; i += 1) {
    for (let j = 0; j < p.c; j += 1) {
      if (o.masked?.(i, j)) { colours[i * p.c + j] = 'grid'; continue; }
      const v = p.at(i, j);
      const fill = scale === 'probability' ? viridis(v) : diverging(v, maxAbs);
      colours[i * p.c + j] = fill;
      if (showValues) cellTexts.push([left + j * cell + cell / 2, top + i * cellH + cellH / 2, scale === 'probability' ? v.toFixed(2).replace(/^0/, '') : v.toFixed(1), textOn(fill)]);
    }
  }
  fig.grid(left, top, cell, cellH, p.r, p.c, colours);
  for (const [x, y, text, fill] of cellTexts) fig.text(x, y, text, { size: 10, anchor: 'middle', fill });
  if (o.highlightRow != null && o.highlightRow >= 0 && o.highlightRow < p.r) {
    fig.rect(left - 1, top + o.highlightRow * cellH - 1, p.c * cell + 2, cellH + 2, null, 'accent2', 3);
  }
  rowLabels.forEach((label, i) => fig.text(left - 6, top + i * cellH + cellH / 2, shortLabel(label), {
    size: fontSize, anchor: 'end', weight: i === o.highlightRow ? '700' : 'normal', fill: i === o.highlightRow ? 'accent2' : 'fg',
  }));
  colLabels.forEach((label, j) => fig.text(left + j * cell + cell / 2 + 3, top - 6, shortLabel(label), { size: fontSize, rotate: -45 }));
  bands.forEach((band, k) => {
    const x1 = left + (band.from / p.cb) * cell;
    const x2 = left + (band.to / p.cb) * cell;
    const y = top + p.r * cellH + 4;
    fig.rect(x1 + 1, y, Math.max(1, x2 - x1 - 2), 4, k % 2 ? 'accent2' : 'accent');
    if (x2 - x1 > 30) fig.text((x1 + x2) / 2, y + 12, band.label, { size: 11, anchor: 'middle', fill: 'muted' });
  });
  return fig;
}

/** The matrix as a table (row and column headers), capped in size with a note. */
export function heatmapTable(o) {
  const { values, offset = 0, rows, cols, title, digits = 4 } = o;
  const shownCols = Math.min(cols, Math.max(1, Math.floor(MAX_TABLE_CELLS / rows)));
  const shownRows = Math.min(rows, Math.floor(MAX_TABLE_CELLS / shownCols));
  const table = document.createElement('table');
  const caption = table.createCaption();
  caption.textContent = title + (shownCols < cols || shownRows < rows
    ? ` (first ${shownRows} of ${rows} rows, ${shownCols} of ${cols} columns; all numbers are in the JSON export)` : '');
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
      tr.insertCell().textContent = masked ? 'masked' : values[offset + i * cols + j].toFixed(digits);
    }
  }
  return table;
}
