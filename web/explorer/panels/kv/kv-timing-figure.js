// "Time generation"'s figure: per context length T, the next token's rate with the KV cache and
// without it (a forward pass over the T tokens), as horizontal bars in tokens per second on one
// linear scale, each with its tokens/s and ms, the slower one with the ratio. Rows from
// kv-timing-numbers.js (generationRows); nothing here measures. The figure's `bars` say what each
// bar shows (read by the tests).
import { Figure } from '../../figures/figure.js';
import { textWidth } from '../../figures/text-boxes.js';
import { msText, rateText, ratioText } from './kv-timing-numbers.js';

export const TIMING_TITLE = 'Next token at GPT-2 width: tokens per second';

const SIDES = [
  { side: 'cache', name: 'with the cache', rate: 'cachedPerSecond', ms: 'cachedMs', fill: 'accent' },
  { side: 'forward', name: 'without (forward)', rate: 'forwardPerSecond', ms: 'forwardMs', fill: 'accent2' },
];

export function generationFigure({ rows, maxWidth, textScale: k = 1 }) {
  const titleSize = 13 * k;
  const size = 11 * k;
  const bars = rows.flatMap((r) =>
    SIDES.map((s, i) => ({
      T: r.T,
      side: s.side,
      name: i === 0 ? `T ${r.T}, ${s.name}` : s.name,
      perSecond: r[s.rate],
      ms: r[s.ms],
      fill: s.fill,
      // Short enough for half a slide: "29.8 tokens/s, 33.6 ms (22x)" (the ratio on the slower bar).
      value: `${rateText(r[s.rate])} tokens/s, ${msText(r[s.ms])} ms` + (i === 1 ? ` (${ratioText(r.ratio)})` : ''),
      first: i === 0,
    })),
  );
  const labelWidth = Math.ceil(Math.max(...bars.map((b) => textWidth(b.name, size))) + 6 * k);
  const valueWidth = Math.ceil(Math.max(...bars.map((b) => textWidth(b.value, size))) + 8 * k);
  const width = Math.max(maxWidth, labelWidth + valueWidth + 40 * k, textWidth(TIMING_TITLE, titleSize, '600') + 2);
  const plot = width - labelWidth - valueWidth;
  const rowHeight = Math.ceil(size * 1.5);
  const gap = Math.ceil(size * 0.5);
  const top = Math.ceil(titleSize * 1.6);
  const fig = new Figure(width, top + bars.length * rowHeight + rows.length * gap + 2, TIMING_TITLE);
  fig.text(0, titleSize * 0.75, TIMING_TITLE, { size: titleSize, weight: '600' });
  const most = Math.max(...bars.map((b) => b.perSecond));
  fig.bars = [];
  bars.forEach((b, i) => {
    const y = top + i * rowHeight + Math.floor(i / 2) * gap;
    const w = Math.max(2, (b.perSecond / most) * plot);
    fig.text(labelWidth - 6 * k, y + rowHeight / 2, b.name, { size, anchor: 'end', fill: b.first ? 'fg' : 'muted' });
    fig.rect(labelWidth, y + 2, w, rowHeight - 4, b.fill);
    fig.text(labelWidth + w + 4 * k, y + rowHeight / 2, b.value, { size });
    fig.bars.push({ T: b.T, side: b.side, perSecond: b.perSecond, ms: b.ms, width: w, label: b.value });
  });
  return fig;
}
