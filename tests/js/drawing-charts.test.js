// The charts' axes: log ticks, where each tick and point lands, and the bar chart's scale, from
// the figures' drawing lists against positions computed here.
import { describe, expect, test } from 'vitest';
import {
  barsFigure,
  logLogFigure,
  logPosition,
  logTicks,
  ratioFigure,
  tickLabel,
} from '../../web/explorer/figures/charts.js';
import { textProblems } from '../../web/explorer/figures/text-boxes.js';
import { contrastRatio } from '../../web/explorer/figures/colour-scale.js';
import { DARK, LIGHT } from '../../web/explorer/figures/figure.js';

const close = (a, b) => Math.abs(a - b) <= 1e-9 + 1e-9 * Math.abs(b);

// The plot's frame (an outlined rect): the legend above it moves it down, its scales are inside it.
const plotFrame = (figure) => figure.items.find((it) => it.kind === 'rect' && !it.fill && it.stroke === 'muted');

describe('log axes', () => {
  test('ticks: the powers of ten inside the range, else the 1-2-5 steps inside it', () => {
    expect(logTicks(2, 4000)).toEqual([10, 100, 1000]);
    expect(logTicks(1, 1000)).toEqual([1, 10, 100, 1000]);
    expect(logTicks(1.3, 12)).toEqual([2, 5, 10]);
    expect(logTicks(0.03, 0.3)).toEqual([0.05, 0.1, 0.2]);
    expect(logTicks(3, 4)).toEqual([]);
    expect(logTicks(0, 10)).toEqual([]);
    expect(logTicks(10, 1)).toEqual([]);
  });

  test('positions are linear in log10, ends on the ends; labels from 1000 up in exponent form', () => {
    expect(logPosition(2, 2, 4000, 64, 624)).toBe(64);
    expect(close(logPosition(4000, 2, 4000, 64, 624), 624)).toBe(true);
    const want = 64 + ((Math.log(100) - Math.log(2)) / (Math.log(4000) - Math.log(2))) * 560;
    expect(close(logPosition(100, 2, 4000, 64, 624), want)).toBe(true);
    expect(logPosition(5, 5, 5, 10, 20)).toBe(10);
    expect([tickLabel(10), tickLabel(100), tickLabel(1000), tickLabel(20000)]).toEqual(['10', '100', '1e+3', '2e+4']);
  });

  test('the log-log figure puts each tick label and each point where the scale says', () => {
    const series = [
      {
        name: 'loop',
        colour: '#D55E00',
        points: [
          [2, 3],
          [16, 20],
          [4000, 9000],
        ],
      },
    ];
    const options = {
      series,
      title: 't',
      xLabel: 'heads',
      yLabel: 'us',
      maxWidth: 640,
      height: 320,
      xRange: [2, 4000],
    };
    const figure = logLogFigure(options);
    const { x: left, y: top, w, h } = plotFrame(figure);
    const [y0, y1] = [3 / 1.5, 9000 * 1.5];
    const texts = figure.items.filter((it) => it.kind === 'text');
    for (const t of [10, 100, 1000]) {
      const label = texts.find((it) => it.text === String(t) && it.anchor === 'middle');
      expect(label, `x tick ${t}`).toBeTruthy();
      const x = left + (Math.log(t / 2) / Math.log(4000 / 2)) * w;
      expect(close(label.x, x), `x tick ${t} at ${label.x}, want ${x}`).toBe(true);
    }
    for (const t of [10, 100, 1000, 10000]) {
      const label = texts.find((it) => it.text === tickLabel(t) && it.anchor === 'end');
      expect(label, `y tick ${t}`).toBeTruthy();
      const y = top + h - (Math.log(t / y0) / Math.log(y1 / y0)) * h;
      expect(close(label.y, y), `y tick ${t} at ${label.y}, want ${y}`).toBe(true);
    }
    const line = figure.items.find((it) => it.kind === 'polyline');
    series[0].points.forEach(([px, py], k) => {
      expect(close(line.points[k][0], left + (Math.log(px / 2) / Math.log(2000)) * w)).toBe(true);
      expect(close(line.points[k][1], top + h - (Math.log(py / y0) / Math.log(y1 / y0)) * h)).toBe(true);
    });
  });
});

describe('the min-max band of a log-log series', () => {
  test('a translucent polygon along the highs, back along the lows, where the scale says', () => {
    const band = [
      [2, 0.002, 0.004],
      [64, 0.01, 0.03],
      [4000, 1.2, 2.5],
    ];
    const series = [{ name: 'fused', colour: '#0072B2', points: band.map(([x, lo, hi]) => [x, (lo + hi) / 2]), band }];
    const figure = logLogFigure({ series, title: 't', xLabel: 'h', yLabel: 'ms', maxWidth: 640, height: 320 });
    const { x: left, y: top, w, h } = plotFrame(figure);
    // The y range covers the band's extremes, not only the medians.
    const [y0, y1] = [0.002 / 1.5, 2.5 * 1.5];
    const lx = (v) => left + (Math.log(v / 2) / Math.log(4000 / 2)) * w;
    const ly = (v) => top + h - (Math.log(v / y0) / Math.log(y1 / y0)) * h;
    const polygons = figure.items.filter((it) => it.kind === 'polygon');
    expect(polygons).toHaveLength(1);
    const [poly] = polygons;
    expect(poly.fill).toBe('#0072B2');
    expect(poly.opacity).toBeGreaterThan(0);
    expect(poly.opacity).toBeLessThan(1);
    const want = [...band.map(([x, , hi]) => [lx(x), ly(hi)]), ...band.map(([x, lo]) => [lx(x), ly(lo)]).reverse()];
    expect(poly.points).toHaveLength(want.length);
    poly.points.forEach(([x, y], k) => {
      expect(close(x, want[k][0]), `x of vertex ${k}`).toBe(true);
      expect(close(y, want[k][1]), `y of vertex ${k}: ${y}, want ${want[k][1]}`).toBe(true);
    });
    // Drawn before the line, so the line stays on top.
    expect(figure.items.indexOf(poly)).toBeLessThan(figure.items.findIndex((it) => it.kind === 'polyline'));
    expect(figure.toSVG()).toMatch(/<polygon points="[^"]+" fill="#0072B2" fill-opacity="0.25"\/>/);
  });

  test('fractional tick labels read as decimals, without float noise', () => {
    expect(logTicks(0.002, 4).map(tickLabel)).toEqual(['0.01', '0.1', '1']);
    expect(tickLabel(3 * 0.1)).toBe('0.3');
  });
});

describe('bar chart', () => {
  test('ticks 0, 0.5, 1 evenly up the bar area; bars of height value x that area; contrast >= 3:1', () => {
    const values = [0, 0.25, 0.5, 1];
    const height = 150;
    const labels = ['a', 'b', 'c', 'd'];
    const figure = barsFigure({ rows: [{ name: 'one head', values }], labels, title: 't', height });
    const tick = (t) =>
      figure.items.find((it) => it.kind === 'text' && it.text === t.toFixed(1) && it.anchor === 'end');
    const base = tick(0).y;
    const plot = base - tick(1).y;
    // The row's name and the room for a full bar's value take the top of the row's height.
    expect(plot).toBeGreaterThan(height - 40);
    expect(plot).toBeLessThan(height);
    expect(tick(0.5).y).toBe(base - plot / 2);
    const bars = figure.items.filter((it) => it.kind === 'rect');
    expect(bars.length).toBe(values.length);
    bars.forEach((bar, i) => {
      expect(bar.h).toBe(values[i] * plot);
      expect(bar.y + bar.h).toBe(base);
      // WCAG 1.4.11: a graphic needs 3:1 against what is next to it, here the background.
      for (const palette of [LIGHT, DARK]) {
        const fill = palette[bar.fill] ?? bar.fill;
        expect(contrastRatio(fill, palette.bg), `bar ${i} (${fill}) on ${palette.bg}`).toBeGreaterThanOrEqual(3);
      }
    });
  });
});

describe('the ratio chart', () => {
  test('one bar per x, its height the ratio over a 0-based axis, the last bar labelled with its value', () => {
    const points = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 2000, 4000].map((x, i) => [x, 1 + i * 0.25]);
    const figure = ratioFigure({ points, title: 'loop / fused', xLabel: 'heads', yLabel: 'x', colour: '#D55E00' });
    const bars = figure.items.filter((it) => it.kind === 'rect' && it.fill === '#D55E00');
    expect(bars).toHaveLength(12);
    const base = bars[0].y + bars[0].h;
    for (const [i, bar] of bars.entries()) {
      expect(close(bar.y + bar.h, base), `bar ${i} stands on the axis`).toBe(true);
      expect(close(bar.h / points[i][1], bars[0].h / points[0][1]), `bar ${i} height`).toBe(true);
      if (i > 0) expect(bar.x).toBeGreaterThan(bars[i - 1].x + bars[i - 1].w);
    }
    const texts = figure.items.filter((it) => it.kind === 'text').map((it) => it.text);
    expect(texts).toContain('3.8x');
    expect(textProblems(figure)).toEqual([]);
  });
});
