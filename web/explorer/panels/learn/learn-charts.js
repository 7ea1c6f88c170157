// The Learn panel's figures: accuracy and loss curves of the runs, and the attention from "?".
import { Figure } from '../../figures/figure.js';
import { barsFigure } from '../../figures/charts.js';
import { heatmapFigure } from '../../figures/heatmap.js';
import { textWidth } from '../../figures/text-boxes.js';

export const RUN_COLOURS = Object.freeze(['accent', 'accent2', '#2a9d4a']);

/**
 * One chart of `key` ('accuracy' in [0, 1] or 'loss' from 0 to yMax) against the step; height is the
 * plot's, in the units textScale multiplies.
 */
export function curveFigure({ runs, key, maxSteps, title, maxWidth = 480, height = 150, yMax = 1, textScale: k = 1 }) {
  const [titleSize, tickSize, legendSize] = [13 * k, 10 * k, 11 * k];
  const left = Math.ceil(4 * k + textWidth(key === 'accuracy' ? '100%' : '5.0', tickSize) + 4);
  const plot = height * k;
  const w = Math.max(200, maxWidth) - left - 10;
  // The legend has lines of its own between the title and the plot (inside, a curve would run over
  // it), as many entries a line as fit the chart's width.
  const line = (n) => titleSize * 1.4 + legendSize * (0.7 + 1.4 * n);
  const legend = [];
  let legendX = left;
  let lines = 0;
  for (const run of runs) {
    const room = 16 * k + textWidth(`${run.heads} heads`, legendSize) + 14 * k;
    if (legendX > left && legendX + room > left + w) [legendX, lines] = [left, lines + 1];
    legend.push([legendX, line(lines)]);
    legendX += room;
  }
  const top = Math.ceil(line(lines) + legendSize * 0.7 + tickSize);
  const fig = new Figure(left + w + 10, top + plot + tickSize * 2.8, title);
  fig.text(0, titleSize * 0.7, title, { size: titleSize, weight: '600' });
  const x = (step) => left + (w * step) / maxSteps;
  const y = (v) => top + plot - (plot * Math.min(yMax, Math.max(0, v))) / yMax;
  for (const t of [0, 0.5, 1]) {
    fig.line(left, y(t * yMax), left + w, y(t * yMax), 'grid');
    const label = key === 'accuracy' ? `${Math.round(100 * t)}%` : (t * yMax).toFixed(1);
    fig.text(left - 4 * k, y(t * yMax), label, { size: tickSize, anchor: 'end', fill: 'muted' });
  }
  const stepLabel = `step (of ${maxSteps})`;
  fig.text(left + w, top + plot + tickSize * 1.6, stepLabel, { size: tickSize, anchor: 'end', fill: 'muted' });
  runs.forEach((run, r) => {
    const points = run.curve.map((p) => [x(p.step), y(p[key])]);
    if (points.length > 1) fig.polyline(points, RUN_COLOURS[r], 2);
    const label = `${run.heads} head${run.heads === 1 ? '' : 's'}`;
    const [lx, ly] = legend[r];
    fig.rect(lx, ly - 2 * k, 12 * k, 4 * k, RUN_COLOURS[r]);
    fig.text(lx + 16 * k, ly, label, { size: legendSize });
  });
  return fig;
}

/**
 * The attention from "?" over the sample words, one row per head of a run: bars for 1 and 2 heads
 * (rowHeight each, in the units textScale multiplies), a heatmap row per head for more (four rows of
 * bars would not fit a slide). The bars carry their values and no axis, so that two maps fit side by
 * side in the figure column of a 16:9 slide at the slide's text size.
 */
export function mapsFigure({ run, words, maxWidth, textScale = 1, rowHeight = 70 }) {
  const title = `${run.heads} head${run.heads === 1 ? '' : 's'}: attention from "?"`;
  if (run.heads > 2) {
    const spec = {
      values: Float32Array.from(run.maps.flat()),
      rows: run.heads,
      cols: words.length,
      rowLabels: run.maps.map((_, h) => `head ${h + 1}`),
      colLabels: words,
      scale: 'probability',
      title,
      maxWidth,
      textScale,
    };
    // Cells as wide as the width allows (every word labelled), rows a third of a bar row tall: a wide
    // map does not grow square cells taller than the slide has room for.
    const wide = heatmapFigure(spec);
    const { cellW, cellH } = wide.heatmaps[0];
    const rowCell = Math.max(Math.ceil(12 * textScale + 1), Math.round((rowHeight * textScale) / 3));
    return cellH > rowCell ? heatmapFigure({ ...spec, cellSize: [cellW, rowCell] }) : wide;
  }
  return barsFigure({
    rows: run.maps.map((values, h) => ({ name: `head ${h + 1}`, values })),
    labels: words,
    title,
    maxWidth,
    height: rowHeight,
    textScale,
    ticks: false,
  });
}
