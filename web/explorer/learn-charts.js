// The Learn panel's figures: accuracy and loss curves of the runs, and the attention from "?".
import { Figure } from './figure.js';
import { barsFigure } from './charts.js';
import { heatmapFigure } from './heatmap.js';

export const RUN_COLOURS = Object.freeze(['accent', 'accent2', '#2a9d4a']);

/** One chart of `key` ('accuracy' in [0, 1] or 'loss' from 0 to yMax) against the step. */
export function curveFigure({ runs, key, maxSteps, title, maxWidth = 480, height = 150, yMax = 1 }) {
  const left = 40;
  const top = 24;
  const w = Math.max(200, maxWidth) - left - 10;
  const fig = new Figure(left + w + 10, top + height + 28, title);
  fig.text(0, 10, title, { size: 13, weight: '600' });
  const x = (step) => left + (w * step) / maxSteps;
  const y = (v) => top + height - (height * Math.min(yMax, Math.max(0, v))) / yMax;
  for (const t of [0, 0.5, 1]) {
    fig.line(left, y(t * yMax), left + w, y(t * yMax), 'grid');
    const label = key === 'accuracy' ? `${Math.round(100 * t)}%` : (t * yMax).toFixed(1);
    fig.text(left - 4, y(t * yMax) + 4, label, { size: 10, anchor: 'end', fill: 'muted' });
  }
  fig.text(left + w, top + height + 22, `step (of ${maxSteps})`, { size: 10, anchor: 'end', fill: 'muted' });
  runs.forEach((run, r) => {
    const points = run.curve.map((p) => [x(p.step), y(p[key])]);
    if (points.length > 1) fig.polyline(points, RUN_COLOURS[r], 2);
    const label = `${run.heads} head${run.heads === 1 ? '' : 's'}`;
    // The legend: 80 px a label, wrapped onto a second line when the chart is too narrow for all.
    const per = Math.max(1, Math.floor((w - 8) / 80));
    const [lx, ly] = [left + 8 + 80 * (r % per), top + 4 + 14 * Math.floor(r / per)];
    fig.rect(lx, ly, 12, 4, RUN_COLOURS[r]);
    fig.text(lx + 16, ly + 6, label, { size: 11 });
  });
  return fig;
}

/**
 * The attention from "?" over the sample words, one row per head of a run: bars for 1 and 2 heads,
 * a heatmap row per head for more (four rows of bars would not fit a slide).
 */
export function mapsFigure({ run, words, maxWidth }) {
  const title = `${run.heads} head${run.heads === 1 ? '' : 's'}: attention from "?"`;
  if (run.heads > 2) {
    return heatmapFigure({
      values: Float32Array.from(run.maps.flat()),
      rows: run.heads,
      cols: words.length,
      rowLabels: run.maps.map((_, h) => `head ${h + 1}`),
      colLabels: words,
      scale: 'probability',
      title,
      maxWidth,
    });
  }
  return barsFigure({
    rows: run.maps.map((values, h) => ({ name: `head ${h + 1}`, values })),
    labels: words,
    title,
    maxWidth,
    height: 70,
  });
}
