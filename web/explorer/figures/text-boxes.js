// Where a figure's text lands: the box of each text item (its measured width, one em tall, turned
// by its rotation), and the problems a reader would see: two labels on top of each other, a label
// over a curve, a label cut at the figure's edge. Figure builders measure with textWidth; tests
// check every figure with textProblems.
import { FONT } from './figure.js';

let context = null;
const widths = new Map();

/** The width of `text` in px at `size` px: measured on a canvas in a browser, estimated elsewhere. */
export function textWidth(text, size, weight = 'normal') {
  const key = `${weight}|${text}`;
  let perPx = widths.get(key);
  if (perPx === undefined) {
    context ??= globalThis.document?.createElement('canvas').getContext('2d') ?? false;
    if (context) {
      context.font = `${weight} 100px ${FONT}`;
      perPx = context.measureText(text).width / 100;
    } else perPx = String(text).length * (weight === 'normal' ? 0.58 : 0.64);
    if (widths.size > 5000) widths.clear();
    widths.set(key, perPx);
  }
  return perPx * size;
}

/** Splits a title into lines that fit `width` pixels at `size` px (bold, as titles are drawn). */
export function wrapText(text, width, size = 13, weight = '600') {
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    const longer = line ? `${line} ${word}` : word;
    if (line && textWidth(longer, size, weight) > width) {
      lines.push(line);
      line = word;
    } else line = longer;
  }
  if (line) lines.push(line);
  return lines;
}

/** The four corners of a text item's box (figure coordinates), as it is drawn (baseline 'middle'). */
export function textBox(item, width = textWidth(item.text, item.size, item.weight)) {
  const x0 = item.anchor === 'middle' ? -width / 2 : item.anchor === 'end' ? -width : 0;
  const h = item.size / 2;
  const corners = [
    [x0, -h],
    [x0 + width, -h],
    [x0 + width, h],
    [x0, h],
  ];
  const a = ((item.rotate ?? 0) * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  return corners.map(([x, y]) => [item.x + x * cos - y * sin, item.y + x * sin + y * cos]);
}

// Separating axes: two convex polygons are apart when their projections on some edge normal are.
function apart(a, b, margin) {
  for (const poly of [a, b]) {
    for (let i = 0; i < poly.length; i += 1) {
      const [x1, y1] = poly[i];
      const [x2, y2] = poly[(i + 1) % poly.length];
      const length = Math.hypot(x2 - x1, y2 - y1) || 1;
      const nx = (y1 - y2) / length;
      const ny = (x2 - x1) / length;
      const project = (p) => p.map(([x, y]) => x * nx + y * ny);
      const pa = project(a);
      const pb = project(b);
      if (Math.max(...pa) - margin <= Math.min(...pb) || Math.max(...pb) - margin <= Math.min(...pa)) return true;
    }
  }
  return false;
}

/** Whether two boxes (or a box and a segment, given as two points) overlap by more than `margin` px. */
export const overlaps = (a, b, margin = 0.5) => !apart(a, b, margin);

/**
 * Every problem with the text of a figure ({ width, height, items }): pairs of overlapping text
 * boxes, text crossing a polyline (a curve), text outside the figure. Each problem is a string.
 */
export function textProblems(figure, measure = textWidth) {
  const texts = figure.items.filter((it) => it.kind === 'text' && it.text.trim() !== '');
  const boxes = texts.map((it) => textBox(it, measure(it.text, it.size, it.weight)));
  const problems = [];
  const name = (it) => JSON.stringify(it.text);
  boxes.forEach((box, i) => {
    const xs = box.map((p) => p[0]);
    const ys = box.map((p) => p[1]);
    const [l, r, t, b] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    if (l < -0.5 || t < -0.5 || r > figure.width + 0.5 || b > figure.height + 0.5)
      problems.push(`${name(texts[i])} leaves the figure (${figure.width} x ${figure.height}): ${box.join(' ')}`);
    for (let j = i + 1; j < boxes.length; j += 1) {
      if (overlaps(box, boxes[j])) problems.push(`${name(texts[i])} overlaps ${name(texts[j])}`);
    }
  });
  for (const line of figure.items.filter((it) => it.kind === 'polyline')) {
    for (let k = 1; k < line.points.length; k += 1) {
      const segment = [line.points[k - 1], line.points[k]];
      boxes.forEach((box, i) => {
        if (overlaps(box, segment, 0)) problems.push(`${name(texts[i])} lies on a curve`);
      });
    }
  }
  return [...new Set(problems)];
}
