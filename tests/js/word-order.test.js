// Word order's figures and verdicts, from the module's real outputs: one fixed colour scale (the
// outputs' largest |value|), float32 rounding drawn as zero, the "different" cases visibly
// different, and per-word verdicts that say which words the mask changed and why.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { ExplorerComputation } from '../../web/explorer/computation.js';
import { defaultOptions } from '../../web/explorer/options.js';
import { heatmapFigure } from '../../web/explorer/heatmap.js';
import { cellText } from '../../web/explorer/heatmap-cells.js';
import { diverging } from '../../web/explorer/colour-scale.js';
import { float32Zero, orderMaps, outputScale, wordVerdicts } from '../../web/explorer/panels/word-order-panel.js';

let hw;
let computation;
beforeAll(async () => {
  hw = await loadHeadwise();
  computation = new ExplorerComputation(hw);
});
afterAll(() => computation.dispose());

const orderOf = (causal, positions) =>
  computation.compute(defaultOptions(), { parts: ['order'], order: { causal, positions } }).order;
const gridOf = (map) => heatmapFigure({ ...map, maxWidth: 480 }).items.find((it) => it.kind === 'grid');
const textsOf = (map) =>
  heatmapFigure({ ...map, maxWidth: 480 })
    .items.filter((it) => it.kind === 'text')
    .map((it) => it.text);

test('without mask or positions: the difference map is all zero-coloured, though float32 noise is not 0', () => {
  const data = orderOf(false, false);
  expect(data.maxDiff).toBeGreaterThanOrEqual(0);
  expect(data.maxDiff).toBeLessThan(float32Zero(data));
  const [, , diff] = orderMaps(data);
  const neutral = diverging(0, outputScale(data));
  expect(new Set(gridOf(diff).colours)).toEqual(new Set([neutral]));
  expect(textsOf(diff).filter((t) => t === '-0.0')).toEqual([]);
});

test('with positions: differences are drawn on the outputs fixed scale, not stretched to their own maximum', () => {
  const data = orderOf(false, true);
  const scale = outputScale(data);
  const maps = orderMaps(data);
  for (const m of maps) expect(m.maxAbs).toBe(scale);
  const diff = maps[2];
  const colours = gridOf(diff).colours;
  diff.values.forEach((v, k) => {
    expect(colours[k]).toBe(diverging(Math.abs(v) < float32Zero(data) ? 0 : v, scale));
  });
  expect(new Set(colours).size).toBeGreaterThan(1); // "different" looks different
  expect(data.maxDiff).toBeGreaterThan(float32Zero(data));
});

test('with the mask: each word says whether it changed and which words it sees in each sentence', () => {
  const data = orderOf(true, false);
  const verdicts = wordVerdicts(data, float32Zero(data));
  expect(verdicts).toHaveLength(4);
  const [all, dogs, are, animals] = verdicts;
  expect(all).toBe('"All": the same vector: it sees the same words, {All}, in both sentences.');
  expect(dogs).toMatch(/^"dogs": changed \(max \|difference\| [\d.e-]+\): it sees \{All, dogs\} in the first /);
  expect(dogs).toMatch(/but \{All, animals, are, dogs\} in the second\.$/);
  expect(are).toMatch(/^"are": changed .*\{All, dogs, are\} in the first sentence but \{All, animals, are\}/);
  expect(animals).toMatch(
    /^"animals": changed .*\{All, dogs, are, animals\} in the first sentence but \{All, animals\}/,
  );
  // Without the mask no word changes.
  const open = orderOf(false, false);
  expect(wordVerdicts(open, float32Zero(open)).every((v) => v.endsWith(': the same vector.'))).toBe(true);
});

test('cell values never print as -0.0', () => {
  expect(cellText(-0.04, 'signed')).toBe('0.0');
  expect(cellText(-1e-9, 'signed')).toBe('0.0');
  expect(cellText(-0.06, 'signed')).toBe('-0.1');
  expect(cellText(-0.3, 'signed', 1)).toBe('0.0');
  expect(cellText(0.25, 'probability')).toBe('.25');
});
