// The "1 layer vs 2 layers" figures (web/explorer/panels/learn/induction-charts.js), built in Node from the
// shipped checkpoints and from random weights: no text overlaps or leaves its figure or lies on a
// curve at a slide's, a page's and a phone's sizes; the checks the browser test makes on what is
// drawn (the maps' labels are the measured roles; an induction head's map is brightest on the token
// to copy) hold for the checkpoints and fail for random weights.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { headsFigure, lossFigure } from '../../web/explorer/panels/learn/induction-charts.js';
import { inductionSequence, phaseChange, repeatQueries } from '../../web/explorer/panels/learn/induction-data.js';
import { textProblems } from '../../web/explorer/figures/text-boxes.js';

const read = (name) => JSON.parse(readFileSync(new URL(`../../web/checkpoints/${name}.json`, import.meta.url), 'utf8'));
let hw;
const trainers = [];
beforeAll(async () => {
  hw = await loadHeadwise();
});
afterAll(() => {
  for (const t of trainers) t.dispose();
});

// The figures of one model as the panel builds them, from a trainer and its roles.
function figuresOf(trainer, roles, curve, sequence, { width, k, mapSize, side }) {
  const layers = trainer.attention(sequence.ids).layers;
  const name = `${layers.length} layer${layers.length === 1 ? '' : 's'}`;
  return layers.map((layer, l) =>
    headsFigure({
      title: `${name}, layer ${l + 1}`,
      model: name,
      layer: l,
      heads: layer.heads.map((map, h) => ({ role: roles[l][h].role, map })),
      curve,
      sequence,
      maxSteps: 2000,
      phase: phaseChange(curve),
      mapSize,
      maxWidth: width,
      side,
      textScale: k,
    }),
  );
}

const luminance = (hex) =>
  [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
function hitRate(grid, sequence, probe) {
  const queries = repeatQueries(sequence);
  let hits = 0;
  for (const q of queries) {
    const row = grid.colours.slice(q.query * 64, (q.query + 1) * 64);
    let best = 0;
    row.forEach((c, j) => {
      if (c !== 'bg' && (row[best] === 'bg' || luminance(c) > luminance(row[best]))) best = j;
    });
    hits += best === q[probe];
  }
  return hits / queries.length;
}
const drawnRoles = (figure) =>
  [0, 1, 2, 3].map((h) =>
    figure.items
      .filter((it) => it.kind === 'text' && it.meta?.role && it.meta.head === h)
      .map((it) => it.text)
      .join(' '),
  );

const SIZES = [
  { width: 640, k: 1.43, mapSize: 64, side: true }, // a 1280x720 slide's figure column
  { width: 1100, k: 1, mapSize: 160, side: true }, // a page
  { width: 358, k: 1.15, mapSize: 72, side: false }, // a phone, slide text
  { width: 358, k: 1, mapSize: 76, side: false }, // a phone, page text
];

test('no text overlaps, leaves its figure or lies on a curve, at every size', async () => {
  const [one, two] = [read('induction-1-layer'), read('induction-2-layers')];
  const t = await hw.loadCheckpoint(two);
  const sequence = inductionSequence(t.heldOutSequence(0), t.task.groups);
  const u = await hw.loadCheckpoint(one);
  trainers.push(t, u);
  for (const size of SIZES) {
    const models = [
      { name: '1 layer', curve: one.curve },
      { name: '2 layers', curve: two.curve },
    ];
    const figures = [
      lossFigure({ models, maxSteps: 2000, phase: phaseChange(two.curve), maxWidth: size.width, textScale: size.k }),
      ...figuresOf(u, one.roles, one.curve, sequence, size),
      ...figuresOf(t, two.roles, two.curve, sequence, size),
    ];
    for (const f of figures) {
      expect(textProblems(f), `${f.title} at ${JSON.stringify(size)}`).toEqual([]);
      expect(f.width).toBeLessThanOrEqual(size.width + 1);
    }
    // A live run's first points: a curve of one or two points, no phase change, roles not yet measured.
    const early = lossFigure({
      models: models.map((m) => ({ ...m, curve: m.curve.slice(0, 2) })),
      maxSteps: 2000,
      phase: null,
      maxWidth: size.width,
      textScale: size.k,
    });
    expect(textProblems(early)).toEqual([]);
    // A phase change too early for its label to fit left of the marker: the label goes above the plot.
    const soon = { step: 100, loss: 1.5, halfway: 2.6, start: 4.3, end: 1 };
    const first = lossFigure({ models, maxSteps: 2000, phase: soon, maxWidth: size.width, textScale: size.k });
    expect(textProblems(first)).toEqual([]);
    expect(first.items.some((it) => it.text === 'phase change: step 100')).toBe(true);
  }
});

test("the drawn checks hold for the checkpoint's heads and fail for random weights", async () => {
  const two = read('induction-2-layers');
  const trained = await hw.loadCheckpoint(two);
  const sequence = inductionSequence(trained.heldOutSequence(0), trained.task.groups);
  const random = hw.createTrainer(two.options);
  trainers.push(trained, random);
  const size = SIZES[0];
  const [t1, t2] = figuresOf(trained, two.roles, two.curve, sequence, size);
  expect(drawnRoles(t1)).toEqual(two.roles[0].map((h) => h.role));
  expect(drawnRoles(t2)).toEqual(two.roles[1].map((h) => h.role));
  const grids = (f) => f.items.filter((it) => it.meta?.map);
  const inductionHeads = two.roles[1].flatMap((h, i) => (h.role === 'induction' ? [i] : []));
  expect(inductionHeads.length).toBeGreaterThan(0);
  for (const h of inductionHeads) expect(hitRate(grids(t2)[h], sequence, 'induction')).toBeGreaterThanOrEqual(0.6);
  // Random weights: the core names every head "mixed" (not the checkpoint's roles), and no map is
  // brightest on the token to copy.
  const randomRoles = random.roleScores();
  const [r1, r2] = figuresOf(random, randomRoles, two.curve, sequence, size);
  expect(drawnRoles(r1)).not.toEqual(two.roles[0].map((h) => h.role));
  expect(drawnRoles(r2)).not.toEqual(two.roles[1].map((h) => h.role));
  for (const g of grids(r2)) expect(hitRate(g, sequence, 'induction')).toBeLessThan(0.6);
  for (const g of grids(r1)) expect(hitRate(g, sequence, 'duplicate')).toBeLessThan(0.6);
});
