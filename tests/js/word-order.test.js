// Word order's figures and verdicts, from the module's real outputs: the claim first (no mask, no
// positions: each word the same in both sentences within a stated float32 bound, at a width and
// scale at which the words clearly differ from each other), then at every setting of the mask and
// every position kind the core lists the difference map's numbers, colours and the words agree.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { ExplorerComputation } from '../../web/explorer/computation.js';
import { defaultOptions } from '../../web/explorer/options.js';
import { heatmapFigure } from '../../web/explorer/figures/heatmap.js';
import { cellText } from '../../web/explorer/figures/heatmap-cells.js';
import { diverging } from '../../web/explorer/figures/colour-scale.js';
import {
  differenceScale,
  float32Zero,
  kindMaps,
  kindText,
  orderMaps,
  outputScale,
  wordVerdicts,
} from '../../web/explorer/panels/order/word-order-panel.js';

let hw;
let computation;
beforeAll(async () => {
  hw = await loadHeadwise();
  computation = new ExplorerComputation(hw);
});
afterAll(() => computation.dispose());

// Every kind the core lists (read while the tests are collected: test.each needs them).
const KIND_INFO = (await loadHeadwise()).positionKinds();
const KINDS = KIND_INFO.map((kind) => kind.name);
const entersAt = (name) => KIND_INFO.find((kind) => kind.name === name).entersAt;
const orderOf = (causal, positions) =>
  computation.compute({ ...defaultOptions(), orderMask: causal, orderPositions: positions }, { parts: ['order'] })
    .order;
const gridOf = (map) => heatmapFigure({ ...map, maxWidth: 1200 }).items.find((it) => it.kind === 'grid');

test('the claim: without mask or positions each word is the same in both sentences, the words clearly apart', () => {
  const data = orderOf(false, 'none');
  const { claim } = data;
  expect(claim.maxDiff).toBeLessThan(claim.scale * 2 ** -20); // the bound the panel states
  expect(data.maxDiff).toBe(claim.maxDiff);
  // Any two different words' outputs are far apart compared with the outputs themselves.
  expect(claim.wordGap).toBeGreaterThan(0.15 * claim.scale);
  expect(wordVerdicts(data).every((v) => v.endsWith(': the same vector.'))).toBe(true);
  const [, , diff] = orderMaps(data);
  expect(new Set(gridOf(diff).colours)).toEqual(new Set([diverging(0, outputScale(data))]));
  // The claim is stated at every other setting too, with the same numbers.
  for (const kind of KINDS) expect(orderOf(true, kind).claim).toEqual(claim);
});

test.each(KINDS.flatMap((kind) => [false, true].map((causal) => [kind, causal])))(
  'positions %s, mask %s: each word is "changed" exactly when its row has colour and a printed non-zero',
  (kind, causal) => {
    const data = orderOf(causal, kind);
    expect(data.positions).toBe(kind);
    const { zero, digits, scale } = differenceScale(data);
    const diff = orderMaps(data)[2];
    const { colours } = gridOf(diff);
    const neutral = diverging(0, scale);
    const D = data.config.dModel;
    const verdicts = wordVerdicts(data);
    data.perWord.forEach((w, i) => {
      const row = Array.from(diff.values.subarray(i * D, (i + 1) * D));
      const printed = row.map((v) => cellText(v, 'signed', zero, digits));
      const coloured = colours.slice(i * D, (i + 1) * D).some((c) => c !== neutral);
      const nonZero = printed.some((t) => Number(t) !== 0);
      const changed = /^"[^"]+": changed/.test(verdicts[i]);
      expect({ word: w.word, coloured, nonZero }).toEqual({ word: w.word, coloured: changed, nonZero: changed });
    });
    // Positions or the mask change at least one word; the largest difference prints non-zero.
    if (entersAt(kind) !== 'nowhere' || causal) {
      expect(verdicts.some((v) => / changed /.test(v) || /": changed/.test(v))).toBe(true);
      expect(cellText(data.maxDiff, 'signed', zero, digits)).not.toMatch(/^-?0\.0*$/);
    } else expect(data.maxDiff).toBeLessThan(float32Zero(data));
  },
);

test('with the mask: each word says whether it changed and which words it sees in each sentence', () => {
  const [all, dogs, are, animals] = wordVerdicts(orderOf(true, 'none'));
  expect(all).toBe('"All": the same vector: it sees the same words, {All}, in both sentences.');
  expect(dogs).toMatch(/^"dogs": changed \(max \|difference\| [\d.e-]+\): it sees \{All, dogs\} in the first /);
  expect(dogs).toMatch(/but \{All, animals, are, dogs\} in the second\.$/);
  expect(are).toMatch(/^"are": changed .*\{All, dogs, are\} in the first sentence but \{All, animals, are\}/);
  expect(animals).toMatch(
    /^"animals": changed .*\{All, dogs, are, animals\} in the first sentence but \{All, animals\}/,
  );
});

test('each kind shows what the core computed where it enters', () => {
  const T = 4;
  const learned = orderOf(false, 'learned');
  const sinusoidal = orderOf(false, 'sinusoidal');
  for (const data of [learned, sinusoidal]) {
    const { dModel: D } = data.config;
    expect(data.kind.positions).toEqual(data.kind.table.subarray(0, T * D)); // the sentence's rows
    const [table, dots] = kindMaps(data);
    expect(table.rows).toBe(data.kind.tableTokens);
    expect(dots.values).toBe(data.kind.dots);
  }
  // PE(i) . PE(j) is constant along each diagonal for sinusoidal, not for a seeded table.
  const spread = ({ dots, tableTokens: n }, offset) => {
    const d = Array.from({ length: n - offset }, (_, i) => dots[i * n + i + offset]);
    return Math.max(...d) - Math.min(...d);
  };
  for (const offset of [0, 1, 3, 10]) {
    expect(spread(sinusoidal.kind, offset)).toBeLessThan(1e-4);
    expect(spread(learned.kind, offset)).toBeGreaterThan(1);
  }
  const rope = orderOf(false, 'rope');
  expect(rope.kind.maxShiftDiff).toBeLessThan(1e-4);
  expect(Math.max(...rope.kind.scores.map(Math.abs))).toBeGreaterThan(0.1);
  // Said "stay" for rounding only: the same numbers with a difference of 0.0247 (an earlier build's,
  // issue 34) are said to change.
  expect(kindText(rope)).toMatch(/the scores stay \(max \|difference\| [\d.e-]+: float32 rounding\)/);
  const moved = { ...rope, kind: { ...rope.kind, maxShiftDiff: 0.0247 } };
  expect(kindText(moved)).toMatch(
    /the scores change \(max \|difference\| 0\.0247, more than float32 rounding of scores up to [\d.]+\)/,
  );
  expect(kindText(moved)).not.toMatch(/stay/);
  const alibi = orderOf(false, 'alibi');
  const H = alibi.config.heads;
  alibi.kind.slopes.forEach((m, h) => expect(m).toBeCloseTo(2 ** ((-8 * (h + 1)) / H), 6));
  expect(kindMaps(alibi)).toHaveLength(H);
  expect(kindMaps(orderOf(false, 'none'))).toEqual([]);
});

test('cell values never print as -0.0', () => {
  expect(cellText(-0.04, 'signed')).toBe('0.0');
  expect(cellText(-1e-9, 'signed')).toBe('0.0');
  expect(cellText(-0.06, 'signed')).toBe('-0.1');
  expect(cellText(-0.3, 'signed', 1)).toBe('0.0');
  expect(cellText(-0.0004, 'signed', 0, 3)).toBe('0.000');
  expect(cellText(0.25, 'probability')).toBe('.25');
});
