// Colour scales readable with the common colour-vision deficiencies: viridis for values in
// [0, 1] (attention), a purple-white-orange diverging scale (ColorBrewer PuOr) for signed values.

const VIRIDIS = ['#440154', '#482475', '#414487', '#355f8d', '#2a788e', '#21918c', '#22a884',
  '#44bf70', '#7ad151', '#bddf26', '#fde725'];
const PUOR = ['#5e3c99', '#b2abd2', '#f7f7f7', '#fdb863', '#e66101'];

const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const VIRIDIS_RGB = VIRIDIS.map(rgb);
const PUOR_RGB = PUOR.map(rgb);

function sample(stops, t) {
  const u = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(u));
  const f = u - i;
  const c = stops[i].map((a, k) => Math.round(a + (stops[i + 1][k] - a) * f));
  return `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

// 256-entry lookup tables: heatmaps colour thousands of cells per frame.
const LEVELS = 256;
const table = (stops) => Array.from({ length: LEVELS }, (_, i) => sample(stops, i / (LEVELS - 1)));
const VIRIDIS_LUT = table(VIRIDIS_RGB);
const PUOR_LUT = table(PUOR_RGB);
const level = (t) => (Number.isFinite(t) ? Math.min(LEVELS - 1, Math.max(0, Math.round(t * (LEVELS - 1)))) : 0);

/** t in [0, 1] -> a viridis colour. */
export const viridis = (t) => VIRIDIS_LUT[level(t)];

/** v in [-maxAbs, maxAbs] -> purple (negative), white (zero), orange (positive). */
export const diverging = (v, maxAbs) => PUOR_LUT[level(maxAbs > 0 ? 0.5 + v / (2 * maxAbs) : 0.5)];

/** Black or white, whichever reads better on the colour. */
export function textOn(hex) {
  const [r, g, b] = rgb(hex);
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? '#111111' : '#ffffff';
}
