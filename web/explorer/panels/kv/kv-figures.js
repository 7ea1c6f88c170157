// The kv panel's figures: the query heads' maps in one box per K/V head (the box and its title in
// that K/V head's colour, head-colours.js), the cache growing token by token, and the presets'
// cache per token as bars. Numbers come from kv-numbers.js; nothing here computes attention.
import { Figure, movedItem } from '../../figures/figure.js';
import { heatmapFigure } from '../../figures/heatmap.js';
import { textWidth } from '../../figures/text-boxes.js';
import { headColour } from '../../figures/head-colours.js';
import { formatNumber } from '../../dom.js';

/** Bytes as people say them: 36 KiB, 2.5 MiB, 96 B (binary units, up to 3 significant digits). */
export function formatBytes(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${Number(v.toPrecision(3))} ${units[u]}`;
}

/** Copies `from`'s items and heatmaps into `to`, moved by (dx, dy). */
function place(to, from, dx, dy) {
  for (const it of from.items) to.items.push(movedItem(it, dx, dy));
  for (const map of from.heatmaps) to.heatmaps.push({ ...map, x: map.x + dx, y: map.y + dy });
}

/** The width a map's row labels (the tokens, thinned to the lecture's words when rows are short) add. */
export const rowLabelWidth = (tokens, k = 1) =>
  Math.ceil(6 * k + Math.max(0, ...tokens.map((t) => textWidth(t, 12 * k, '700'))) + 2);

/**
 * One K/V head's box: its query heads' attention maps (from `attention`, (H, T, T)) side by side,
 * `perRow` to a row, each mapSize wide (the first of a row wider by its row labels when `labelled`),
 * framed in the K/V head's colour with its title inside. The figure's `group` says which K/V head
 * and query heads it shows (read by the tests).
 */
export function groupFigure({ kv, queryHeads, attention, tokens, mapSize, perRow, textScale: k = 1, labelled }) {
  const T = tokens.length;
  const pad = Math.ceil(5 * k);
  const titleSize = 13 * k;
  // Short enough for a box of one map: "K/V 3"; of several: "K/V head 1: q1-q4".
  const title =
    queryHeads.length > 1 ? `K/V head ${kv + 1}: q${queryHeads[0] + 1}-q${queryHeads.at(-1) + 1}` : `K/V ${kv + 1}`;
  const common = {
    values: attention,
    rows: T,
    cols: T,
    scale: 'probability',
    masked: (i, j) => j > i,
    quantity: 'attention',
    cellLabels: tokens,
    maxWidth: mapSize,
    maxHeight: mapSize + 24 * k,
    textScale: k,
  };
  // Every map's cells the size of an unlabelled one's, so that the labelled map is not larger.
  const plain = heatmapFigure({ ...common, offset: queryHeads[0] * T * T }).heatmaps[0];
  const maps = queryHeads.map((h, n) =>
    heatmapFigure({
      ...common,
      cellSize: [plain.cellW, plain.cellH],
      offset: h * T * T,
      title: `q${h + 1}`,
      ...(labelled && n % perRow === 0 ? { rowLabels: tokens } : {}),
      maxWidth: mapSize + (labelled && n % perRow === 0 ? rowLabelWidth(tokens, k) : 0),
    }),
  );
  const cols = Math.min(perRow, maps.length);
  // Columns as wide as their widest map (the first holds the row labels).
  const colWidths = Array.from({ length: cols }, (_, c) =>
    Math.max(...maps.filter((_, n) => n % cols === c).map((m) => m.width)),
  );
  const colX = colWidths.map((_, c) => colWidths.slice(0, c).reduce((a, w) => a + w + pad, 0));
  const rowHeight = Math.max(...maps.map((m) => m.height));
  const rows = Math.ceil(maps.length / cols);
  // The title inside the box, the maps under it.
  const top = pad + Math.ceil(titleSize * 1.4);
  const innerWidth = colWidths.reduce((a, w) => a + w, 0) + (cols - 1) * pad;
  const width = Math.max(innerWidth + 2 * pad + 2, textWidth(title, titleSize, '600') + 2 * pad + 2);
  const height = top + rows * rowHeight + (rows - 1) * pad + pad + 2;
  const fig = new Figure(width, height, title);
  fig.group = { kv, queryHeads: [...queryHeads] };
  const colour = headColour(kv);
  const line = Math.max(2, 2 * k);
  fig.rect(line / 2, line / 2, width - line, height - line, null, colour, line);
  fig.text(pad + 1, pad + titleSize * 0.6, title, { size: titleSize, weight: '600', fill: colour });
  maps.forEach((m, n) => {
    const r = Math.floor(n / cols);
    const c = n % cols;
    place(fig, m, pad + 1 + colX[c], top + r * (rowHeight + pad));
  });
  return fig;
}

/**
 * The cache after each decode step: a bar per token (its bytes with the K/V heads shared) and,
 * outlined over it, the multi-head cache of the same layer; the last step's bytes printed. With
 * `latent` (kv-numbers.js latentNumbers), the latent layer's cache as a narrow dark bar in each
 * band and a second legend line.
 */
export function cacheGrowthFigure({ cache, latent = null, kvHeads, heads, maxWidth, height = 150, textScale: k = 1 }) {
  const title = `KV cache after each token (float32)`;
  const titleSize = 13 * k;
  const size = 11 * k;
  const top = Math.ceil(titleSize * 1.5 + size * (latent ? 4.4 : 1.6));
  const left = 2;
  const n = cache.length;
  const band = Math.max(4, Math.floor((maxWidth - left - 4) / n));
  // Token labels turned 45 degrees under their bars.
  const labelSpace = Math.ceil(6 * k + (Math.max(...cache.map((c) => textWidth(c.token, size))) + size) * Math.SQRT1_2);
  const width = Math.max(left + band * n + 4, textWidth(title, titleSize, '600') + 2);
  const plot = Math.max(40 * k, height * k - top - labelSpace);
  const fig = new Figure(width, top + plot + labelSpace, title);
  fig.text(0, titleSize * 0.75, title, { size: titleSize, weight: '600' });
  const maxBytes = Math.max(1, ...cache.map((c) => Math.max(c.bytes, c.mhaBytes)));
  const last = cache.at(-1);
  const legend =
    kvHeads === heads
      ? `${kvHeads} K/V heads: ${formatBytes(last.bytes)} for ${n} tokens`
      : `${kvHeads} K/V head${kvHeads === 1 ? '' : 's'}: ${formatBytes(last.bytes)}; ` +
        `outlined, ${heads}: ${formatBytes(last.mhaBytes)}`;
  fig.text(0, titleSize * 1.5 + size * 0.7, legend, { size, fill: 'muted' });
  if (latent) {
    const numbers = latent.perToken.numbers;
    const said = `narrow bars, latent attention (${numbers} numbers a token): ${formatBytes(latent.cache.at(-1))}`;
    fig.text(0, titleSize * 1.5 + size * 2.1, said, { size, fill: 'muted' });
    const forms = `its explicit and absorbed forms: max |difference| ${formatNumber(latent.forms.maxDiff)}`;
    fig.text(0, titleSize * 1.5 + size * 3.5, forms, { size, fill: 'muted' });
  }
  const base = top + plot;
  fig.line(left, base, left + band * n, base, 'grid');
  fig.bars = [];
  cache.forEach((c, t) => {
    const x = left + t * band + 1;
    const h = (c.bytes / maxBytes) * plot;
    const hm = (c.mhaBytes / maxBytes) * plot;
    fig.rect(x, base - h, band - 2, h, 'accent');
    if (c.mhaBytes !== c.bytes) fig.rect(x, base - hm, band - 2, hm, null, 'muted', 1);
    const bar = { token: c.token, bytes: c.bytes, mhaBytes: c.mhaBytes, height: h };
    if (latent) {
      const hl = (latent.cache[t] / maxBytes) * plot;
      const wl = Math.max(2, Math.floor((band - 2) / 3));
      fig.rect(x + Math.floor((band - 2 - wl) / 2), base - hl, wl, hl, 'fg');
      bar.latentBytes = latent.cache[t];
    }
    fig.bars.push(bar);
    fig.text(x + band / 2, base + 4 * k, c.token, { size, rotate: 45 });
  });
  return fig;
}

/**
 * The presets' KV cache per token as horizontal bars on one linear scale: for each model its own
 * cache and, where sharing changes it, the multi-head one. `fig.bars` lists what is drawn.
 */
export function presetBarsFigure({ presets, maxWidth, textScale: k = 1 }) {
  const title = 'KV cache per token (fp16), as published';
  const titleSize = 13 * k;
  const size = 11 * k;
  const rows = presets.flatMap((p) => p.bars.map((b, i) => ({ ...b, model: p.label, first: i === 0 })));
  const names = rows.map((r) => (r.first ? `${r.model}, ${r.name}` : r.name));
  const labelWidth = Math.ceil(Math.max(...names.map((t) => textWidth(t, size))) + 6 * k);
  const valueWidth = Math.ceil(Math.max(...rows.map((r) => textWidth(formatBytes(r.bytes), size))) + 8 * k);
  const width = Math.max(maxWidth, labelWidth + valueWidth + 60 * k);
  const plot = width - labelWidth - valueWidth;
  const rowHeight = Math.ceil(size * 1.5);
  const top = Math.ceil(titleSize * 1.6);
  const fig = new Figure(width, top + rows.length * rowHeight + 2, title);
  fig.text(0, titleSize * 0.75, title, { size: titleSize, weight: '600' });
  const maxBytes = Math.max(...rows.map((r) => r.bytes));
  fig.bars = [];
  rows.forEach((r, i) => {
    const y = top + i * rowHeight;
    const w = Math.max(1, (r.bytes / maxBytes) * plot);
    fig.text(labelWidth - 6 * k, y + rowHeight / 2, names[i], { size, anchor: 'end', fill: r.first ? 'fg' : 'muted' });
    fig.rect(labelWidth, y + 2, w, rowHeight - 4, r.mha ? 'muted' : 'accent');
    fig.text(labelWidth + w + 4 * k, y + rowHeight / 2, formatBytes(r.bytes), { size });
    fig.bars.push({ model: r.model, name: r.name, bytes: r.bytes, width: w });
  });
  return fig;
}

const SHARING_FILLS = ['accent', 'accent2', 'muted'];

/**
 * What sharing costs trained models: per probe, one bar per model (its mean held-out accuracy over
 * the seeds, with its value), a key naming the models by their K/V heads. rows: sharingRows().
 */
export function sharingFigure({ rows, step, queryHeads, maxWidth, textScale: k = 1 }) {
  const title = `Held-out accuracy, ${step} steps, ${queryHeads} query heads`;
  const titleSize = 13 * k;
  const size = 11 * k;
  const skills = rows[0].skills.map((s) => s.label);
  const labelWidth = Math.ceil(Math.max(...skills.map((t) => textWidth(t, size))) + 6 * k);
  const valueWidth = Math.ceil(textWidth('0.00', size) + 8 * k);
  const width = Math.max(maxWidth, Math.ceil(textWidth(title, titleSize, '600')), labelWidth + valueWidth + 80 * k);
  const plot = width - labelWidth - valueWidth;
  // The key: a swatch and a name per model, on as many lines as the width needs (a phone: two).
  const keyLine = Math.ceil(size * 1.6);
  const key = [];
  let [x, line] = [0, 0];
  for (const r of rows) {
    const name = `${r.kvHeads} K/V (${r.name})`;
    const w = size + 4 * k + textWidth(name, size);
    if (x > 0 && x + w > width) [x, line] = [0, line + 1];
    key.push({ x, line, name });
    x += w + 12 * k;
  }
  const bar = Math.ceil(size * 1.15);
  const group = rows.length * bar + Math.ceil(6 * k);
  const keyTop = Math.ceil(titleSize * 1.6);
  const top = keyTop + (line + 1) * keyLine;
  const fig = new Figure(width, top + skills.length * group, title);
  fig.text(0, titleSize * 0.75, title, { size: titleSize, weight: '600' });
  key.forEach(({ x: at, line: l, name }, m) => {
    const y = keyTop + l * keyLine;
    fig.rect(at, y, size, size, SHARING_FILLS[m]);
    fig.text(at + size + 4 * k, y + size / 2, name, { size });
  });
  fig.bars = [];
  skills.forEach((label, s) => {
    const y0 = top + s * group;
    fig.text(labelWidth - 6 * k, y0 + (rows.length * bar) / 2, label, { size, anchor: 'end' });
    rows.forEach((r, m) => {
      const value = r.skills[s].mean;
      const w = Math.max(1, value * plot);
      const y = y0 + m * bar;
      fig.rect(labelWidth, y + 1, w, bar - 2, SHARING_FILLS[m]);
      fig.text(labelWidth + w + 4 * k, y + bar / 2, value.toFixed(2), { size: size * 0.9 });
      fig.bars.push({ skill: r.skills[s].skill, kvHeads: r.kvHeads, value, width: w });
    });
  });
  return fig;
}
