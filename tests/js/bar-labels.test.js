// A bar chart labels every bar of 0.05 or more with its value, a full bar too, as the text says it:
// "1.00" and "0.50", never "1" or ".50", reaching over empty neighbours where the bands are narrow (the why panel's
// rows of the last "it", the Learn panel's maps from "?").
import { expect, test } from 'vitest';
import { barsFigure } from '../../web/explorer/figures/charts.js';

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
    expect(shown[0], `maxWidth ${maxWidth}: the full bar's label`).toBe('1.00');
    expect(shown[1], `maxWidth ${maxWidth}: the half bar's label`).toBe('0.50');
  }
});

// The Learn panel's 1-head map on a 1280x720 slide: text x 1.43, half the figure column, bands of 24 px
// where ".55" is wider than its bar. Its neighbours are empty, so the label reaches over them.
test('a value wider than its band is drawn over empty neighbours, and never over another label', async () => {
  const { textProblems } = await import('../../web/explorer/figures/text-boxes.js');
  const labels = 'the dog chase the cat and the boy catch the ball ?'.split(' ');
  const at = (values) => {
    const figure = barsFigure({ rows: [{ name: 'head 1', values }], labels, title: 't', maxWidth: 300, height: 70 });
    return { figure, ...barLabels(figure) };
  };
  const k = 1.43;
  const values = labels.map((_, i) => (i === 10 ? 0.55 : i === 8 ? 0.2 : 0.01));
  const figure = barsFigure({
    rows: [{ name: 'head 1', values }],
    labels,
    title: 't',
    maxWidth: 304,
    height: 70,
    textScale: k,
  });
  const { shown, band } = barLabels(figure);
  expect(band).toBeLessThan(25);
  expect(shown[10]).toMatch(/^(0\.55|\.55)$/);
  expect(shown[8]).toMatch(/^(0\.20|\.20)$/);
  expect(textProblems(figure)).toEqual([]);
  // Side by side, 0.50 and 0.45 in narrow bands: the larger is labelled, and no two labels touch.
  const crowded = at(labels.map((_, i) => (i === 4 ? 0.5 : i === 5 ? 0.45 : i === 6 ? 0.05 : 0)));
  expect(crowded.shown[4]).toMatch(/^(0\.50|\.50)$/);
  expect(textProblems(crowded.figure)).toEqual([]);
});

test('ticks: false draws no axis labels and makes the chart narrower', () => {
  const labels = 'the dog chase the cat and the boy catch the ball ?'.split(' ');
  const values = labels.map((_, i) => (i === 10 ? 1 : 0));
  const make = (ticks) =>
    barsFigure({ rows: [{ name: 'head 1', values }], labels, title: 't', maxWidth: 304, textScale: 1.43, ticks });
  const axis = (figure) => figure.items.filter((it) => it.kind === 'text' && it.anchor === 'end').map((it) => it.text);
  expect(axis(make(true))).toEqual(['0.0', '0.5', '1.0']);
  expect(axis(make(false))).toEqual([]);
  expect(make(false).width).toBeLessThanOrEqual(304);
  expect(make(true).width).toBeGreaterThan(304);
});

function barLabels(figure) {
  const bars = figure.items.filter((it) => it.kind === 'rect' && it.fill === 'accent');
  const texts = figure.items.filter((it) => it.kind === 'text' && it.anchor === 'middle');
  const over = (bar) => texts.find((t) => Math.abs(t.x - (bar.x + bar.w / 2)) < 0.5 && t.y < bar.y);
  return { shown: bars.map((bar) => over(bar)?.text), band: bars[1].x - bars[0].x };
}

// The why slide's two heads, squeezed: the upper row's 0 tick stood at the height of "head 2" and
// read "0.0 head 2". A row with another under it has no 0 label; the last row keeps it.
test('stacked rows: no 0 tick beside the next row name', () => {
  const labels = 'The dog chased the ball'.split(' ');
  const rows = [
    { name: 'head 1', values: [0, 0, 0, 0, 1] },
    { name: 'head 2', values: [0, 1, 0, 0, 0] },
  ];
  for (const height of [40, 70, 150]) {
    const figure = barsFigure({ rows, labels, title: 't', maxWidth: 300, height, textScale: 1.4 });
    const ticks = figure.items.filter((it) => it.kind === 'text' && it.anchor === 'end');
    const name = figure.items.find((it) => it.kind === 'text' && it.text === 'head 2');
    expect(ticks.map((t) => t.text).filter((t) => t === '0.0')).toHaveLength(1);
    const zero = ticks.find((t) => t.text === '0.0');
    expect(zero.y, `height ${height}: the 0 label is the last row's`).toBeGreaterThan(name.y);
    // No tick label within a line of "head 2"'s height.
    expect(
      ticks.every((t) => Math.abs(t.y - name.y) >= 0.8 * name.size),
      `height ${height}`,
    ).toBe(true);
  }
});
