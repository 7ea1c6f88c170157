// Reading a heatmap cell by cell, without the DOM: which cell a point of a figure falls in, what the
// cell says (its tokens and numbers, from the figure's own heatmap description), where the arrow
// keys move a cell cursor, and where a tooltip goes so that it stays inside its frame.
import { readingText } from './heatmap-cells.js';

/** The cell { m, i, j } (heatmap m of the figure, drawn row i, drawn column j) at figure point (x, y), or null. */
export function cellAt(heatmaps, x, y) {
  for (let m = 0; m < heatmaps.length; m += 1) {
    const map = heatmaps[m];
    const i = Math.floor((y - map.y) / map.cellH);
    const j = Math.floor((x - map.x) / map.cellW);
    if (i >= 0 && i < map.r && j >= 0 && j < map.c) return { m, i, j };
  }
  return null;
}

/** The box of a drawn cell in figure coordinates. */
export function cellBox(map, i, j) {
  return { x: map.x + j * map.cellW, y: map.y + i * map.cellH, w: map.cellW, h: map.cellH };
}

const named = (labels, index, what) => {
  const label = labels?.[index];
  return label === undefined ? `${what} ${index + 1}` : `${what} ${index + 1} “${label}”`;
};

/**
 * What cell (i, j) of a heatmap says: { heading, lines }. An attention or scores map gives both the
 * scaled dot product before softmax and the weight after; pooled blocks give their range and mean.
 */
export function cellReading(map, i, j) {
  const k = i * map.c + j;
  if (map.rb > 1 || map.cb > 1) {
    const rows = [i * map.rb + 1, Math.min(map.rows, (i + 1) * map.rb)];
    const cols = [j * map.cb + 1, Math.min(map.cols, (j + 1) * map.cb)];
    return {
      heading: `rows ${rows[0]}-${rows[1]}, columns ${cols[0]}-${cols[1]} (one block)`,
      lines: [map.hidden[k] ? 'every entry masked' : `mean of its visible entries ${readingText(map.mean[k])}`],
    };
  }
  const heading = `${named(map.rowLabels, i, 'row')}, ${named(map.colLabels, j, 'column')}`;
  const at = map.offset + i * map.cols + j;
  const scoring = map.quantity === 'scores' || map.quantity === 'attention';
  if (map.masked?.(i, j)) {
    const why = j > i ? 'masked: the causal mask hides a later token' : 'masked';
    return { heading, lines: scoring ? [why, 'score −∞ before softmax, weight 0 after'] : [why] };
  }
  if (!scoring) {
    const v = map.values[at];
    return { heading, lines: [`value ${readingText(Math.abs(v) < map.zeroBelow ? 0 : v)}`] };
  }
  const lines = [];
  if (map.scores) {
    const root = map.headDim ? `√${map.headDim}` : '√head_dim';
    lines.push(`q_${i + 1} · k_${j + 1} / ${root} = ${readingText(map.scores[at])} (before softmax)`);
  }
  if (map.attention) lines.push(`weight ${readingText(map.attention[at])} (after softmax)`);
  return { heading, lines };
}

/** Where `key` moves the cursor { m, i, j }; arrows past a map's bottom or top go on to the next or previous map. */
export function stepCell(heatmaps, cursor, key) {
  const { m, i, j } = cursor;
  const map = heatmaps[m];
  const clampJ = (to, jj) => Math.min(heatmaps[to].c - 1, jj);
  switch (key) {
    case 'ArrowRight':
      return { m, i, j: Math.min(map.c - 1, j + 1) };
    case 'ArrowLeft':
      return { m, i, j: Math.max(0, j - 1) };
    case 'ArrowDown':
      if (i < map.r - 1) return { m, i: i + 1, j };
      return m < heatmaps.length - 1 ? { m: m + 1, i: 0, j: clampJ(m + 1, j) } : cursor;
    case 'ArrowUp':
      if (i > 0) return { m, i: i - 1, j };
      return m > 0 ? { m: m - 1, i: heatmaps[m - 1].r - 1, j: clampJ(m - 1, j) } : cursor;
    case 'Home':
      return { m, i, j: 0 };
    case 'End':
      return { m, i, j: map.c - 1 };
    default:
      return null;
  }
}

/**
 * The top-left corner of a tip of size (width, height) for a cell box ({ left, top, right, bottom }),
 * all in one coordinate system: centred above the cell, below it when there is no room above, and
 * always inside `frame` ({ left, top, right, bottom }) as far as the tip is smaller than it.
 */
export function placeTip(cell, tip, frame, gap = 6) {
  const centred = (cell.left + cell.right) / 2 - tip.width / 2;
  const left = Math.max(frame.left, Math.min(frame.right - tip.width, centred));
  const above = cell.top - gap - tip.height;
  const below = cell.bottom + gap;
  let top;
  if (above >= frame.top) top = above;
  else if (below + tip.height <= frame.bottom) top = below;
  else top = Math.max(frame.top, frame.bottom - tip.height);
  return { left, top };
}
