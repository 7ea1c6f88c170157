// The Learn panel's "1 layer vs 2 layers" data (web/explorer/panels/learn/induction-data.js): the shown sequence
// is the core's first held-out sequence (a trainer whose held-out set is that one sequence measures
// the role scores its attention gives), the phase change is where its rule says on any curve, and
// the account says what the shipped models' heads measure, not the textbook's story.
import { readFileSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import {
  hitsOnSequence,
  inductionAccount,
  inductionSequence,
  lossSeries,
  PHASE_MIN_DROP,
  phaseChange,
  repeatQueries,
} from '../../web/explorer/panels/learn/induction-data.js';

const read = (name) => JSON.parse(readFileSync(new URL(`../../web/checkpoints/${name}.json`, import.meta.url), 'utf8'));
const T = 64;
let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

test("the shown sequence's layout, read from the core's groups, is the core's repeat and its probes", async () => {
  for (const seed of [0, 1, 7]) {
    const file = read('induction-2-layers');
    // A trainer whose held-out set is one sequence: the core's role scores are that sequence's.
    const t = await hw.loadCheckpoint({ ...file, options: { ...file.options, seed, evalSize: 1 } });
    const s = inductionSequence(t.heldOutSequence(0), t.task.groups);
    expect(s.ids).toHaveLength(T);
    expect(s.length).toBeGreaterThanOrEqual(12);
    expect(s.length).toBeLessThanOrEqual(31);
    expect(s.second).toBeGreaterThanOrEqual(s.first + s.length);
    expect(s.second + s.length).toBeLessThanOrEqual(T);
    for (let j = 0; j < s.length; j += 1) expect(s.ids[s.second + j]).toBe(s.ids[s.first + j]);
    const roles = t.roleScores();
    const { layers } = t.attention(s.ids);
    const queries = repeatQueries(s);
    layers.forEach((layer, l) =>
      layer.heads.forEach((map, h) => {
        let previous = 0;
        for (let q = 1; q < T; q += 1) previous += map[q * T + q - 1];
        let induction = 0;
        let duplicate = 0;
        for (const q of queries) {
          induction += map[q.query * T + q.induction];
          duplicate += map[q.query * T + q.duplicate];
        }
        const want = roles[l][h];
        expect(previous / (T - 1)).toBeCloseTo(want.previousToken, 5);
        expect(induction / queries.length).toBeCloseTo(want.induction, 5);
        expect(duplicate / queries.length).toBeCloseTo(want.duplicate, 5);
      }),
    );
    t.dispose();
  }
});

const point = (step, repeat) => ({
  step,
  heldOut: { groups: { repeat: { loss: repeat }, 'first copy': { loss: 4.2 } } },
});

test('the phase change: the first point below half-way from the first to the last, if it fell at all', () => {
  const curve = [point(50, 4.3), point(100, 4.1), point(150, 3.0), point(200, 2.0), point(250, 1.0)];
  expect(phaseChange(curve)).toMatchObject({ step: 200, loss: 2.0, halfway: 2.65, start: 4.3, end: 1.0 });
  // A plateau (or a 1-layer model's slow slide) has no phase change.
  expect(phaseChange([point(50, 4.3), point(100, 4.3 - PHASE_MIN_DROP + 0.01)])).toBeNull();
  expect(phaseChange([point(50, 4.3)])).toBeNull();
  expect(phaseChange([])).toBeNull();
  // On the shipped checkpoints: 2 layers have one, where their curve crosses half-way; 1 layer none.
  const two = read('induction-2-layers').curve;
  const phase = phaseChange(two);
  const series = lossSeries(two, 'repeat');
  const halfway = (series[0].value + series.at(-1).value) / 2;
  const k = series.findIndex((p) => p.step === phase.step);
  expect(series[k].value).toBeLessThan(halfway);
  expect(series.slice(0, k).every((p) => p.value >= halfway)).toBe(true);
  expect(phaseChange(read('induction-1-layer').curve)).toBeNull();
});

const model = (file) => ({
  roles: file.roles,
  repeat: file.evaluation.groups.repeat.loss,
  firstCopy: file.evaluation.groups['first copy'].loss,
  steps: file.steps,
});

test("the account names the shipped 2-layer model's heads by their measured roles", async () => {
  const [one, two] = [read('induction-1-layer'), read('induction-2-layers')];
  const t = await hw.loadCheckpoint(two);
  const sequence = inductionSequence(t.heldOutSequence(0), t.task.groups);
  const hits = hitsOnSequence(t.attention(sequence.ids).layers[1].heads, sequence);
  t.dispose();
  const text = inductionAccount({ one: model(one), two: model(two), phase: phaseChange(two.curve), hits }).join(' ');
  const l1 = two.roles[0];
  const duplicates = l1.flatMap((h, i) => (h.role === 'duplicate token' ? [i + 1] : []));
  // What the checkpoint holds (docs/induction.md): layer 1 a duplicate-token head, no previous-token head.
  expect(duplicates.length).toBeGreaterThan(0);
  expect(l1.some((h) => h.role === 'previous token')).toBe(false);
  expect(text).toContain(`layer 1's head${duplicates.length > 1 ? 's' : ''} ${duplicates.join(' and ')}`);
  expect(text).toMatch(/no head of layer 1 is previous token/);
  expect(text).toMatch(/through the duplicate-token head, not the textbook's previous-token head/);
  expect(text).not.toMatch(/K-composition/);
  expect(text).toContain(`phase change, step ${phaseChange(two.curve).step}`);
  expect(text).toContain(`with 1 layer it ends at ${one.evaluation.groups.repeat.loss.toFixed(2)}`);
  // The shown sequence backs it: an induction head of layer 2 mostly looks at the token to copy.
  const best = Math.max(...hits.map((h) => h.induction / h.queries));
  expect(best).toBeGreaterThan(0.5);
  // With a previous-token head in layer 1 instead, the account tells the K-composition story.
  const textbook = structuredClone(two.roles);
  textbook[0] = textbook[0].map((h) => ({ ...h, role: 'mixed' }));
  textbook[0][0] = { ...textbook[0][0], previousToken: 0.69, role: 'previous token' };
  const k = inductionAccount({ one: model(one), two: { ...model(two), roles: textbook }, phase: null, hits }).join(' ');
  expect(k).toMatch(/layer 1's head 1 is previous token \(0\.69/);
  expect(k).toMatch(/K-composition/);
  expect(k).toMatch(/no phase change yet/);
});
