// The split step as memory: q stored as (B, T, H, hd) (what the projection writes) against the
// (B, H, T, hd) order the attention needs. Cells are coloured by head (Okabe-Ito colours, safe for
// colour-blind viewers); lines follow head 1's values from one order to the other.
import { Figure } from '../../figures/figure.js';
import { textWidth, wrapText } from '../../figures/text-boxes.js';

import { headColour } from '../../figures/head-colours.js';
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

/** textScale multiplies the font sizes and the room kept for text, as on a slide. */
export function memoryLayoutFigure(T0, H0, hd0, maxWidth = 640, textScale = 1) {
  const k = textScale;
  const { T, H, hd, reduced } = layoutSizes(T0, H0, hd0);
  const n = T * H * hd;
  const C = H * hd;
  const cell = Math.max(6, Math.min(Math.round(26 * k), Math.floor((maxWidth - 16) / n)));
  const rowGap = 40 * k;
  const [titleSize, noteSize, digitSize] = [13 * k, 11 * k, 10 * k];
  const title = reduced
    ? `Memory order of q, drawn for T = ${T}, H = ${H}, hd = ${hd} (the real sizes are too many cells to draw)`
    : `Memory order of q (T = ${T}, H = ${H}, hd = ${hd}): one cell per float`;
  const lines = wrapText(title, Math.max(300, maxWidth) - 4, titleSize);
  const titleHeight = titleSize * 1.3 * lines.length;
  const captions = [
    'as projected: (B, T, H, hd), token after token',
    'after transpose(1, 2) and a contiguous copy: (B, H, T, hd), head after head',
  ];
  const legend = Array.from({ length: Math.min(H, 8) }, (_, h) => `head ${h + 1}`);
  const legendStep = 20 * k + Math.max(...legend.map((l) => textWidth(l, noteSize)));
  const labels = cell >= digitSize * 1.6;
  const note = labels ? 'numbers: token index' : '';
  const contentWidth = Math.max(
    16 + n * cell,
    8 + Math.max(...captions.map((c) => textWidth(c, noteSize))) + 4,
    8 + legend.length * legendStep + (note ? textWidth(note, noteSize) + 16 : 0),
    Math.max(...lines.map((l) => textWidth(l, titleSize, '600'))) + 2,
  );
  const y1 = titleHeight + noteSize * 1.6;
  const y2 = y1 + cell + rowGap;
  const legendY = y2 + cell + noteSize * 3;
  const fig = new Figure(Math.max(300, contentWidth), legendY + noteSize, title);
  lines.forEach((line, i) => fig.text(0, titleSize * (0.7 + 1.3 * i), line, { size: titleSize, weight: '600' }));
  fig.text(8, y1 - noteSize * 0.8, captions[0], { size: noteSize, fill: 'muted' });
  fig.text(8, y2 + cell + noteSize, captions[1], { size: noteSize, fill: 'muted' });
  for (let t = 0; t < T; t += 1) {
    for (let h = 0; h < H; h += 1) {
      for (let d = 0; d < hd; d += 1) {
        const a = t * C + h * hd + d;
        const b = h * T * hd + t * hd + d;
        const colour = headColour(h);
        fig.rect(8 + a * cell, y1, cell - 1, cell, colour);
        fig.rect(8 + b * cell, y2, cell - 1, cell, colour);
        if (labels) {
          const digit = { size: digitSize, anchor: 'middle', fill: '#111111' };
          fig.text(8 + a * cell + cell / 2, y1 + cell / 2, String(t), digit);
          fig.text(8 + b * cell + cell / 2, y2 + cell / 2, String(t), digit);
        }
        if (h === 0) fig.line(8 + a * cell + cell / 2, y1 + cell, 8 + b * cell + cell / 2, y2, 'muted', 1);
      }
    }
  }
  legend.forEach((label, h) => {
    fig.rect(8 + h * legendStep, legendY - 6 * k, 12 * k, 12 * k, headColour(h));
    fig.text(8 + h * legendStep + 16 * k, legendY, label, { size: noteSize });
  });
  if (note) fig.text(fig.width - 8, legendY, note, { size: noteSize, anchor: 'end', fill: 'muted' });
  return fig;
}
