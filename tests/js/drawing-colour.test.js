// The colour scales: viridis is matplotlib's published 256-entry table, not an interpolation;
// the diverging scale is white at zero and ends at PuOr's two end colours.
import { describe, expect, test } from 'vitest';
import { diverging, level, textOn, viridis, VIRIDIS_LUT } from '../../web/explorer/figures/colour-scale.js';
import { VIRIDIS_DATA } from '../../web/explorer/figures/viridis-data.js';

// Entries of matplotlib's _viridis_data (lib/matplotlib/_cm_listed.py), copied from the published file.
const PUBLISHED = {
  0: [0.267004, 0.004874, 0.329415],
  1: [0.26851, 0.009605, 0.335427],
  64: [0.229739, 0.322361, 0.545706],
  100: [0.166617, 0.463708, 0.558119],
  128: [0.127568, 0.566949, 0.550556],
  192: [0.369214, 0.788888, 0.382914],
  254: [0.983868, 0.904867, 0.136897],
  255: [0.993248, 0.906157, 0.143936],
};
// The same colormap as 8-bit colours, as it is usually quoted (the ends and quarters).
const QUOTED_HEX = { 0: '#440154', 64: '#3b528b', 128: '#21918c', 192: '#5ec962', 255: '#fde725' };

const toHex = (rgb) =>
  `#${rgb
    .map((v) =>
      Math.round(v * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;

describe('viridis', () => {
  test('the table has 256 entries and matches the published values', () => {
    expect(VIRIDIS_DATA.length).toBe(3 * 256);
    expect(VIRIDIS_LUT.length).toBe(256);
    for (const [k, rgb] of Object.entries(PUBLISHED)) {
      expect(VIRIDIS_DATA.slice(3 * k, 3 * k + 3), `entry ${k}`).toEqual(rgb);
      expect(VIRIDIS_LUT[k], `entry ${k}`).toBe(toHex(rgb));
    }
    for (const [k, hex] of Object.entries(QUOTED_HEX)) expect(VIRIDIS_LUT[k], `entry ${k}`).toBe(hex);
  });

  test('t in [0, 1] picks the nearest of the 256 entries; out of range and NaN are clamped', () => {
    expect(viridis(0)).toBe('#440154');
    expect(viridis(1)).toBe('#fde725');
    expect(viridis(128 / 255)).toBe(toHex(PUBLISHED[128]));
    expect(viridis(100.4 / 255)).toBe(toHex(PUBLISHED[100]));
    expect(viridis(0.6 / 255)).toBe(toHex(PUBLISHED[1]));
    expect(viridis(-3)).toBe('#440154');
    expect(viridis(7)).toBe('#fde725');
    expect(viridis(Number.NaN)).toBe('#440154');
    expect([level(0), level(0.5), level(1)]).toEqual([0, 128, 255]);
  });

  test('every entry is a colour and lightness rises from end to end', () => {
    const luma = (hex) =>
      [1, 3, 5]
        .map((i) => parseInt(hex.slice(i, i + 2), 16))
        .reduce((sum, v, ch) => sum + [0.299, 0.587, 0.114][ch] * v, 0);
    for (let k = 0; k < 256; k += 1) expect(VIRIDIS_LUT[k]).toMatch(/^#[0-9a-f]{6}$/);
    for (let k = 8; k < 256; k += 8) expect(luma(VIRIDIS_LUT[k])).toBeGreaterThan(luma(VIRIDIS_LUT[k - 8]));
  });
});

describe('diverging and text colours', () => {
  test('zero is white, the ends are PuOr purple and orange, a zero range is white', () => {
    expect(diverging(0, 2)).toBe('#f7f7f7');
    expect(diverging(2, 2)).toBe('#e66101');
    expect(diverging(-2, 2)).toBe('#5e3c99');
    expect(diverging(-5, 2)).toBe('#5e3c99');
    expect(diverging(1, 2)).toBe('#fdb863');
    expect(diverging(-1, 2)).toBe('#b2abd2');
    expect(diverging(3, 0)).toBe('#f7f7f7');
  });

  test('text on a colour is dark on light colours and white on dark ones', () => {
    expect(textOn('#fde725')).toBe('#111111');
    expect(textOn('#440154')).toBe('#ffffff');
    expect(textOn('#f7f7f7')).toBe('#111111');
  });
});
