// The one trainer contract (web/trainer-contract.js) as a suite: describeTrainerContract(name, setup)
// holds a kind of trainer to it. setup() resolves to { hw, create(options) -> trainer, tolerance,
// dispose?() }: hw makes the reference Trainer (this thread), create the trainer under test,
// tolerance how far its losses and maps may be from the reference's (0: bit for bit; a
// data-parallel trainer of several workers sums the gradients in another order). Every call is
// awaited, so a Trainer's answers and throws and the others' promises and rejections are held to
// the same assertions.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HeadwiseError } from '../../web/errors.js';
import { TRAINER_MEMBERS } from '../../web/trainer-contract.js';

// The induction task's model, small: 2 attention-only layers, a batch of 6.
export const CONTRACT_OPTIONS = Object.freeze({
  task: 'induction',
  layers: 2,
  heads: 2,
  dModel: 16,
  mlpWidth: 0,
  batch: 6,
  evalSize: 16,
  seed: 3,
});

const attempt = async (call) => {
  try {
    return { value: await call() };
  } catch (error) {
    return { error };
  }
};

// The error a call gives (thrown or rejected); fails when it gives none.
async function errorOf(call) {
  const { value, error } = await attempt(call);
  expect(error, `expected an error, got ${JSON.stringify(value)?.slice(0, 80)}`).toBeDefined();
  return error;
}

function expectClose(actual, expected, tolerance, what) {
  const diff = Math.abs(actual - expected);
  expect(diff, `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance + tolerance * Math.abs(expected));
}

function expectMapsClose(actual, expected, tolerance) {
  expect(actual.tokens).toEqual(expected.tokens);
  expect(actual.layers.map((l) => [l.queries, l.heads.length])).toEqual(
    expected.layers.map((l) => [l.queries, l.heads.length]),
  );
  let worst = 0;
  actual.layers.forEach((layer, l) =>
    layer.heads.forEach((map, h) => {
      const want = expected.layers[l].heads[h];
      expect(Object.prototype.toString.call(map)).toBe('[object Float32Array]');
      expect(map.length).toBe(want.length);
      for (let i = 0; i < map.length; i += 1) worst = Math.max(worst, Math.abs(map[i] - want[i]));
    }),
  );
  expect(worst, `max |map diff| ${worst}`).toBeLessThanOrEqual(tolerance);
}

export function describeTrainerContract(name, setup) {
  describe(`the trainer contract: ${name}`, () => {
    let env;
    let reference; // the calling thread's Trainer, same options
    const made = [];
    const create = async (options = CONTRACT_OPTIONS) => {
      const trainer = await env.create(options);
      made.push(trainer);
      return trainer;
    };
    beforeAll(async () => {
      env = await setup();
      reference = env.hw.createTrainer(CONTRACT_OPTIONS);
    });
    afterAll(async () => {
      for (const t of made) t.dispose();
      reference?.dispose();
      await env?.dispose?.();
    });

    test('members: options with defaults, the task, steps, sizes and every method', async () => {
      const t = await create();
      expect(t.options).toEqual(reference.options);
      expect(t.task).toMatchObject({
        name: 'induction',
        words: [...reference.task.words],
        tokens: reference.task.tokens,
        readout: reference.task.readout,
      });
      expect(t.parameters).toEqual(reference.parameters);
      expect([t.steps, t.disposed]).toEqual([0, false]);
      expect(t.stepMultiplyAdds).toBeCloseTo(reference.stepMultiplyAdds, -1);
      expect(Number.isInteger(t.maxStepsPerCall) && t.maxStepsPerCall >= 1).toBe(true);
      for (const method of TRAINER_MEMBERS.methods) expect(typeof t[method], method).toBe('function');
      for (const property of TRAINER_MEMBERS.properties) expect(t[property], property).toBeDefined();
    });

    test('step(n): the mean of n batches, as the Trainer on this thread', async () => {
      const t = await create();
      const local = env.hw.createTrainer(CONTRACT_OPTIONS);
      const first = await t.step();
      const want = local.step();
      expect(first).toMatchObject({ step: 1, divergedSteps: 0 });
      expect(Object.keys(first.groups)).toEqual(Object.keys(want.groups));
      expectClose(first.loss, want.loss, env.tolerance, 'loss');
      expectClose(first.accuracy, want.accuracy, env.tolerance, 'accuracy');
      const two = await t.step(2);
      const wantTwo = local.step(2);
      expect(two.step).toBe(3);
      expect(t.steps).toBe(3);
      expectClose(two.loss, wantTwo.loss, env.tolerance, 'mean loss of 2 steps');
      for (const [group, g] of Object.entries(wantTwo.groups)) {
        expect(two.groups[group].rows).toBe(g.rows);
        expectClose(two.groups[group].loss, g.loss, env.tolerance, `group ${group}`);
      }
      local.dispose();
    });

    test('step(n) is refused the same way: not a number, not whole, past the call limit', async () => {
      const t = await create();
      const most = t.maxStepsPerCall;
      expect(await errorOf(() => t.step('3'))).toEqual(new TypeError('n must be a number, got "3"'));
      for (const n of [0, -1, 1.5, NaN, Infinity]) {
        const error = await errorOf(() => t.step(n));
        expect(error).toBeInstanceOf(RangeError);
        expect(error.message).toBe(`n must be a whole number from 1 to ${most}, got ${n}`);
      }
      for (const n of [most + 1, 1e6, 2 ** 40]) {
        const error = await errorOf(() => t.step(n));
        expect(error).toBeInstanceOf(RangeError);
        expect(error.message).toMatch(
          new RegExp(
            `^step\\(${n}\\) would take \\d+ multiply-adds, more than one call allows: .* at most ${most} steps`,
          ),
        );
      }
      expect(t.steps).toBe(0);
      expect((await t.step(1)).step).toBe(1);
    });

    test('evaluate() and measure(): the held-out set and the roles, as the Trainer', async () => {
      const t = await create();
      await t.step(2);
      const local = env.hw.createTrainer(CONTRACT_OPTIONS);
      local.step(2);
      const e = await t.evaluate();
      const want = local.evaluate();
      expect(e).toMatchObject({ step: 2, divergedSteps: 0 });
      expectClose(e.loss, want.loss, env.tolerance, 'held-out loss');
      const m = await t.measure();
      expect(m.step).toBe(2);
      expectClose(m.heldOut.loss, want.loss, env.tolerance, 'measured held-out loss');
      const roles = local.roleScores();
      expect(m.roles.map((layer) => layer.length)).toEqual(roles.map((layer) => layer.length));
      if (env.tolerance === 0) expect(m.roles).toEqual(roles);
      local.dispose();
    });

    test('evaluate({ zeroHeads }): the ablated held-out set, as the Trainer; bad ones refused alike', async () => {
      const t = await create();
      await t.step(3);
      const local = env.hw.createTrainer(CONTRACT_OPTIONS);
      local.step(3);
      const heads = [{ layer: 1, head: 0 }];
      const ablated = await t.evaluate({ zeroHeads: heads });
      const want = local.evaluate({ zeroHeads: heads });
      expectClose(ablated.loss, want.loss, env.tolerance, 'ablated held-out loss');
      expect(ablated.step).toBe(3);
      const whole = await t.evaluate({ zeroHeads: [] });
      expectClose(whole.loss, local.evaluate().loss, env.tolerance, 'held-out loss, nothing zeroed');
      expect(Math.abs(ablated.loss - whole.loss), 'zeroing a head changes the loss').toBeGreaterThan(1e-4);
      const refusals = [
        'x',
        null,
        [],
        { zeroHeads: { layer: 0, head: 0 } },
        { zeroHeads: [{ layer: 2, head: 0 }] },
        { zeroHeads: [{ layer: 0, head: -1 }] },
        { zeroHeads: [{ layer: 0, head: 0.5 }] },
        { zeroHeads: [null] },
        { zeroHeads: null },
        { zeroHeads: new Array(1e6).fill({ layer: 0, head: 0 }) },
        { zeroHead: [] },
      ];
      for (const bad of refusals) {
        let expected;
        try {
          local.evaluate(bad);
        } catch (error) {
          expected = error;
        }
        expect(expected, `the Trainer refuses ${JSON.stringify(bad)?.slice(0, 60)}`).toBeDefined();
        const error = await errorOf(() => t.evaluate(bad));
        expect(error).toBeInstanceOf(expected.constructor);
        expect(error.message).toBe(expected.message);
      }
      expect(t.steps).toBe(3);
      local.dispose();
    });

    test('attention(sequence): words, ids or a string, as the Trainer; bad ones refused by length first', async () => {
      const t = await create();
      const ids = Array.from({ length: reference.task.tokens }, (_, i) => (i * 5) % 14);
      const want = reference.attention(ids);
      expectMapsClose(await t.attention(ids), want, env.tolerance ? 1e-5 : 0);
      expectMapsClose(await t.attention(want.tokens), want, env.tolerance ? 1e-5 : 0);
      expectMapsClose(await t.attention(want.tokens.join(' ')), want, env.tolerance ? 1e-5 : 0);
      expect(t.sequenceIds(want.tokens)).toEqual(ids);
      const refusals = [
        [new Array(2 ** 32 - 1), RangeError, /got 4294967295$/],
        [[], RangeError, /^the sequence must be \d+ tokens, got 0$/],
        [{ length: 3 }, TypeError, /the sequence must be a string, an array of words or an array of ids/],
        [42, TypeError, /got 42/],
        [ids.map((id, i) => (i === 5 ? 1e9 : id)), RangeError, /sequence\[5\] must be a token id between 0 and/],
        [ids.map((id, i) => (i === 5 ? NaN : id)), RangeError, /sequence\[5\]/],
        ['x'.repeat(1e6), RangeError, /got a string of 1000000 characters/],
      ];
      for (const [sequence, kind, pattern] of refusals) {
        const error = await errorOf(() => t.attention(sequence));
        expect(error).toBeInstanceOf(kind);
        expect(error.message).toMatch(pattern);
      }
      let reads = 0;
      const huge = new Proxy([], { get: (target, key) => (key === 'length' ? 1e9 : ((reads += 1), 0)) });
      expect((await errorOf(() => t.attention(huge))).message).toMatch(/got 1000000000$/);
      expect(reads).toBe(0);
      expect(t.steps).toBe(0);
      expect((await t.step(1)).step).toBe(1);
    });

    test('getWeights() / setWeights(): the same format; bad weights refused before anything is written', async () => {
      const t = await create();
      await t.step(1);
      const source = env.hw.createTrainer({ ...CONTRACT_OPTIONS, seed: 9 });
      source.step(3);
      const weights = source.getWeights();
      await t.setWeights(weights);
      const got = await t.getWeights();
      expect(got).toMatchObject({ format: weights.format, step: 1, config: { ...t.options } });
      for (const { name } of reference.parameters) expect(got[name]).toEqual(weights[name]);
      const ids = Array.from({ length: reference.task.tokens }, (_, i) => i % 7);
      expectMapsClose(await t.attention(ids), source.attention(ids), 0);
      const first = reference.parameters[0];
      const size = first.shape.reduce((a, b) => a * b, 1);
      const refusals = [
        [null, TypeError, /setWeights expects an object/],
        [[1, 2], TypeError, /setWeights expects an object/],
        [{ bogus: [1] }, TypeError, /unknown weight "bogus"/],
        [{ ['__proto__']: [1] }, TypeError, /unknown weight/],
        [{ [first.name]: new Array(size).fill(Number.NaN) }, RangeError, new RegExp(`${first.name}\\[0\\]`)],
        [{ [first.name]: [1, 2] }, RangeError, new RegExp(`${first.name} must have ${size} values`)],
        [{ format: 'other' }, RangeError, /weights.format must be/],
      ];
      for (const [bad, kind, pattern] of refusals) {
        const error = await errorOf(() => t.setWeights(bad));
        expect(error).toBeInstanceOf(kind);
        expect(error.message).toMatch(pattern);
      }
      const after = await t.getWeights();
      for (const { name } of reference.parameters) expect(after[name]).toEqual(weights[name]);
      source.dispose();
    });

    test('dispose(): every call then fails with "this trainer was disposed"; twice is harmless', async () => {
      const t = await create();
      await t.step(1);
      t.dispose();
      t.dispose();
      expect(t.disposed).toBe(true);
      const ids = Array.from({ length: reference.task.tokens }, (_, i) => i % 7);
      for (const call of [
        () => t.step(1),
        () => t.evaluate(),
        () => t.evaluate({ zeroHeads: 'not checked: the trainer is gone' }),
        () => t.measure(),
        () => t.attention(ids),
        () => t.getWeights(),
        () => t.setWeights({}),
      ]) {
        const error = await errorOf(call);
        expect(error).toBeInstanceOf(HeadwiseError);
        expect(error.message).toBe('this trainer was disposed');
      }
    });
  });
}
