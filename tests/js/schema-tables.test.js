// The core's kind and task tables as JavaScript reads them at load: each position kind with its
// label and place of entry (what forward's intermediates then hold), each task with its probes and
// the role each names, and every role a trained head can be given.
import { beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { STEPS } from '../../web/explorer/panels/steps/steps-panel.js';

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

test('position kinds: name, label, where each enters, and what a forward with intermediates adds', () => {
  // The lecture's five kinds among them, first and in this order (the page's selector lists them so);
  // a kind added to the core's registry joins every test that reads the list.
  expect(
    hw
      .positionKinds()
      .slice(0, 5)
      .map(({ about, ...kind }) => kind),
  ).toEqual([
    { name: 'none', label: 'none', entersAt: 'nowhere', learnedTable: false },
    { name: 'learned', label: 'learned absolute', entersAt: 'input', learnedTable: true },
    { name: 'sinusoidal', label: 'sinusoidal', entersAt: 'input', learnedTable: false },
    { name: 'rope', label: 'RoPE', entersAt: 'queries and keys', learnedTable: false },
    { name: 'alibi', label: 'ALiBi', entersAt: 'scores', learnedTable: false },
  ]);
  // What each is, for a page to say after its label (its paper): every kind that enters somewhere.
  for (const kind of hw.positionKinds()) expect(kind.about !== '', kind.name).toBe(kind.entersAt !== 'nowhere');
  expect(Object.isFrozen(hw.positionKinds()[0])).toBe(true);
  const added = {
    nowhere: [],
    input: ['positions'],
    'queries and keys': ['kUnrotated', 'qUnrotated'],
    scores: ['scoreBias'],
  };
  const plain = new Set(Object.keys(hw.createAttention().forward(new Float32Array(36), { intermediates: true })));
  for (const { name, entersAt, learnedTable } of hw.positionKinds()) {
    const layer = hw.createAttention({ positions: name });
    const keys = Object.keys(layer.forward(new Float32Array(36), { intermediates: true }));
    expect(keys.filter((k) => !plain.has(k)).sort(), name).toEqual(added[entersAt]);
    expect(Object.hasOwn(layer.getWeights(), 'positions'), name).toBe(learnedTable);
    layer.dispose();
  }
  const choices = hw.attentionOptions().find((row) => row.name === 'positions').choices;
  expect(choices).toEqual(hw.positionKinds().map((k) => k.name));
});

test("tasks: the trainer's task choices, each with its probes and the role each names", () => {
  const tasks = hw.tasks();
  expect(tasks.map((t) => t.name)).toEqual(hw.trainerOptions().find((row) => row.name === 'task').choices);
  const probes = Object.fromEntries(tasks.map((t) => [t.name, t.probes]));
  expect(probes.order).toEqual([
    { name: 'subject', role: 'subject' },
    { name: 'predicate', role: 'predicate' },
  ]);
  expect(probes.induction).toEqual([
    { name: 'induction', role: 'induction' },
    { name: 'duplicate', role: 'duplicate token' },
  ]);
  expect(probes['verb-noun'].map((p) => p.role)).toEqual(['latest verb', 'latest noun']);
  // Every probe's role is a role name, each named once, and 'mixed' names a head with no clear role
  // (the list itself is the core's: pinning a copy here broke with each new task).
  const names = hw.headRoleNames();
  expect(new Set(names).size).toBe(names.length);
  for (const task of tasks) for (const probe of task.probes) expect(names, probe.name).toContain(probe.role);
  expect(names).toContain('mixed');
});

test("a trainer's head roles are among the core's role names", () => {
  const trainer = hw.createTrainer({ task: 'order', evalSize: 16, batch: 8 });
  trainer.step(2);
  const names = new Set(hw.headRoleNames());
  for (const layer of trainer.roleScores()) for (const head of layer) expect(names.has(head.role)).toBe(true);
  trainer.dispose();
});

// The steps panel reads a URL's step before the module loads, so it keeps the stage names; they are
// the core's stages, in order, as its shape trace names them.
test("the steps panel's stages are the core's", () => {
  expect(STEPS).toEqual([...new Set(hw.shapeTrace().map((entry) => entry.step))].slice(1));
});
