// text-boxes.js: a text item's box as drawn (anchor, baseline in the middle, rotation) and the
// problems found in a figure: overlapping labels, a label on a curve, a label cut at the edge.
import { describe, expect, test } from 'vitest';
import { overlaps, textBox, textProblems, wrapText } from '../../web/explorer/figures/text-boxes.js';
import { Figure } from '../../web/explorer/figures/figure.js';
import { heatmapFigure } from '../../web/explorer/figures/heatmap.js';
import { barsFigure } from '../../web/explorer/figures/charts.js';

const box = (corners) => corners.map(([x, y]) => [Math.round(x * 1000) / 1000, Math.round(y * 1000) / 1000]);

describe('text boxes', () => {
  test('anchors: start, middle and end put the box right of, around and left of x; one em tall', () => {
    const item = { x: 100, y: 50, size: 10, text: 'abcd' };
    expect(box(textBox({ ...item, anchor: 'start' }, 40))).toEqual([
      [100, 45],
      [140, 45],
      [140, 55],
      [100, 55],
    ]);
    expect(box(textBox({ ...item, anchor: 'middle' }, 40))).toEqual([
      [80, 45],
      [120, 45],
      [120, 55],
      [80, 55],
    ]);
    expect(box(textBox({ ...item, anchor: 'end' }, 40))).toEqual([
      [60, 45],
      [100, 45],
      [100, 55],
      [60, 55],
    ]);
  });

  test('rotation turns the box around (x, y): -90 stands it up', () => {
    const up = box(textBox({ x: 10, y: 100, size: 10, text: 'x', anchor: 'start', rotate: -90 }, 40));
    expect(up).toEqual([
      [5, 100],
      [5, 60],
      [15, 60],
      [15, 100],
    ]);
  });

  test('overlap: boxes side by side are apart, touching counts as apart, a rotated box can cross', () => {
    const a = textBox({ x: 0, y: 0, size: 10, anchor: 'start' }, 20);
    expect(overlaps(a, textBox({ x: 20, y: 0, size: 10, anchor: 'start' }, 20))).toBe(false);
    expect(overlaps(a, textBox({ x: 15, y: 0, size: 10, anchor: 'start' }, 20))).toBe(true);
    expect(overlaps(a, textBox({ x: 0, y: 10, size: 10, anchor: 'start' }, 20))).toBe(false);
    // Two labels turned -45 degrees from x = 0 and x = 8, 10 px tall: 8 * sin 45 = 5.7 < 10, they cross.
    const turned = (x) => textBox({ x, y: 50, size: 10, anchor: 'start', rotate: -45 }, 40);
    expect(overlaps(turned(0), turned(8))).toBe(true);
    expect(overlaps(turned(0), turned(15))).toBe(false);
    // Against a segment (a curve's piece).
    expect(
      overlaps(
        a,
        [
          [-5, -20],
          [25, 20],
        ],
        0,
      ),
    ).toBe(true);
    expect(
      overlaps(
        a,
        [
          [-5, 20],
          [25, 20],
        ],
        0,
      ),
    ).toBe(false);
  });

  test('textProblems names overlapping labels, text outside the figure and text on a curve', () => {
    const measure = (text, size) => text.length * size * 0.6;
    const fig = new Figure(100, 60);
    fig.text(0, 10, 'head 9', { size: 10 });
    fig.text(30, 10, 'head 10', { size: 10 });
    fig.text(95, 40, 'cut', { size: 10 });
    fig.polyline([
      [0, 55],
      [60, 50],
    ]);
    fig.text(20, 52, 'on', { size: 8 });
    const problems = textProblems(fig, measure);
    expect(problems).toContain('"head 9" overlaps "head 10"');
    expect(problems.some((p) => p.startsWith('"cut" leaves the figure'))).toBe(true);
    expect(problems).toContain('"on" lies on a curve');
    expect(problems).toHaveLength(3);
  });

  test('wrapText keeps each line within the width (by the estimate outside a browser)', () => {
    const lines = wrapText('output = concat @ W_out (T = 12, d_model = 768)', 150, 13);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join(' ')).toBe('output = concat @ W_out (T = 12, d_model = 768)');
    for (const line of lines.slice(0, -1)) expect(line.length * 13 * 0.64).toBeLessThanOrEqual(150);
  });
});

describe('figures lay their text out apart and inside (estimated widths)', () => {
  const tokens = 'The dog chased the ball , but it could not catch it'.split(' ');
  const attention = new Float32Array(144).map((_, n) => ((n * 37) % 100) / 100);
  for (const textScale of [1, 1.16, 1.74]) {
    for (const maxWidth of [90, 160, 300, 600]) {
      test(`a 12 x 12 map with labels, ${maxWidth} px wide, text x ${textScale}`, () => {
        const fig = heatmapFigure({
          values: attention,
          rows: 12,
          cols: 12,
          rowLabels: tokens,
          colLabels: tokens,
          scale: 'probability',
          title: 'output = concat @ W_out (T = 12, d_model = 6)',
          maxWidth,
          maxHeight: 200 * textScale,
          highlightRow: 11,
          textScale,
        });
        expect(textProblems(fig)).toEqual([]);
      });
    }
    test(`concat of 12 heads (12 x 768) with its head bands, text x ${textScale}`, () => {
      const bands = Array.from({ length: 12 }, (_, h) => ({ from: h * 64, to: (h + 1) * 64, label: `head ${h + 1}` }));
      const fig = heatmapFigure({
        values: new Float32Array(12 * 768).map((_, n) => Math.sin(n)),
        rows: 12,
        cols: 768,
        rowLabels: tokens,
        columnBands: bands,
        title: "concat: the 12 heads' contexts side by side (T = 12, 12 x 64 = 768)",
        maxWidth: 520,
        textScale,
      });
      expect(textProblems(fig)).toEqual([]);
      // Squeezed under a slide's height: rows thinner than their labels, which then thin out.
      const squeezed = heatmapFigure({
        values: new Float32Array(12 * 768).map((_, n) => Math.sin(n)),
        rows: 12,
        cols: 768,
        rowLabels: tokens,
        columnBands: bands,
        title: "concat: the 12 heads' contexts side by side (T = 12, 12 x 64 = 768)",
        maxWidth: 200,
        maxHeight: 150 * textScale,
        highlightRow: 5,
        textScale,
      });
      expect(squeezed.items.filter((it) => it.kind === 'text' && tokens.includes(it.text)).length).toBeLessThan(12);
      expect(textProblems(squeezed)).toEqual([]);
    });
    test(`bars over 12 words, values printed only where they fit, text x ${textScale}`, () => {
      const fig = barsFigure({
        rows: [{ name: 'head 1', values: [0.11, 0.18, 0.05, 0.09, 0.3, 0.07, 0.06, 0.05, 0.02, 0.03, 0.02, 0.02] }],
        labels: tokens,
        title: '1 head: attention from "?"',
        maxWidth: 280,
        height: 70,
        textScale,
      });
      expect(textProblems(fig)).toEqual([]);
    });
  }
});
