// The Learn panel's story experiment as data (web/explorer/panels/learn/story-data.js) and as the
// owner loads it (learn-numbers.js story()): on the shipped story checkpoints, the probe series are
// the curves' held-out accuracies, the 4-head model's best head first puts >= 0.8 on the antecedent
// at step 2000 (.80; 1,500: .78), the ablation table is the checkpoints' (and equal to what the wasm
// trainer measures with that head zeroed), and the account names the antecedent head with where it
// looks on the lecture's sentence ("catch" on "ball") and what falls without it. A model with
// random weights has no head near the antecedent.
import { readFileSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { ExplorerComputation } from '../../web/explorer/computation.js';
import {
  ablationTable,
  ANTECEDENT_SEEN,
  antecedentScore,
  antecedentStep,
  headLooks,
  learnedPoint,
  learnedStep,
  probeSeries,
  STORY_MODELS,
  storyAccount,
} from '../../web/explorer/panels/learn/story-data.js';

const read = (name) => JSON.parse(readFileSync(new URL(`../../web/checkpoints/${name}.json`, import.meta.url), 'utf8'));
let hw;
let data;
beforeAll(async () => {
  hw = await loadHeadwise();
  data = await new ExplorerComputation(hw, { checkpointSource: read }).kept('learn').story();
}, 120_000);

const model = (heads) => data.models.find((m) => m.heads === heads);

test('the owner loads the shipped story models with their maps on the lecture sentence', () => {
  expect(STORY_MODELS).toEqual(['story-1-head', 'story-2-heads', 'story-4-heads']);
  expect(data.models.map((m) => m.name)).toEqual(['1 head', '2 heads', '4 heads']);
  expect(data.reading.unknown).toEqual([]);
  expect(data.reading.words.slice(0, 13).join(' ')).toBe('the dog chased the ball , but it could not catch it .');
  expect(data.sequence.ids).toEqual(data.reading.words);
  for (const m of data.models) {
    const file = read(m.heads === 1 ? 'story-1-head' : `story-${m.heads}-heads`);
    expect(m.curve).toEqual(file.curve);
    expect(m.ablation).toEqual(file.ablation);
    expect(m.maps[0]).toHaveLength(m.heads);
    expect(m.maps[0][0]).toHaveLength(data.T * data.T);
  }
});

test("probe series, the antecedent step and the ablation table are the checkpoints' numbers", () => {
  const four = model(4);
  const file = read('story-4-heads');
  const series = probeSeries(four.curve, 'possessive');
  expect(series.map((p) => p.step)).toEqual(file.curve.map((p) => p.step));
  expect(series.at(-1).accuracy).toBe(file.curve.at(-1).heldOut.groups.possessive.candidateAccuracy);
  // The best antecedent role score of any head, by hand from the file's roles.
  const byHand = (roles) =>
    Math.max(...roles[0].flatMap((h) => [h.subjectAntecedent, h.objectAntecedent, h.possessiveAntecedent]));
  for (const p of file.curve) expect(antecedentScore(p.roles)).toBe(byHand(p.roles));
  const seen = antecedentStep(four.curve);
  const first = file.curve.find((p) => byHand(p.roles) >= ANTECEDENT_SEEN);
  expect(seen.step).toBe(first.step);
  expect(seen.step).toBe(2000);
  expect(seen.score).toBeGreaterThanOrEqual(0.8);
  const table = ablationTable(four);
  expect(table.map((r) => r.role)).toEqual(['possessive antecedent', 'name copy', 'name copy', 'name copy']);
  const possessive = table[0].rows.find((r) => r.skill === 'possessive');
  expect(possessive.whole).toBeCloseTo(0.99, 2);
  expect(possessive.without).toBeCloseTo(0.55, 2);
});

test("the ablation table equals the wasm trainer's evaluate({ zeroHeads }) on the 2-head model", async () => {
  const trainer = await hw.loadCheckpoint(read('story-2-heads'));
  try {
    for (const row of ablationTable(model(2))) {
      const e = trainer.evaluate({ zeroHeads: [{ layer: 0, head: row.head }] });
      for (const r of row.rows) expect(e.groups[r.skill].candidateAccuracy).toBeCloseTo(r.without, 3);
    }
  } finally {
    trainer.dispose();
  }
});

test('the account names the antecedent head, where it looks on the sentence and what falls without it', () => {
  const [, two, four] = storyAccount(data.models, data.reading, data.T);
  // Its numbers are the checkpoint's (held out, role scores, ablation), rounded as shown.
  const file = read('story-4-heads');
  const shown = (v) => v.toFixed(2).replace('.', '\\.');
  const held = (probe) => shown(file.evaluation.groups[probe].candidateAccuracy);
  expect(four).toMatch(
    new RegExp(
      `^4 heads, step ${file.steps}: subject pronoun ${held('subject')}, object pronoun ${held('object')}, ` +
        `possessive ${held('possessive')}`,
    ),
  );
  const head1 = file.roles[0][0];
  const antecedent = Math.max(
    ...Object.keys(head1)
      .filter((k) => k.endsWith('Antecedent'))
      .map((k) => head1[k]),
  );
  expect(four).toMatch(
    new RegExp(`Head 1 \\(possessive antecedent\\) looks most at the antecedent \\(${shown(antecedent)}`),
  );
  const zeroed = file.ablation.find((a) => a.layer === 0 && a.head === 0).evaluation.groups.possessive;
  expect(four).toMatch(new RegExp(`possessive falls ${held('possessive')} → ${shown(zeroed.candidateAccuracy)}`));
  // On the sentence: most of both pronoun rows on the antecedent.
  const [, but, caught] = four.match(/(0\.\d\d|1\.00) of "but" on "dog", (0\.\d\d|1\.00) of "catch" on "ball"/) ?? [];
  expect(
    [Number(but), Number(caught)].every((w) => w > 0.8),
    four,
  ).toBe(true);
  expect(two).toMatch(/Head 1 \(possessive antecedent\).* of "catch" on "ball"/);
  const looks = headLooks(data.reading, model(4).maps[0], data.T)[0];
  expect(looks.find((l) => l.label === 'catch → it')).toMatchObject({ word: 'ball' });
});

test("random weights: no head near the antecedent, and the sentence's rows look elsewhere", async () => {
  const file = read('story-4-heads');
  const trainer = hw.createTrainer(file.options);
  try {
    const { roles } = trainer.measure();
    expect(antecedentScore(roles)).toBeLessThan(0.3);
    const maps = trainer.attention(data.reading.words).layers[0].heads;
    const fromCatch = headLooks(data.reading, maps, data.T).map((h) => h.find((l) => l.label === 'catch → it'));
    expect(fromCatch.every((l) => l.weight < 0.5)).toBe(true);
  } finally {
    trainer.dispose();
  }
});

test('the 1-head model: its own weights, the same width and parameters, its map on the sentence', () => {
  const file = read('story-1-head');
  expect(file.format).toBe('headwise-checkpoint/1');
  expect(file.weightsEncoding).toBe('float16');
  expect(file.options).toMatchObject({ task: 'story', layers: 1, heads: 1, dModel: 64, seed: 1 });
  expect(file.parameterCount).toBe(read('story-4-heads').parameterCount);
  const one = model(1);
  const n = 13;
  // Row q of its map over the sentence's first q + 1 words is a distribution (causal: 0 after q).
  for (let q = 0; q < n; q += 1) {
    const row = one.maps[0][0].subarray(q * data.T, q * data.T + n);
    expect(row.slice(0, q + 1).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    expect(Math.max(0, ...row.slice(q + 1))).toBe(0);
  }
  expect(ablationTable(one)).toHaveLength(1);
  // As the note says: one head is slower than four to look at the antecedent.
  const step = (m) => antecedentStep(m.curve)?.step ?? Infinity;
  expect(step(one)).toBeGreaterThanOrEqual(step(model(4)));
});

// The slide's point: the first curve point with every probe at >= 0.90, read from the curve here.
test('learnedStep: the first point with every probe at 0.90; learnedPoint says it per model', () => {
  const point = (step, values) => ({
    step,
    heldOut: { groups: Object.fromEntries(values.map((v, i) => [SKILLS[i], { candidateAccuracy: v }])) },
  });
  const SKILLS = ['subject', 'object', 'possessive', 'agreement', 'name'];
  const curve = [
    point(0, [0.5, 0.5, 0.5, 0.5, 0.5]),
    point(50, [0.95, 0.9, 0.99, 0.89, 1]),
    point(100, [0.9, 0.9, 0.9, 0.9, 0.9]),
  ];
  expect(learnedStep(curve)).toBe(100);
  expect(learnedStep(curve, 0.95)).toBe(null);
  expect(
    learnedPoint([
      { name: '1 head', curve: curve.slice(0, 2) },
      { name: '2 heads', curve },
    ]),
  ).toBe('Every probe right 90% of the time, held out: 1 head not by step 50, 2 heads at step 100.');
  // The shipped checkpoints: 4 heads learn every probe before 2 heads, 1 head not in its 3,000 steps.
  const steps = data.models.map((m) => learnedStep(m.curve));
  expect(steps[0]).toBe(null);
  expect(steps[2]).toBeLessThan(steps[1]);
});
