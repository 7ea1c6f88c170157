// A bar chart labels every bar of 0.05 or more with its value, a full bar too: "1.00", or "1" where
// the bands are narrow (the why panel's rows of the last "it", the Learn panel's maps from "?").
import { expect, test } from 'vitest';
import { barsFigure } from '../../web/explorer/charts.js';

test('bars at 1.00 keep their value labels in narrow bands', () => {
  const labels = 'The dog chased the ball , but it could not catch it'.split(' ');
  for (const maxWidth of [250, 300, 480]) {
    const values = labels.map((_, i) => (i === 4 ? 1 : i === 10 ? 0.5 : 0));
    const figure = barsFigure({ rows: [{ name: 'head 1', values }], labels, title: 't', maxWidth, height: 70 });
    const bars = figure.items.filter((it) => it.kind === 'rect' && it.fill === 'accent' && it.h > 0);
    const texts = figure.items.filter((it) => it.kind === 'text' && it.anchor === 'middle');
    const over = (bar) => texts.find((t) => Math.abs(t.x - (bar.x + bar.w / 2)) < 0.5 && t.y < bar.y);
    expect(bars).toHaveLength(2);
    const shown = bars.map((bar) => over(bar)?.text);
    expect(shown[0], `maxWidth ${maxWidth}: the full bar's label`).toMatch(/^(1\.00|1)$/);
    if (maxWidth >= 480) expect(shown[1]).toMatch(/^(0\.50|\.50)$/);
  }
});
