// Bar charts (one attention row) and a log-log line chart (the heads sweep), as figures.
import { Figure } from './figure.js';

/**
 * rows: [{ name, values }] drawn as groups of bars over the same labels, values in [0, 1]. Bars are the
 * theme's accent (contrast >= 3:1 against its background); their height is the value.
 */
export function barsFigure({ rows, labels, title, maxWidth = 480, height = 150 }) {
  const left = 36;
  const top = 26;
  const labelSpace = 62;
  const groupGap = 10;
  const band = Math.max(10, Math.min(44, Math.floor((maxWidth - left - 10) / labels.length)));
  const fig = new Figure(left + band * labels.length + 10, top + rows.length * (height + groupGap) + labelSpace, title);
  fig.text(0, 10, title, { size: 13, weight: '600' });
  rows.forEach((row, r) => {
    const y0 = top + r * (height + groupGap);
    const base = y0 + height;
    fig.text(left, y0 + 6, row.name, { size: 11, fill: 'muted' });
    fig.line(left, base, left + band * labels.length, base, 'grid');
    for (const tick of [0, 0.5, 1]) {
      fig.text(left - 4, base - tick * (height - 16), tick.toFixed(1), { size: 10, anchor: 'end', fill: 'muted' });
    }
    row.values.forEach((v, i) => {
      const h = Math.max(0, v) * (height - 16);
      const x = left + i * band + 2;
      fig.rect(x, base - h, band - 4, h, 'accent');
      if (v >= 0.05) fig.text(x + (band - 4) / 2, base - h - 7, v.toFixed(2), { size: 10, anchor: 'middle' });
    });
  });
  const yLabels = top + rows.length * (height + groupGap) + 4;
  labels.forEach((label, i) => {
    const text = label.length > 10 ? `${label.slice(0, 9)}…` : label;
    fig.text(left + i * band + band / 2 + 2, yLabels, text, { size: 11, rotate: 45 });
  });
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
export function logLogFigure({ series, title, xLabel, yLabel, maxWidth = 640, height = 320, xRange, yRange }) {
  const fig = new Figure(Math.max(300, maxWidth), height, title);
  const left = 64;
  const right = 16;
  const top = 30;
  const bottom = 44;
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
  fig.text(0, 10, title, { size: 13, weight: '600' });
  for (const t of logTicks(x0, x1)) {
    fig.line(lx(t), top, lx(t), top + h, 'grid');
    fig.text(lx(t), top + h + 14, String(t), { size: 11, anchor: 'middle', fill: 'muted' });
  }
  for (const t of logTicks(y0, y1)) {
    fig.line(left, ly(t), left + w, ly(t), 'grid');
    fig.text(left - 6, ly(t), tickLabel(t), { size: 11, anchor: 'end', fill: 'muted' });
  }
  fig.rect(left, top, w, h, null, 'muted');
  fig.text(left + w / 2, height - 8, xLabel, { size: 12, anchor: 'middle' });
  fig.text(14, top + h / 2, yLabel, { size: 12, anchor: 'middle', rotate: -90 });
  for (const s of series) {
    const band = (s.band ?? []).filter(([, lo]) => lo > 0);
    if (band.length < 2) continue;
    const upper = band.map(([x, , hi]) => [lx(x), ly(hi)]);
    const lower = band.map(([x, lo]) => [lx(x), ly(lo)]).reverse();
    fig.polygon([...upper, ...lower], s.colour, 0.25);
  }
  series.forEach((s, k) => {
    const pts = s.points.filter((p) => p[1] > 0).map(([x, y]) => [lx(x), ly(y)]);
    fig.polyline(pts, s.colour, 2);
    pts.forEach(([x, y]) => fig.circle(x, y, 3, s.colour));
    fig.rect(left + 10, top + 8 + k * 18, 14, 4, s.colour);
    fig.text(left + 30, top + 10 + k * 18, s.name, { size: 12 });
  });
  return fig;
}
