// Bar charts (one attention row) and a log-log line chart (the heads sweep), as figures.
import { Figure } from './figure.js';
import { textWidth, wrapText } from './text-boxes.js';

const SIN45 = Math.SQRT1_2;

/**
 * rows: [{ name, values }] drawn as groups of bars over the same labels, values in [0, 1]; height
 * is one row's; textScale multiplies every font size (and the room kept for text); ticks: false
 * leaves out the 0 / 0.5 / 1 labels on the left (the bars carry their values; two charts then fit
 * side by side in half a slide). Bars are the theme's accent (contrast >= 3:1 against its background);
 * their height is the value.
 */
export function barsFigure({ rows, labels, title, maxWidth = 480, textScale: k = 1, ticks: withTicks = true, ...o }) {
  const height = (o.height ?? 150) * k;
  const [titleSize, nameSize, valueSize, labelSize] = [13 * k, 11 * k, 10 * k, 11 * k];
  const shown = labels.map((label) => (label.length > 10 ? `${label.slice(0, 9)}…` : label));
  const left = withTicks ? Math.ceil(4 * k + textWidth('0.5', valueSize) + 4) : 2;
  const top = Math.ceil(titleSize * 1.4 + 4 * k);
  const groupGap = 10 * k;
  // Neighbouring labels, turned 45 degrees, clear each other when the bands are this wide.
  const minBand = Math.ceil((labelSize + 1) / SIN45);
  const band = Math.max(minBand, Math.min(Math.round(44 * k), Math.floor((maxWidth - left - 10) / labels.length)));
  const widest = Math.max(0, ...shown.map((l) => textWidth(l, labelSize)));
  const labelSpace = Math.ceil(4 * k + (widest + labelSize / 2) * SIN45 + 4);
  const labelX = (i) => left + i * band + band / 2 + 2 * k;
  const right = labelX(labels.length - 1) + (textWidth(shown.at(-1) ?? '', labelSize) + labelSize / 2) * SIN45 + 2;
  const width = Math.max(
    left + band * labels.length + (withTicks ? 10 : 2),
    right,
    textWidth(title, titleSize, '600') + 2,
  );
  const fig = new Figure(width, top + rows.length * (height + groupGap) + labelSpace, title);
  fig.text(0, titleSize * 0.7, title, { size: titleSize, weight: '600' });
  // Each row: its name, room for the value over a full bar, then the bars.
  const head = Math.ceil(nameSize * 1.2 + valueSize * 1.2 + 2);
  const plot = Math.max(valueSize * 2, height - head);
  const ticks = plot >= valueSize * 2.4 ? [0, 0.5, 1] : [0, 1];
  // Values read "0.50" and "1.00", as the text says them, at the figure's value size: where that is
  // wider than a bar it reaches over the empty bars beside it, and a value with no room is left out
  // (its table has it). Smaller type would raise the floor a slide's figures may shrink to.
  const valueText = (v) => v.toFixed(2);
  const boxOf = (x, y, text, size, anchor) => {
    const w = textWidth(text, size);
    const x0 = anchor === 'middle' ? x - w / 2 : anchor === 'end' ? x - w : x;
    return [x0 - 1, x0 + w + 1, y - size / 2, y + size / 2];
  };
  const apart = (a, b) => a[1] <= b[0] || b[1] <= a[0] || a[3] <= b[2] || b[3] <= a[2];
  rows.forEach((row, r) => {
    const y0 = top + r * (height + groupGap);
    const base = y0 + head + plot;
    // The boxes of the text in this row: a value label goes where it clears them all.
    const taken = [];
    const text = (x, y, t, style) => {
      fig.text(x, y, t, style);
      taken.push(boxOf(x, y, t, style.size, style.anchor));
    };
    text(left, y0 + nameSize * 0.6, row.name, { size: nameSize, fill: 'muted' });
    fig.line(left, base, left + band * labels.length, base, 'grid');
    // The 0 of a row with another under it is left out: the next row's name stands at its height
    // when rows are squeezed (a slide), and read "0.0 head 2"; the base line says 0.
    const rowTicks = r < rows.length - 1 ? ticks.filter((t) => t > 0) : ticks;
    if (withTicks)
      for (const tick of rowTicks)
        text(left - 4 * k, base - tick * plot, tick.toFixed(1), { size: valueSize, anchor: 'end', fill: 'muted' });
    const bars = row.values.map((v, i) => {
      const h = Math.max(0, v) * plot;
      const x = left + i * band + 2;
      fig.rect(x, base - h, band - 4, h, row.colour ?? 'accent'); // a head's row: its colour (head-colours.js)
      return { v, x, top: base - h, box: [x, x + band - 4, base - h, base] };
    });
    // The value over its bar, largest first, where it clears the text and the bars around it: it
    // may reach over a neighbour's band where that neighbour's bar stays below it.
    const order = bars.filter((b) => b.v >= 0.05).sort((a, b) => b.v - a.v);
    for (const b of order) {
      const t = valueText(b.v);
      const y = b.top - valueSize * 0.6 - 1;
      const box = boxOf(b.x + (band - 4) / 2, y, t, valueSize, 'middle');
      const inside = box[0] >= -0.5 && box[1] <= width + 0.5;
      if (inside && taken.every((o) => apart(box, o)) && bars.every((n) => n === b || apart(box, n.box)))
        text(b.x + (band - 4) / 2, y, t, { size: valueSize, anchor: 'middle' });
    }
  });
  const yLabels = top + rows.length * (height + groupGap) + 4 * k;
  shown.forEach((text, i) => fig.text(labelX(i), yLabels, text, { size: labelSize, rotate: 45 }));
  return fig;
}

/**
 * Tick values on a log axis from lo to hi: the powers of ten inside it, or, when fewer than two
 * fall inside, the 1-2-5 steps inside it (so a narrow range still has labelled ticks).
 */
export function logTicks(lo, hi) {
  if (!(lo > 0 && hi >= lo && Number.isFinite(hi))) return [];
  const inside = (steps) => {
    const ticks = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e += 1) {
      for (const m of steps) {
        const t = m * 10 ** e;
        if (t >= lo * (1 - 1e-12) && t <= hi * (1 + 1e-12)) ticks.push(t);
      }
    }
    return ticks;
  };
  const decades = inside([1]);
  return decades.length >= 2 ? decades : inside([1, 2, 5]);
}

/** Maps v in [lo, hi] on a log scale to [from, to] (pixels); a range of one value maps to `from`. */
export function logPosition(v, lo, hi, from, to) {
  const span = Math.log10(hi) - Math.log10(lo);
  return from + ((Math.log10(v) - Math.log10(lo)) / (span || 1)) * (to - from);
}

/** The label of a tick: whole numbers as they are, 1e+3 and up in exponent form. */
export const tickLabel = (t) => (t >= 1000 ? t.toExponential(0) : String(Number(t.toPrecision(3))));

/**
 * series: [{ name, colour, points: [[x, y]], band?: [[x, low, high]] }] on log x and log y axes;
 * a band (e.g. the min-max of repeated measurements) is drawn as a translucent area under the line;
 * the legend (and `note`, muted text after it) stands between the title and the plot.
 */
export function logLogFigure(o) {
  const { series, title, xLabel, yLabel, maxWidth = 640, xRange, yRange, textScale: k = 1 } = o;
  const height = o.pixelHeight ?? (o.height ?? 320) * k;
  const fig = new Figure(Math.max(300, maxWidth), height, title);
  const titleLines = wrapText(title, fig.width - 2, 13 * k);
  const left = 64 * k;
  const right = 16;
  // The legend (and the note) between the title and the plot, entries in rows across the width:
  // inside the plot a curve could run under them.
  const entries = [
    ...series.map((s) => ({ colour: s.colour, text: s.name, size: 12 * k })),
    ...(o.note ? [{ colour: null, text: o.note, size: 11 * k, fill: 'muted' }] : []),
  ];
  const legendRows = [[]];
  let rowWidth = 0;
  for (const e of entries) {
    e.width = (e.colour ? 20 * k : 0) + textWidth(e.text, e.size);
    if (rowWidth > 0 && left + rowWidth + e.width > fig.width - right) {
      legendRows.push([]);
      rowWidth = 0;
    }
    e.x = left + rowWidth;
    rowWidth += e.width + 16 * k;
    legendRows.at(-1).push(e);
  }
  const titleBottom = (4 + 16 * titleLines.length) * k;
  const top = titleBottom + (legendRows.length * 18 + 6) * k;
  const bottom = 44 * k;
  const w = fig.width - left - right;
  const h = height - top - bottom;
  const all = series.flatMap((s) => [
    ...s.points,
    ...(s.band ?? []).flatMap(([x, lo, hi]) => [
      [x, lo],
      [x, hi],
    ]),
  ]);
  const [x0, x1] = xRange ?? [Math.min(...all.map((p) => p[0])), Math.max(...all.map((p) => p[0]))];
  const ys = all.map((p) => p[1]).filter((v) => v > 0);
  const [y0, y1] = yRange ?? (ys.length ? [Math.min(...ys) / 1.5, Math.max(...ys) * 1.5] : [1, 10]);
  const lx = (v) => logPosition(v, x0, x1, left, left + w);
  const ly = (v) => logPosition(v, y0, y1, top + h, top);
  titleLines.forEach((line, i) => fig.text(0, (10 + 16 * i) * k, line, { size: 13 * k, weight: '600' }));
  for (const t of logTicks(x0, x1)) {
    fig.line(lx(t), top, lx(t), top + h, 'grid');
    fig.text(lx(t), top + h + 14 * k, String(t), { size: 11 * k, anchor: 'middle', fill: 'muted' });
  }
  // On a short plot every n-th tick is labelled, so that labels keep apart.
  const yTicks = logTicks(y0, y1);
  const apart = yTicks.length > 1 ? Math.abs(ly(yTicks[0]) - ly(yTicks[1])) : Infinity;
  const every = Math.max(1, Math.ceil((11 * k * 1.4) / apart));
  yTicks.forEach((t, i) => {
    fig.line(left, ly(t), left + w, ly(t), 'grid');
    if (i % every === 0) fig.text(left - 6 * k, ly(t), tickLabel(t), { size: 11 * k, anchor: 'end', fill: 'muted' });
  });
  fig.rect(left, top, w, h, null, 'muted');
  fig.text(left + w / 2, height - 8 * k, xLabel, { size: 12 * k, anchor: 'middle' });
  fig.text(14 * k, top + h / 2, yLabel, { size: 12 * k, anchor: 'middle', rotate: -90 });
  for (const s of series) {
    const band = (s.band ?? []).filter(([, lo]) => lo > 0);
    if (band.length < 2) continue;
    const upper = band.map(([x, , hi]) => [lx(x), ly(hi)]);
    const lower = band.map(([x, lo]) => [lx(x), ly(lo)]).reverse();
    fig.polygon([...upper, ...lower], s.colour, 0.25);
  }
  legendRows.forEach((row, r) => {
    const y = titleBottom + (r * 18 + 9) * k;
    for (const e of row) {
      if (e.colour) fig.rect(e.x, y - 2 * k, 14 * k, 4 * k, e.colour);
      fig.text(e.x + (e.colour ? 20 * k : 0), y, e.text, { size: e.size, fill: e.fill ?? 'fg' });
    }
  });
  for (const s of series) {
    const pts = s.points.filter((p) => p[1] > 0).map(([x, y]) => [lx(x), ly(y)]);
    fig.polyline(pts, s.colour, 2);
    pts.forEach(([x, y]) => fig.circle(x, y, 3, s.colour));
  }
  return fig;
}

/**
 * One ratio per x on a log x axis and a linear y axis from 0 (the loop's time over the fused one's,
 * per head count): a bar per x with its value ("3.1x") over it where there is room, and a dashed
 * line at 1 (as fast). points: [[x, ratio]]; height in px, as drawn.
 */
export function ratioFigure(o) {
  const { points, title, xLabel, yLabel, maxWidth = 640, height = 220, xRange, colour, textScale: k = 1 } = o;
  const fig = new Figure(Math.max(300, maxWidth), height, title);
  const titleLines = wrapText(title, fig.width - 2, 13 * k);
  const size = 11 * k;
  const left = 48 * k;
  const right = 16;
  const top = (14 + 16 * titleLines.length) * k + size;
  const bottom = 34 * k;
  const w = fig.width - left - right;
  const h = Math.max(40, height - top - bottom);
  const xs = points.map((p) => p[0]);
  const [x0, x1] = xRange ?? [Math.min(...xs), Math.max(...xs)];
  const yMax = Math.max(2, Math.ceil(Math.max(...points.map((p) => p[1])) * 1.1));
  // Bars stand inside the plot: the log axis runs from half a bar before x0 to half a bar after x1.
  const slots = Math.max(1, Math.log10(x1 / x0) / Math.max(1, xs.length - 1));
  const [lo, hi] = [x0 / 10 ** (slots / 2), x1 * 10 ** (slots / 2)];
  const lx = (v) => logPosition(v, lo, hi, left, left + w);
  const ly = (v) => top + h - (v / yMax) * h;
  titleLines.forEach((line, i) => fig.text(0, (10 + 16 * i) * k, line, { size: 13 * k, weight: '600' }));
  const step = Math.max(1, Math.ceil(yMax / Math.max(1, Math.floor(h / (size * 2.2)))));
  for (let t = 0; t <= yMax; t += step) {
    fig.line(left, ly(t), left + w, ly(t), 'grid');
    fig.text(left - 6 * k, ly(t), String(t), { size, anchor: 'end', fill: 'muted' });
  }
  fig.rect(left, top, w, h, null, 'muted');
  const band = w / Math.max(1, xs.length) - 2;
  const labels = points.map(([, y]) => `${y.toFixed(1)}x`);
  const widest = Math.max(0, ...labels.map((l) => textWidth(l, size, '600')));
  const xLabels = xs.map((x) => String(x));
  const widestX = Math.max(0, ...xLabels.map((l) => textWidth(l, size)));
  // Every n-th value and head count is printed, so that neighbours do not touch (the last always).
  const every = (wide) => Math.max(1, Math.ceil((wide + 10 * k) / (w / Math.max(1, xs.length))));
  const shown = (i, n) => (xs.length - 1 - i) % n === 0;
  points.forEach(([x, y], i) => {
    const bw = Math.max(2, Math.min(band * 0.7, 40 * k));
    fig.rect(lx(x) - bw / 2, ly(y), bw, ly(0) - ly(y), colour);
    if (shown(i, every(widest)))
      fig.text(lx(x), ly(y) - size * 0.7, labels[i], { size, anchor: 'middle', weight: '600' });
    if (shown(i, every(widestX)))
      fig.text(lx(x), top + h + 12 * k, xLabels[i], { size, anchor: 'middle', fill: 'muted' });
  });
  fig.line(left, ly(1), left + w, ly(1), 'fg', 1.5, [6, 4]);
  fig.text(left + w / 2, height - 6 * k, xLabel, { size: 12 * k, anchor: 'middle' });
  fig.text(12 * k, top + h / 2, yLabel, { size: 12 * k, anchor: 'middle', rotate: -90 });
  return fig;
}
