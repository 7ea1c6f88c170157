// The attend step's figures: for every head, its scores before the softmax (q . k / sqrt(hd), the
// causal mask's cells grey: they hold -Infinity) beside its attention after it, for one sentence.
// Many heads make many small maps: the layout keeps them to a few rows.
import { heatmapFigure, heatmapTable } from '../../figures/heatmap.js';

/** More heads than this are not drawn (the JSON export has them all), as in the heads panel. */
export const MAX_ATTEND_HEADS = 16;

const roundUpEven = (n) => n + (n % 2);
const roundDownEven = (n) => Math.max(2, n - (n % 2));

/**
 * How to lay 2 x heads maps (each head's pair side by side) in `width` px: maps per row (even, so
 * pairs stay together), rows, and each map's width. Maps are at least `minSize` wide unless that
 * would need more than `maxRows` rows; then they shrink, to no less than `floorSize`.
 */
export function attendLayout(
  width,
  heads,
  { gap = 12, minSize = 112, floorSize = 90, maxRows = 4, height = Infinity, chrome = 40 } = {},
) {
  const maps = 2 * heads;
  const layout = (perRow, size = Math.floor((width + gap) / perRow) - gap) => ({
    perRow,
    rows: Math.ceil(maps / perRow),
    size,
    gap,
  });
  // Where the height is known (a slide), the number per row that gives the largest maps that fit
  // both the width and the height. `chrome` is a map's height beyond its width (title and labels).
  if (Number.isFinite(height)) {
    let best = null;
    for (let perRow = 2; perRow <= maps; perRow += 2) {
      const rows = Math.ceil(maps / perRow);
      const size = Math.min(Math.floor((width + gap) / perRow) - gap, Math.floor(height / rows - chrome - gap));
      if (size >= minSize && (!best || size > best.size)) best = layout(perRow, size);
    }
    if (best) return best;
  }
  const fit = (size) => roundDownEven(Math.floor((width + gap) / (size + gap)));
  let perRow = Math.min(maps, fit(minSize));
  if (Math.ceil(maps / perRow) > maxRows) {
    perRow = Math.max(perRow, Math.min(roundUpEven(Math.ceil(maps / maxRows)), fit(floorSize)));
  }
  return layout(perRow);
}

/** The largest |score| over the unmasked cells of heads 0..H-1 of batch entry 0: one scale for all heads. */
export function scoresScale(scores, heads, T, causal) {
  let m = 0;
  for (let h = 0; h < heads; h += 1) {
    for (let i = 0; i < T; i += 1) {
      for (let j = 0; j <= (causal ? i : T - 1); j += 1) {
        const v = Math.abs(scores[(h * T + i) * T + j]);
        if (Number.isFinite(v) && v > m) m = v;
      }
    }
  }
  return m;
}

/**
 * Items for PanelFrame.showFigures: per head (H of them: the caller caps it), scores then attention,
 * of batch entry 0.
 * attended: { scores, attention } (B, H, T, T); tokens label rows and columns when maps are wide.
 */
export function attendMapItems({ attended, T, H, hd, causal, tokens, size, textScale = 1 }) {
  // Each map's title is 13 px text: under 90 px wide even "12: softmax" would be cut.
  const masked = causal ? (i, j) => j > i : null;
  const maxAbs = scoresScale(attended.scores, H, T, causal);
  // Token labels only where they leave the cells most of the map (at a slide's type, wider maps);
  // the tooltip names the tokens of a map drawn without them.
  const wide = size >= 140 * textScale;
  const labels = wide && T <= 16 ? { rowLabels: tokens, colLabels: tokens } : {};
  const items = [];
  for (let h = 0; h < H; h += 1) {
    const name = wide ? `head ${h + 1}` : `${h + 1}`;
    // The tooltip names the tokens even where the map is too small to label, and gives both numbers.
    const tip = { cellLabels: tokens, headDim: hd };
    const common = { offset: h * T * T, rows: T, cols: T, masked, ...labels, ...tip };
    const scores = {
      ...common,
      values: attended.scores,
      scale: 'signed',
      maxAbs,
      title: `${name}: scores`,
      quantity: 'scores',
      attention: attended.attention,
    };
    const attention = {
      ...common,
      values: attended.attention,
      scale: 'probability',
      title: `${name}: softmax`,
      quantity: 'attention',
      scores: attended.scores,
    };
    const mask = causal ? ', grey cells masked (minus infinity)' : '';
    items.push(
      {
        figure: heatmapFigure({ ...scores, maxWidth: size, textScale }),
        table: () =>
          heatmapTable({
            ...scores,
            rowLabels: tokens,
            colLabels: tokens,
            title: `Head ${h + 1} scores before softmax`,
          }),
        label: `Head ${h + 1} scores before softmax, q.k / sqrt(${hd}), ${T} by ${T}${mask}`,
      },
      {
        figure: heatmapFigure({ ...attention, maxWidth: size, textScale }),
        table: () =>
          heatmapTable({
            ...attention,
            rowLabels: tokens,
            colLabels: tokens,
            title: `Head ${h + 1} attention after softmax`,
          }),
        label: `Head ${h + 1} attention after softmax, ${T} by ${T}, each row sums to 1`,
      },
    );
  }
  return { items, maxAbs };
}
