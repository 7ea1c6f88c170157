// The out-projection as the product it is: concat @ W_out = output, three heatmaps left to right
// with their shapes. A W_out too large to draw cell by cell is drawn as block averages, which for
// random weights are all close to 0 (a pale, empty field); under it a crop of its top-left corner
// at full resolution shows the weights themselves.
import { heatmapFigure } from './heatmap.js';
import { MAX_DRAWN_COLS, MAX_DRAWN_ROWS } from './heatmap-cells.js';
import { OPERATOR_WIDTH, productFigure } from './product-figure.js';
import { shapeText } from '../dom.js';

export const CROP_SIZE = 64;

/** The top-left rows x cols corner of a row-major matrix of width `width`, as its own matrix. */
export function cropOf(values, width, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i += 1) out.set(values.subarray(i * width, i * width + cols), i * cols);
  return out;
}

/** Whether a heatmap of this size is drawn as block averages (heatmap-cells.js pools it). */
export const isPooled = (rows, cols) => rows > MAX_DRAWN_ROWS || cols > MAX_DRAWN_COLS;

/** The product's title, e.g. "out-project: output = concat @ W_out, (2, 6, 6) @ (6, 6) = (2, 6, 6)". */
export const outProjectTitle = (shapes) =>
  `out-project: output = concat @ W_out, ${shapeText(shapes.concat)} @ ${shapeText(shapes.wOut)} = ` +
  `${shapeText(shapes.output)}`;

/** The heads under the columns of a (.., H * hd) matrix, as columnBands. */
export const headBands = (H, hd) =>
  Array.from({ length: H }, (_, h) => ({ from: h * hd, to: (h + 1) * hd, label: `head ${h + 1}` }));

/**
 * concat (B*T, C), wOut (C, D), output (B*T, D); shapes: { concat, wOut, output } as arrays for the
 * titles (e.g. [2, 6, 6]); rowLabels for the B*T rows; bands: the heads under concat's columns;
 * highlightRow: a row drawn outlined in concat and output. stackIfNarrow: when three maps side by side
 * would be drawn under 80% of their size in maxWidth (a phone), they stand top to bottom instead,
 * each as wide as maxWidth (W_out's maps at most 60% of that tall).
 */
export function outProjectFigure({
  concat,
  wOut,
  output,
  rows,
  C,
  D,
  shapes,
  rowLabels,
  bands,
  maxWidth,
  maxHeight = Infinity,
  textScale = 1,
  highlightRow = null,
  stackIfNarrow = false,
}) {
  // Under 210 px the titles would not fit (nor 96 pooled columns 2 px wide): the canvas then scales
  // the whole product down.
  const stacked = stackIfNarrow && maxWidth < 0.8 * (3 * 210 + 2 * OPERATOR_WIDTH * textScale);
  const each = stacked ? Math.max(210, maxWidth) : Math.max(210, Math.floor((maxWidth - 2 * 28) / 3));
  // Row labels only where rows are tall enough to read them.
  const labels = isPooled(rows, C) ? {} : { rowLabels };
  const map = (o) => heatmapFigure({ maxWidth: each, maxHeight, textScale, ...o });
  const cropped = isPooled(C, D);
  // W_out's column holds two maps when it is cropped: each gets half the height.
  const half = Math.min(cropped ? maxHeight / 2 : maxHeight, stacked ? each * 0.6 : Infinity);
  const wOutColumn = [
    map({ values: wOut, rows: C, cols: D, title: `W_out ${shapeText(shapes.wOut)}`, maxHeight: half }),
  ];
  if (cropped) {
    const r = Math.min(CROP_SIZE, C);
    const c = Math.min(CROP_SIZE, D);
    wOutColumn.push(
      map({
        values: cropOf(wOut, D, r, c),
        rows: r,
        cols: c,
        title: `W_out[0:${r}, 0:${c}]: every weight`,
        maxHeight: half,
      }),
    );
  }
  const title = outProjectTitle(shapes);
  const concatMap = map({
    values: concat,
    rows,
    cols: C,
    ...labels,
    columnBands: bands,
    title: `concat ${shapeText(shapes.concat)}`,
    highlightRow,
  });
  // The output's rows as tall as concat's (whose head bands under it took some of the height): the two
  // grids then have the same rows, side by side.
  const concatGrid = concatMap.items.find((it) => it.kind === 'grid');
  const outputMap = (o) => {
    const free = map(o);
    const grid = free.items.find((it) => it.kind === 'grid');
    if (grid.cellH === concatGrid.cellH) return free;
    return map({ ...o, cellSize: [Math.min(grid.cellW, concatGrid.cellH), concatGrid.cellH] });
  };
  const { figure, boxes } = productFigure(
    [
      [concatMap],
      '@',
      wOutColumn,
      '=',
      // The same row labels as concat: the two grids then have the same rows, side by side.
      [
        outputMap({
          values: output,
          rows,
          cols: D,
          ...labels,
          title: `output ${shapeText(shapes.output)}`,
          highlightRow,
        }),
      ],
    ],
    { title, maxWidth, textScale, stacked },
  );
  return { figure, boxes, cropped, stacked };
}
