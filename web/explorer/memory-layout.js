// The split step as memory: q stored as (B, T, H, hd) (what the projection writes) against the
// (B, H, T, hd) order the attention needs. Cells are coloured by head (Okabe-Ito colours, safe for
// colour-blind viewers); lines follow head 1's values from one order to the other.
import { Figure } from './figure.js';

export const HEAD_COLOURS = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7', '#999999'];
const MAX_CELLS = 72;

/** The sizes drawn: the real ones when small enough, otherwise a reduced illustration. */
export function layoutSizes(T, H, hd) {
  if (T * H * hd <= MAX_CELLS) return { T, H, hd, reduced: false };
  return { T: Math.min(T, 4), H: Math.min(H, 3), hd: Math.min(hd, 3), reduced: true };
}

/** Shapes and strides (in floats) of q around the split, for a batch of B sentences. */
export function stridesOf(T, H, hd, B = 1) {
  const C = H * hd;
  return {
    view: { shape: [B, T, H, hd], strides: [T * C, C, hd, 1] },
    transposed: { shape: [B, H, T, hd], strides: [T * C, hd, C, 1] },
    contiguous: { shape: [B, H, T, hd], strides: [H * T * hd, T * hd, hd, 1] },
  };
}

export function memoryLayoutFigure(T0, H0, hd0, maxWidth = 640) {
  const { T, H, hd, reduced } = layoutSizes(T0, H0, hd0);
  const n = T * H * hd;
  const C = H * hd;
  const cell = Math.max(6, Math.min(26, Math.floor((maxWidth - 16) / n)));
  const rowGap = 70;
  const title = reduced
    ? `Memory order of q, drawn for T = ${T}, H = ${H}, hd = ${hd} (the real sizes are too many cells to draw)`
    : `Memory order of q (T = ${T}, H = ${H}, hd = ${hd}): one cell per float`;
  const fig = new Figure(Math.max(300, 16 + n * cell), 40 + 2 * cell + rowGap + 56, title);
  fig.text(0, 10, title, { size: 13, weight: '600' });
  const y1 = 40;
  const y2 = y1 + cell + rowGap;
  fig.text(8, y1 - 10, 'as projected: (B, T, H, hd), token after token', { size: 11, fill: 'muted' });
  fig.text(8, y2 + cell + 12, 'after transpose(1, 2) and a contiguous copy: (B, H, T, hd), head after head', {
    size: 11,
    fill: 'muted',
  });
  const labels = cell >= 16;
  for (let t = 0; t < T; t += 1) {
    for (let h = 0; h < H; h += 1) {
      for (let d = 0; d < hd; d += 1) {
        const a = t * C + h * hd + d;
        const b = h * T * hd + t * hd + d;
        const colour = HEAD_COLOURS[h % HEAD_COLOURS.length];
        fig.rect(8 + a * cell, y1, cell - 1, cell, colour);
        fig.rect(8 + b * cell, y2, cell - 1, cell, colour);
        if (labels) {
          fig.text(8 + a * cell + cell / 2, y1 + cell / 2, String(t), { size: 10, anchor: 'middle', fill: '#111111' });
          fig.text(8 + b * cell + cell / 2, y2 + cell / 2, String(t), { size: 10, anchor: 'middle', fill: '#111111' });
        }
        if (h === 0) fig.line(8 + a * cell + cell / 2, y1 + cell, 8 + b * cell + cell / 2, y2, 'muted', 1);
      }
    }
  }
  const legendY = y2 + cell + 36;
  for (let h = 0; h < Math.min(H, 8); h += 1) {
    fig.rect(8 + h * 70, legendY - 6, 12, 12, HEAD_COLOURS[h]);
    fig.text(24 + h * 70, legendY, `head ${h + 1}`, { size: 11 });
  }
  if (labels) fig.text(fig.width - 8, legendY, 'numbers: token index', { size: 11, anchor: 'end', fill: 'muted' });
  return fig;
}
