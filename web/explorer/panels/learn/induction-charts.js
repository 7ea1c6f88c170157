// The figures of the Learn panel's "1 layer vs 2 layers" experiment: the held-out loss on the first
// copy and on the repeat of both models over training, with chance and the phase change marked; and
// one figure per layer of heads (1 layer; 2 layers, layer 1; 2 layers, layer 2): each head's
// attention map on the shown sequence under its measured role, beside (or above) its role scores
// over training. Items carry `meta` (which model, layer, head, series) so that tests can find what
// they check; where it is drawn they read from the figure's own tick labels.
import { Figure } from '../../figures/figure.js';
import { textWidth, wrapText } from '../../figures/text-boxes.js';
import { viridis } from '../../figures/colour-scale.js';
import { CHANCE_LOSS, INDUCTION_TOKENS, lossSeries, SCORE_KINDS, scoreSeries } from './induction-data.js';

/** The models' colours in the loss chart (1 layer, 2 layers) and the role scores' colours. */
export const MODEL_COLOURS = Object.freeze(['accent', 'fg']);
export const KIND_COLOURS = Object.freeze({ previousToken: '#8a56c2', duplicate: 'accent2', induction: '#2a9d4a' });
/** The loss axis: 0 to LOSS_MAX nats (the first copy starts at 4.3). */
export const LOSS_MAX = 4.5;
const LOSS_TICKS = [0, 1, 2, 3];
const STEP_TICKS = 4; // the step axis in quarters
const FIRST_COPY_DASH = [6, 4];
const CHANCE_DASH = [2, 3];
const PHASE_DASH = [4, 3];

// The colours of each map drawn (a live run redraws the same maps many times between two readings).
const mapColours = new WeakMap();

const stepTicks = (maxSteps) => Array.from({ length: STEP_TICKS + 1 }, (_, i) => (maxSteps * i) / STEP_TICKS);

// Legend entries laid out in lines of at most `width` px from x = left; returns each entry's
// [x, line] and how many lines.
function legendLines(entries, { left, width, size, k }) {
  const at = [];
  let x = left;
  let line = 0;
  for (const e of entries) {
    const room = 20 * k + textWidth(e.text, size) + 12 * k;
    if (x > left && x + room - 12 * k > left + width) [x, line] = [left, line + 1];
    at.push([x, line]);
    x += room;
  }
  return { at, lines: line + 1 };
}

function drawLegend(fig, entries, at, { y0, lineHeight, size, k }) {
  entries.forEach((e, i) => {
    const [x, line] = at[i];
    const y = y0 + line * lineHeight;
    if (e.dash !== undefined) fig.line(x, y, x + 16 * k, y, e.colour, e.width ?? 2, e.dash);
    else fig.rect(x, y - 2 * k, 14 * k, 4 * k, e.colour);
    fig.text(x + 20 * k, y, e.text, { size, fill: e.fill ?? 'fg' });
  });
}

/**
 * Held-out loss over training. models: [{ name, curve }] (curve: [{ step, heldOut }]); phase:
 * phaseChange() of the 2-layer curve, or null; plotHeight in designed px (times textScale).
 */
export function lossFigure({ models, maxSteps, phase, maxWidth = 480, plotHeight = 110, textScale: k = 1 }) {
  const title = 'Held-out loss: the first copy and the repeat';
  const [titleSize, tickSize, legendSize] = [13 * k, 10 * k, 11 * k];
  const left = Math.ceil(4 * k + textWidth('ln 64', tickSize) + 4);
  const right = Math.ceil(textWidth(String(maxSteps), tickSize) / 2 + 4);
  const w = Math.max(160, maxWidth - left - right);
  const plot = plotHeight * k;
  const entries = [
    ...models.map((m, i) => ({ text: m.name, colour: MODEL_COLOURS[i] })),
    { text: 'repeat', colour: 'muted', dash: null },
    { text: 'first copy', colour: 'muted', dash: FIRST_COPY_DASH, width: 1.5 },
    { text: `chance ${CHANCE_LOSS.toFixed(2)}`, colour: 'muted', dash: CHANCE_DASH, width: 1.5 },
  ];
  const lineHeight = legendSize * 1.5;
  const { at, lines } = legendLines(entries, { left: 0, width: left + w, size: legendSize, k });
  // The title in as many lines as the width needs (a phone).
  const titleLines = wrapText(title, left + w + right - 2, titleSize);
  const legendTop = titleSize * 1.5 * titleLines.length + legendSize * 0.5;
  const x = (step) => left + (w * step) / maxSteps;
  // The phase change's label: inside the plot, left of its marker and below the 2-layer repeat loss
  // there (the curve is above half-way before the marker, nothing else runs that low); where that
  // does not fit, in a row of its own between the legend and the plot.
  const label = phase ? `phase change: step ${phase.step}` : '';
  const labelWidth = textWidth(label, tickSize, '600');
  const inside = phase && x(phase.step) - 4 * k - labelWidth >= left + 2 && phase.loss / 2 >= tickSize / plot;
  const markRow = phase && !inside ? tickSize * 1.6 : 0;
  const top = Math.ceil(legendTop + lines * lineHeight + markRow);
  const fig = new Figure(left + w + right, top + plot + tickSize * 2.2, title);
  titleLines.forEach((line, i) => fig.text(0, titleSize * (0.7 + 1.5 * i), line, { size: titleSize, weight: '600' }));
  drawLegend(fig, entries, at, { y0: legendTop, lineHeight, size: legendSize, k });
  const y = (v) => top + plot - (plot * Math.min(LOSS_MAX, Math.max(0, v))) / LOSS_MAX;
  for (const t of LOSS_TICKS) {
    fig.line(left, y(t), left + w, y(t), 'grid');
    fig.text(left - 4 * k, y(t), String(t), { size: tickSize, anchor: 'end', fill: 'muted' });
  }
  fig.line(left, y(CHANCE_LOSS), left + w, y(CHANCE_LOSS), 'muted', 1.5, CHANCE_DASH);
  fig.items.at(-1).meta = { marker: 'chance', value: CHANCE_LOSS };
  fig.text(left - 4 * k, y(CHANCE_LOSS), 'ln 64', { size: tickSize, anchor: 'end', fill: 'muted' });
  for (const s of stepTicks(maxSteps))
    fig.text(x(s), top + plot + tickSize * 1.1, String(s), { size: tickSize, anchor: 'middle', fill: 'muted' });
  models.forEach((m, i) => {
    for (const group of ['first copy', 'repeat']) {
      const points = lossSeries(m.curve, group).map((p) => [x(p.step), y(p.value)]);
      if (points.length < 2) continue;
      fig.polyline(
        points,
        MODEL_COLOURS[i],
        group === 'repeat' ? 2.5 : 1.5,
        group === 'repeat' ? null : FIRST_COPY_DASH,
      );
      fig.items.at(-1).meta = { series: 'loss', model: m.name, group };
    }
  });
  if (phase) {
    const px = x(phase.step);
    fig.line(px, top, px, top + plot, 'muted', 1.5, PHASE_DASH);
    fig.items.at(-1).meta = { marker: 'phase', step: phase.step };
    fig.circle(px, y(phase.loss), 3.5 * k, MODEL_COLOURS[1]);
    if (inside) fig.text(px - 4 * k, y(phase.loss / 2), label, { size: tickSize, anchor: 'end', weight: '600' });
    else {
      const half = labelWidth / 2;
      const lx = Math.min(Math.max(px, half + 1), fig.width - half - 1);
      fig.text(lx, top - markRow / 2, label, { size: tickSize, anchor: 'middle', weight: '600' });
    }
  }
  return fig;
}

// "1-4" for heads 1, 2, 3, 4; "1, 3" otherwise (1-based numbers).
function headsText(heads) {
  const n = heads.map((h) => h + 1).sort((a, b) => a - b);
  const run = n.length > 2 && n.at(-1) - n[0] === n.length - 1;
  return `h${run ? `${n[0]}-${n.at(-1)}` : n.join(', ')}`;
}

/**
 * The tiles of one row of maps: each at least its map (and the bars beside it) and "head 4", and
 * its role on one line when all of them then fit `maxWidth`, else its role's longest word (the role
 * wraps). Returns { widths, wrap, width, lines } (width: the row's, gaps included; lines: each
 * role's lines in its tile).
 */
export function headTiles(roles, mapSize, maxWidth, k = 1) {
  const size = 10 * k;
  const gap = Math.round(8 * k);
  const base = Math.max(mapSize + 4, textWidth('head 4', size));
  const row = (widths) => widths.reduce((a, b) => a + b, 0) + gap * (widths.length - 1);
  const whole = roles.map((r) => Math.ceil(Math.max(base, textWidth(r, size, '600') + 2)));
  if (row(whole) <= maxWidth) return { widths: whole, wrap: false, width: row(whole), lines: roles.map((r) => [r]) };
  const words = roles.map((r) => Math.ceil(Math.max(base, ...r.split(' ').map((w) => textWidth(w, size, '600') + 2))));
  const lines = roles.map((r, i) => wrapText(r, words[i] - 2, size, '600'));
  return { widths: words, wrap: true, width: row(words), lines };
}

/**
 * One layer of heads: `title` ("2 layers, layer 2"), for each head its role (the core's name), its
 * attention map on `sequence` (T x T, row-major) and its role scores over `curve` (this layer's
 * index `layer` in the model's curve points); phase marks the phase change (or null). mapSize: a
 * map's side in px; side: the scores chart beside the maps (at least sideChartWidth wide; else below
 * them, plotHeight tall); legend: the scores' legend by the title; xTicks: the step axis's labels;
 * chart false: the maps without the scores; roleLines: room for at least this many lines of role
 * (figures side by side then start their maps at the same height).
 */
export function headsFigure({
  title,
  model,
  layer,
  heads,
  curve,
  sequence,
  maxSteps,
  phase = null,
  mapSize,
  maxWidth,
  side = true,
  sideChartWidth = 170,
  chartAt = 0,
  plotHeight = 60,
  xTicks = true,
  legend = true,
  chart = true,
  roleLines: minLines = 1,
  textScale: k = 1,
}) {
  // chart false: the maps alone (a slide, where the loss chart says when the heads change).
  if (!chart) [side, legend] = [false, false];
  const [titleSize, size] = [12 * k, 10 * k];
  const T = INDUCTION_TOKENS;
  const gap = Math.round(8 * k);
  const minChart = side ? sideChartWidth * k + 2 * gap : 0;
  const tiles = headTiles(
    heads.map((h) => h.role),
    mapSize,
    maxWidth - minChart,
    k,
  );
  // Rows of one layout start their charts at the same x (chartAt: the widest row of maps).
  const mapsWidth = Math.max(tiles.width, chartAt);
  const tileX = tiles.widths.map((_, h) => tiles.widths.slice(0, h).reduce((a, b) => a + b + gap, 0));
  const entries = SCORE_KINDS.map((kind) => ({ text: kind.name, colour: KIND_COLOURS[kind.key], dash: null }));
  const legendWidth = entries.reduce((a, e) => a + 20 * k + textWidth(e.text, size) + 12 * k, 0) - 12 * k;
  const titleWidth = textWidth(title, titleSize, '600');
  const width = chart ? Math.max(maxWidth, mapsWidth) : Math.ceil(Math.max(mapsWidth, titleWidth));
  // The legend of the score lines beside the title when both fit one line, else on a line of its own.
  const legendBeside = !legend || titleWidth + 16 * k + legendWidth <= width;
  const titleLine = titleSize * 1.5;
  const labelsTop = Math.ceil(titleLine * (legendBeside ? 1 : 2) + 2 * k);
  // A role wider than its tile takes two lines (or more); every tile keeps room for the longest.
  const roleLines = tiles.lines;
  const lines = Math.max(minLines, ...roleLines.map((l) => l.length));
  const mapTop = Math.ceil(labelsTop + size * (1.3 + 1.3 * lines) + 4);
  const tickSize = size;
  const chartLeft = side ? mapsWidth + 2 * gap : 0;
  const ticksWidth = Math.ceil(4 * k + textWidth('0.5', tickSize) + 4);
  const labelRoom = Math.ceil(textWidth('h1-4', size) + 6 * k);
  const plotX = chartLeft + ticksWidth;
  const plotW = width - plotX - labelRoom;
  const plotTop = side ? mapTop : mapTop + mapSize + Math.ceil(titleLine);
  const plotH = side ? mapSize : plotHeight * k;
  const height = chart
    ? plotTop + plotH + (xTicks ? tickSize * 2.2 : Math.max(4, size / 2 + 2))
    : mapTop + mapSize + Math.round(6 * k);
  const about = chart ? "each head's attention on the shown sequence and role scores" : "each head's attention";
  const fig = new Figure(width, height, `${title}: ${about}`);
  fig.text(0, titleSize * 0.75, title, { size: titleSize, weight: '600' });
  const legendLeft = legendBeside ? width - legendWidth : 0;
  const legendAt = [];
  let lx = legendLeft;
  for (const e of entries) {
    legendAt.push([lx, 0]);
    lx += 20 * k + textWidth(e.text, size) + 12 * k;
  }
  if (legend)
    drawLegend(fig, entries, legendAt, {
      y0: legendBeside ? titleSize * 0.75 : titleLine + titleSize * 0.6,
      lineHeight: 0,
      size,
      k,
    });
  // The maps: rows are the queries, columns the keys; bars mark the first copy (over the columns)
  // and the repeat (left of its rows).
  const cell = mapSize / T;
  heads.forEach((head, h) => {
    const [x0, tile] = [tileX[h], tiles.widths[h]];
    const mx = x0 + (tile - mapSize) / 2 + 2;
    fig.text(x0 + tile / 2, labelsTop + size * 0.6, `head ${h + 1}`, { size, anchor: 'middle', fill: 'muted' });
    roleLines[h].forEach((line, i) => {
      fig.text(x0 + tile / 2, labelsTop + size * (1.9 + 1.3 * i), line, { size, anchor: 'middle', weight: '600' });
      fig.items.at(-1).meta = { role: head.role, model, layer, head: h, line: i };
    });
    // The causal mask's cells (a query cannot see later keys) in the background colour.
    let colours = mapColours.get(head.map);
    if (!colours) {
      colours = Array.from(head.map, (v, n) => (n % T > Math.floor(n / T) ? 'bg' : viridis(v)));
      mapColours.set(head.map, colours);
    }
    fig.grid(mx, mapTop, cell, cell, T, T, colours);
    fig.items.at(-1).meta = { map: true, model, layer, head: h };
    fig.rect(mx + sequence.first * cell, mapTop - 3, sequence.length * cell, 2, 'muted');
    fig.rect(mx - 3, mapTop + sequence.second * cell, 2, sequence.length * cell, 'muted');
  });
  if (!chart) return fig;
  // The scores over training, one line per head and score.
  const x = (step) => plotX + (plotW * step) / maxSteps;
  const y = (v) => plotTop + plotH - plotH * Math.min(1, Math.max(0, v));
  for (const t of [0, 0.5, 1]) {
    fig.line(plotX, y(t), plotX + plotW, y(t), 'grid');
    fig.text(plotX - 4 * k, y(t), t === 0.5 ? '0.5' : String(t), { size: tickSize, anchor: 'end', fill: 'muted' });
  }
  if (xTicks) {
    fig.text(plotX, plotTop + plotH + tickSize * 1.1, '0', { size: tickSize, anchor: 'middle', fill: 'muted' });
    fig.text(plotX + plotW, plotTop + plotH + tickSize * 1.1, `step ${maxSteps}`, {
      size: tickSize,
      anchor: 'end',
      fill: 'muted',
    });
  }
  if (phase) {
    fig.line(x(phase.step), plotTop, x(phase.step), plotTop + plotH, 'muted', 1.5, PHASE_DASH);
    fig.items.at(-1).meta = { marker: 'phase', step: phase.step };
  }
  const ends = [];
  for (const kind of SCORE_KINDS) {
    heads.forEach((_, h) => {
      const series = scoreSeries(curve, layer, h, kind.key);
      const points = series.map((p) => [x(p.step), y(p.value)]);
      if (points.length < 2) return;
      fig.polyline(points, KIND_COLOURS[kind.key], 1.5);
      fig.items.at(-1).meta = { series: 'score', model, layer, head: h, kind: kind.key };
      if (series.at(-1).value >= 0.3) ends.push({ kind: kind.key, head: h, y: points.at(-1)[1] });
    });
  }
  // Lines that end high (a named head's score) are labelled at their end: heads of one score whose
  // ends are closer than a label's height share one label; labels then keep a line apart.
  const labels = [];
  for (const kind of SCORE_KINDS) {
    const mine = ends.filter((e) => e.kind === kind.key).sort((a, b) => a.y - b.y);
    for (const e of mine) {
      const last = labels.at(-1);
      if (last && last.kind === e.kind && e.y - last.ys.at(-1) < size) {
        last.heads.push(e.head);
        last.ys.push(e.y);
      } else labels.push({ kind: e.kind, heads: [e.head], ys: [e.y] });
    }
  }
  labels.sort((a, b) => a.ys[0] - b.ys[0]);
  let floor = plotTop - size;
  for (const label of labels) {
    const mean = label.ys.reduce((a, b) => a + b, 0) / label.ys.length;
    const ly = Math.min(Math.max(mean, floor + size * 1.1, plotTop + size / 2), height - size / 2);
    floor = ly;
    fig.text(plotX + plotW + 4 * k, ly, headsText(label.heads), { size, fill: KIND_COLOURS[label.kind] });
  }
  return fig;
}
