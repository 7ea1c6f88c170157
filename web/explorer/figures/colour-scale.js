// Colour scales readable with the common colour-vision deficiencies: viridis for values in
// [0, 1] (attention), a purple-white-orange diverging scale (ColorBrewer PuOr) for signed values.
import { VIRIDIS_DATA } from './viridis-data.js';

// Heatmaps colour thousands of cells per frame, so each scale is a lookup table.
const LEVELS = 256;
const hex = (rgb) => `#${rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
const rgb = (colour) => [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));

/** Viridis as '#rrggbb', entry k being matplotlib's entry k rounded to 8 bits per channel. */
export const VIRIDIS_LUT = Object.freeze(
  Array.from({ length: LEVELS }, (_, k) => hex([0, 1, 2].map((ch) => Math.round(VIRIDIS_DATA[3 * k + ch] * 255)))),
);

// PuOr has five published stops; the levels between them are interpolated linearly in RGB. An odd
// number of levels (257) puts a level exactly on every stop, so zero is drawn white.
const DIVERGING_LEVELS = 257;
const PUOR_RGB = ['#5e3c99', '#b2abd2', '#f7f7f7', '#fdb863', '#e66101'].map(rgb);
function sample(stops, t) {
  const u = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(u));
  const f = u - i;
  return hex(stops[i].map((a, ch) => Math.round(a + (stops[i + 1][ch] - a) * f)));
}
const PUOR_LUT = Object.freeze(
  Array.from({ length: DIVERGING_LEVELS }, (_, k) => sample(PUOR_RGB, k / (DIVERGING_LEVELS - 1))),
);

/** The index for t in [0, 1] in a table of `levels` entries: nearest, clamped; NaN gives 0. */
export function level(t, levels = LEVELS) {
  return Number.isFinite(t) ? Math.min(levels - 1, Math.max(0, Math.round(t * (levels - 1)))) : 0;
}

/** t in [0, 1] -> a viridis colour. */
export const viridis = (t) => VIRIDIS_LUT[level(t)];

/** v in [-maxAbs, maxAbs] -> purple (negative), white (zero), orange (positive). */
export const diverging = (v, maxAbs) => PUOR_LUT[level(maxAbs > 0 ? 0.5 + v / (2 * maxAbs) : 0.5, DIVERGING_LEVELS)];

/** Black or white, whichever reads better on the colour. */
export function textOn(colour) {
  const [r, g, b] = rgb(colour);
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? '#111111' : '#ffffff';
}

/** WCAG 2 relative luminance of a '#rrggbb' colour. */
export function relativeLuminance(colour) {
  const [r, g, b] = rgb(colour).map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two '#rrggbb' colours, from 1 (same) to 21 (black on white). */
export function contrastRatio(a, b) {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
