// The explorer's one owner of the computation, against the built module: each change runs the
// forward once per version the page shows, a change that touches nothing computes nothing, and
// the heads sweep times the fast kernels (no intermediates) of both versions.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { ExplorerComputation, PANEL_PARTS } from '../../web/explorer/computation.js';
import { defaultOptions } from '../../web/explorer/options.js';
import { runHeadsSweep, SAMPLE_MS } from '../../web/explorer/panels/loop/sweep.js';
import { CHECK_EVERY, MAX_LEARN_STEPS } from '../../web/explorer/panels/learn/learn-verdict.js';
import { countingModule, tally, callName } from './counting-module.js';
import { referenceMha } from './reference.js';
import './matchers.js';

const ALL_PARTS = new Set(Object.values(PANEL_PARTS).flat());
// What one version shown costs the main layer: one call per version, nothing twice.
const MAIN_LAYER_CALLS = {
  'forward fused +intermediates': 1, // heads, steps' check, loop's reference
  'forward loop +intermediates': 1, // loop panel (intermediates kept: no (B, H, T, T) reallocation)
  project: 1,
  split: 1,
  attend: 1,
  merge: 1,
  outProject: 1, // the five steps
  getWeights: 1, // W_out for the heads panel
  shapeTrace: 1,
};

let realHw;
beforeAll(async () => {
  realHw = await loadHeadwise();
});
afterAll(() => expect(realHw.liveLayers()).toBe(0));

function owner() {
  const counting = countingModule(realHw);
  return { ...counting, computation: new ExplorerComputation(counting.hw) };
}

const layerCalls = (calls) => calls.filter((c) => c.on !== 'hw');
const forwardsOn = (calls, label) => calls.filter((c) => c.on === label && c.method === 'forward').map(callName);

describe('one change, one forward per version shown', () => {
  test('first computation of every panel: each version once, checked against a double reference', () => {
    const { computation, calls, layers } = owner();
    try {
      const o = defaultOptions();
      const c = computation.compute(o, { parts: ALL_PARTS });
      expect(c.status).toBe('ok');
      // The default text is the lecture's batch: two lines, two sentences of six tokens.
      expect(c.config).toMatchObject({ batch: 2, tokens: 6 });
      expect(c.sentences.map((s) => s.join(' '))).toEqual(['The dog chased the ball ,', 'but it could not catch it']);
      expect(c.tokens).toEqual(c.sentences[0]);
      expect(c.x).toHaveLength(2 * 6 * o.dModel);
      const main = layers.find(
        (l) => l.config.dModel === o.dModel && l.config.tokens === c.tokens.length && l.config.heads === o.heads,
      );
      expect(tally(calls, main.label)).toEqual(MAIN_LAYER_CALLS);
      // why: two designed layers, one forward each; order: one layer, one forward per sentence (the
      // claim's setting: nothing more to compute).
      // The heads panel's view: the batch's two lines read as one 12-token sequence, on a layer of
      // its own (made, run once, freed), with the main layer's weights.
      const whole = layers.find((l) => l.config.batch === 1 && l.config.tokens === 12);
      expect(tally(calls, whole.label)).toEqual({ 'forward fused +intermediates': 1, dispose: 1 });
      expect(c.whole.joined).toBe(true);
      expect(c.whole.tokens.join(' ')).toBe('The dog chased the ball , but it could not catch it');
      // The kv panel's layers (8 query heads, width 32): the multi-head one, the grouped one and the
      // grouped one at kvHeads = heads (the equality), one forward each with intermediates.
      const kv = layers.filter((l) => l.config.heads === 8 && l.config.dModel === 32 && l.config.attention === 'mha');
      // Beside them, the latent layer: two forwards (its explicit and absorbed forms).
      const latent = layers.filter((l) => l.config.attention === 'mla');
      expect(latent.map((l) => forwardsOn(calls, l.label).length)).toEqual([2]);
      expect(kv.map((l) => [l.config.kvHeads, forwardsOn(calls, l.label)])).toEqual([
        [undefined, ['forward fused +intermediates']],
        [2, ['forward fused +intermediates']],
        [8, ['forward fused +intermediates']],
      ]);
      const others = layers
        .filter((l) => l !== main && l !== whole && !kv.includes(l) && !latent.includes(l))
        .map((l) => forwardsOn(calls, l.label));
      expect(others).toEqual([
        ['forward fused +intermediates'],
        ['forward fused +intermediates'],
        ['forward fused +intermediates', 'forward fused +intermediates'],
      ]);
      expect(calls.filter((x) => x.method === 'check')).toHaveLength(2); // the batch, the joined sequence
      // The numbers the panels show are the module's forward pass.
      const twin = realHw.createAttention(c.config); // same seed, same weights
      const weights = twin.getWeights();
      twin.dispose();
      const ref = referenceMha({ ...c.config, headDim: c.headDim }, weights, c.x);
      expect(c.fused.output).toBeCloseToReference(ref.output);
      expect(c.fused.attention).toBeCloseToReference(ref.attention);
      expect(c.loop.output).toBeCloseToReference(ref.output);
      expect(c.steps.output).toBeCloseToReference(ref.output);
      expect(c.loop.maxDiff).toBeLessThan(1e-5);
      expect(c.steps.maxDiff).toBeLessThan(1e-5);
      // The joined sequence's maps: the same weights on the 12 tokens' vectors (the batch's, in order).
      const joined = referenceMha({ ...c.config, batch: 1, tokens: 12, headDim: c.headDim }, weights, c.x);
      expect(c.whole.fused.attention).toBeCloseToReference(joined.attention);
      expect(c.whole.fused.output).toBeCloseToReference(joined.output);
      expect(Object.isFrozen(c) && Object.isFrozen(c.fused) && Object.isFrozen(c.config)).toBe(true);
    } finally {
      computation.dispose();
    }
  });

  test('a change of heads: a new layer, each version once; the seed-only "why" part is not redone', () => {
    const { computation, calls, layers } = owner();
    try {
      const o = defaultOptions();
      computation.compute(o, { parts: ALL_PARTS });
      calls.length = 0;
      const before = layers.length;
      const c = computation.compute({ ...o, heads: 3 }, { parts: ALL_PARTS });
      expect(c.headDim).toBe(2);
      const fresh = layers.slice(before);
      // The main layer and the heads panel's joined sequence: word order runs at its own width and
      // heads, so it is not redone.
      expect(fresh.map((l) => l.config.heads)).toEqual([3, 3]);
      expect(tally(calls, fresh[0].label)).toEqual(MAIN_LAYER_CALLS);
      expect(tally(calls, fresh[1].label)).toEqual({ 'forward fused +intermediates': 1, dispose: 1 });
      const elsewhere = layerCalls(calls).filter((x) => !fresh.some((l) => l.label === x.on));
      expect(elsewhere.map((x) => `${x.on} ${x.method}`)).toEqual(['layer 0 dispose']); // the old main layer
      expect(realHw.liveLayers()).toBe(1); // the old main layer was freed
    } finally {
      computation.dispose();
    }
  });

  test('a sentence of the same length reuses the layer; a change that touches no part computes nothing', () => {
    const { computation, calls, layers } = owner();
    try {
      const o = defaultOptions();
      computation.compute(o, { parts: ALL_PARTS });
      calls.length = 0;
      const sentence = 'A cat chased the ball ,\nbut it could not catch it'; // the same (2, 6)
      computation.compute({ ...o, sentence }, { parts: ALL_PARTS });
      // The main layer is reused; only the heads panel's joined sequence has a layer of its own.
      const created = calls.filter((x) => x.method === 'createAttention');
      expect(created.map((x) => x.args[0])).toEqual([expect.objectContaining({ batch: 1, tokens: 12 })]);
      const main = layers[0].label;
      expect(forwardsOn(calls, main)).toEqual(['forward fused +intermediates', 'forward loop +intermediates']);
      calls.length = 0;
      // A slide message, the panel shown, a step: the same numbers, no call into the module.
      const again = computation.compute({ ...o, sentence, slide: true, panel: 'steps' }, { parts: ALL_PARTS });
      expect(calls).toEqual([]);
      expect(again.status).toBe('ok');
    } finally {
      computation.dispose();
    }
  });

  test("only the parts of the panels shown are computed; word order's own controls redo only its part", () => {
    const { computation, calls, layers } = owner();
    try {
      const o = { ...defaultOptions(), panel: 'heads' };
      const c = computation.compute(o, { parts: PANEL_PARTS.heads });
      expect(c.loop).toBeUndefined();
      expect(c.steps).toBeUndefined();
      // The main layer gives the shapes and W_out; the maps are the joined sequence's, on its own layer.
      expect(tally(calls, layers[0].label)).toEqual({ getWeights: 1, shapeTrace: 1 });
      expect(tally(calls, layers[1].label)).toEqual({ 'forward fused +intermediates': 1, dispose: 1 });
      expect(layers).toHaveLength(2);
      calls.length = 0;
      const parts = ALL_PARTS;
      computation.compute(o, { parts });
      calls.length = 0;
      const masked = computation.compute({ ...o, orderMask: true }, { parts });
      expect(masked.order.config.causal).toBe(true);
      // The masked pair, then the claim's pair (no mask, no positions), each on a layer of its own.
      const [maskedLayer, claimLayer] = layers.slice(-2).map((l) => l.label);
      const name = (x) => (x.on === maskedLayer ? 'masked' : x.on === claimLayer ? 'claim' : x.on);
      expect(layerCalls(calls).map((x) => `${name(x)} ${callName(x)}`)).toEqual([
        'masked forward fused +intermediates',
        'masked forward fused +intermediates',
        'masked dispose',
        'claim forward fused +intermediates',
        'claim forward fused +intermediates',
        'claim dispose',
      ]);
    } finally {
      computation.dispose();
    }
  });

  test('invalid and too-large configurations make no forward call', () => {
    const { computation, calls } = owner();
    const parts = ['fused', 'loop', 'steps', 'wOut'];
    try {
      expect(computation.compute({ ...defaultOptions(), dModel: 7 }, { parts }).status).toBe('invalid');
      const gpt3 = computation.compute({ ...defaultOptions(), dModel: 12288, heads: 96 }, { parts });
      expect(gpt3.status).toBe('shapes-only');
      expect(gpt3.headDim).toBe(128);
      expect(calls.map((x) => x.method).sort()).toEqual(['check', 'check', 'shapeTrace', 'shapeTrace']);
    } finally {
      computation.dispose();
    }
  });
});

test('the heads sweep times forward() and forward({ variant: "loop" }) without intermediates', async () => {
  const { hw, calls } = countingModule(realHw);
  const result = await runHeadsSweep(hw, { tokens: 5, heads: [2, 8], runs: 3 });
  expect(result.points.map((p) => p.heads)).toEqual([2, 8]);
  for (const p of result.points) {
    expect(p.maxDiff).toBeLessThan(1e-5);
    expect(p.fusedMs).toBeGreaterThan(0);
    expect(p.loopMs).toBeGreaterThan(0);
    for (const key of ['fused', 'loop']) {
      expect(p[key].min).toBeLessThanOrEqual(p[key].median);
      expect(p[key].median).toBeLessThanOrEqual(p[key].max);
      // Each sample lasted about SAMPLE_MS (a later sample can run faster than the one that set
      // reps): reps x the fastest's time per call.
      expect(p.reps[key] * p[key].min).toBeGreaterThanOrEqual(SAMPLE_MS * 0.5);
    }
  }
  const forwards = calls.filter((c) => c.method === 'forward' || c.method === 'forwardLoop').map(callName);
  expect(new Set(forwards)).toEqual(new Set(['forward fused', 'forward loop']));
  expect(calls.some((c) => ['project', 'split', 'attend', 'merge', 'outProject'].includes(c.method))).toBe(false);
});

test('what the Learn run trained has one owner: null until it is done, then one frozen copy per run', async () => {
  const computation = new ExplorerComputation(realHw);
  const o = defaultOptions();
  const learned = () => computation.compute(o, { parts: PANEL_PARTS.heads }).learned;
  try {
    expect(PANEL_PARTS.heads).toContain('learned');
    expect(PANEL_PARTS.why).toContain('learned');
    expect(learned()).toBe(null);
    const session = computation
      .kept('learn')
      .learnSession({ seed: 2, variant: 'verb-noun', dModel: 32, headCounts: [1, 2] });
    session.slice(5);
    expect(learned()).toBe(null); // training, not done: the panels still say "untrained"
    // Training stops at every check until the held-out measurement is taken.
    while (!session.done) if (!session.checkStep()) session.slice(50);
    session.refreshMaps();
    while (!session.settleStep());
    const first = learned();
    expect(first).toBe(learned()); // remembered, not rebuilt on every render
    expect(Object.isFrozen(first.runs[1].trained)).toBe(true);
    expect(first.step).toBe(session.step); // trained until settled: a whole number of checks
    expect(first.step % CHECK_EVERY).toBe(0);
    expect(first.step).toBeLessThanOrEqual(MAX_LEARN_STEPS);
    expect(first.runs.map((r) => r.heads)).toEqual([1, 2]);
    const [, two] = first.runs;
    const argmax = (v) => v.indexOf(Math.max(...v));
    expect(two.trained.map(argmax).sort((a, b) => a - b)).toEqual([8, 10]); // "catch" and "ball"
    expect(Math.max(...two.untrained.flat())).toBeLessThan(0.5); // the same model at step 0
    computation.kept('learn').learnSession({ seed: 3, variant: 'verb-noun', dModel: 32 });
    expect(learned()).toBe(null); // a new run: nothing trained until it is done
  } finally {
    computation.dispose();
  }
}, 60_000);
