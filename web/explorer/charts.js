// Bar charts (one attention row) and a log-log line chart (the heads sweep), as figures.
import { Figure } from './figure.js';
import { textWidth } from './text-boxes.js';

const SIN45 = Math.SQRT1_2;

/**
 * rows: [{ name, values }] drawn as groups of bars over the same labels, values in [0, 1]; height
 * is one row's; textScale multiplies every font size (and the room kept for text). Bars are the
 * theme's accent (contrast >= 3:1 against its background); their height is the value.
 */
export function barsFigure({ rows, labels, title, maxWidth = 480, textScale: k = 1, ...o }) {
  const height = (o.height ?? 150) * k;
  const [titleSize, nameSize, valueSize, labelSize] = [13 * k, 11 * k, 10 * k, 11 * k];
  const shown = labels.map((label) => (label.length > 10 ? `${label.slice(0, 9)}…` : label));
  const left = Math.ceil(4 * k + textWidth('0.5', valueSize) + 4);
  const top = Math.ceil(titleSize * 1.4 + 4 * k);
  const groupGap = 10 * k;
  // Neighbouring labels, turned 45 degrees, clear each other when the bands are this wide.
  const minBand = Math.ceil((labelSize + 1) / SIN45);
  const band = Math.max(minBand, Math.min(Math.round(44 * k), Math.floor((maxWidth - left - 10) / labels.length)));
  const widest = Math.max(0, ...shown.map((l) => textWidth(l, labelSize)));
  const labelSpace = Math.ceil(4 * k + (widest + labelSize / 2) * SIN45 + 4);
  const labelX = (i) => left + i * band + band / 2 + 2 * k;
  const right = labelX(labels.length - 1) + (textWidth(shown.at(-1) ?? '', labelSize) + labelSize / 2) * SIN45 + 2;
  const width = Math.max(left + band * labels.length + 10, right, textWidth(title, titleSize, '600') + 2);
  const fig = new Figure(width, top + rows.length * (height + groupGap) + labelSpace, title);
  fig.text(0, titleSize * 0.7, title, { size: titleSize, weight: '600' });
  // Each row: its name, room for the value over a full bar, then the bars.
  const head = Math.ceil(nameSize * 1.2 + valueSize * 1.2 + 2);
  const plot = Math.max(valueSize * 2, height - head);
  const ticks = plot >= valueSize * 2.4 ? [0, 0.5, 1] : [0, 1];
  // The value over its bar: "0.50", or ".50" where that does not fit ("1" for a full bar).
  const value = (v) => {
    const text = v.toFixed(2);
    const tight = text === '1.00' ? '1' : text.replace(/^0/, '');
    return textWidth(text, valueSize) <= band - 2 ? text : textWidth(tight, valueSize) <= band - 2 ? tight : null;
  };
  rows.forEach((row, r) => {
    const y0 = top + r * (height + groupGap);
    const base = y0 + head + plot;
    fig.text(left, y0 + nameSize * 0.6, row.name, { size: nameSize, fill: 'muted' });
    fig.line(left, base, left + band * labels.length, base, 'grid');
    for (const tick of ticks) {
      fig.text(left - 4 * k, base - tick * plot, tick.toFixed(1), { size: valueSize, anchor: 'end', fill: 'muted' });
    }
    row.values.forEach((v, i) => {
      const h = Math.max(0, v) * plot;
      const x = left + i * band + 2;
      fig.rect(x, base - h, band - 4, h, 'accent');
      const text = v >= 0.05 ? value(v) : null;
      if (text)
        fig.text(x + (band - 4) / 2, base - h - valueSize * 0.6 - 1, text, { size: valueSize, anchor: 'middle' });
    });
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
 * a band (e.g. the min-max of repeated measurements) is drawn as a translucent area under the line.
 */
export function logLogFigure(o) {
  const { series, title, xLabel, yLabel, maxWidth = 640, xRange, yRange, textScale: k = 1 } = o;
  const height = (o.height ?? 320) * k;
  const fig = new Figure(Math.max(300, maxWidth), height, title);
  const left = 64 * k;
  const right = 16;
  const top = 30 * k;
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
  fig.text(0, 10 * k, title, { size: 13 * k, weight: '600' });
  for (const t of logTicks(x0, x1)) {
    fig.line(lx(t), top, lx(t), top + h, 'grid');
    fig.text(lx(t), top + h + 14 * k, String(t), { size: 11 * k, anchor: 'middle', fill: 'muted' });
  }
  for (const t of logTicks(y0, y1)) {
    fig.line(left, ly(t), left + w, ly(t), 'grid');
    fig.text(left - 6 * k, ly(t), tickLabel(t), { size: 11 * k, anchor: 'end', fill: 'muted' });
  }
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
  series.forEach((s, n) => {
    const pts = s.points.filter((p) => p[1] > 0).map(([x, y]) => [lx(x), ly(y)]);
    fig.polyline(pts, s.colour, 2);
    pts.forEach(([x, y]) => fig.circle(x, y, 3, s.colour));
    fig.rect(left + 10 * k, top + (8 + n * 18) * k, 14 * k, 4 * k, s.colour);
    fig.text(left + 30 * k, top + (10 + n * 18) * k, s.name, { size: 12 * k });
  });
  return fig;
}
