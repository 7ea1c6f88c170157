// Training data-parallel across the pool. The calling thread keeps the trainer (its module's
// Trainer: the weights, Adam's moments, the step count and the batch stream); each step it sends
// every worker the parameters and the batch state, each worker draws the same batch and returns
// the gradient of its rows (trainerGradients, serve.js), the gradients are summed here in worker
// order (fixed: a run is bitwise repeatable for a seed and a worker count) and one Adam step is
// taken here. The workers hold nothing between steps but a trainer of the same options, so a
// worker that dies or never answers is replaced and the step is simply asked again; where
// workers cannot be had, the trainer steps on the calling thread (fallbackReason says why).
//
// With one instance (no workers, or workers: 1) a step is the Trainer's step() bit for bit. With
// several, the slices' gradients are the batch's up to the order of the float sums (measured
// within 1e-6 + 1e-5 |g|, tests/js/pool-train.test.js), so runs of different worker counts
// drift apart slowly, as any change of summation order does.
import { PARAMETER_BUFFER_INTO } from '../pool-keys.js';
import {
  attentionOf,
  DescribedTrainer,
  disposedError,
  meanOfSteps,
  stepCount,
  zeroHeadsArgument,
  zeroHeadsOf,
} from '../trainer-contract.js';

/** Contiguous, balanced row ranges [from, to) of a batch of `rows` for `parts` instances. */
export function rowRanges(rows, parts) {
  const n = Math.max(1, Math.min(parts, rows));
  return Array.from({ length: n }, (_, p) => [Math.floor((p * rows) / n), Math.floor(((p + 1) * rows) / n)]);
}

/** The slices' results summed in order: { gradient, lossSum, counted, correct, groups, batchState }. */
export function sumSlices(slices) {
  const gradient = slices[0].gradient;
  for (let p = 1; p < slices.length; p += 1) {
    const g = slices[p].gradient;
    for (let i = 0; i < gradient.length; i += 1) gradient[i] += g[i];
  }
  const total = { gradient, lossSum: 0, counted: 0, correct: 0, groups: {}, batchState: slices[0].batchState };
  for (const s of slices) {
    total.lossSum += s.lossSum;
    total.counted += s.counted;
    total.correct += s.correct;
    for (const [name, g] of Object.entries(s.groups)) {
      const t = (total.groups[name] ??= { lossSum: 0, correct: 0, rows: 0 });
      t.lossSum += g.lossSum;
      t.correct += g.correct;
      t.rows += g.rows;
    }
  }
  return total;
}

// The batch's numbers as Trainer.step() reports them (the core's evaluation_of, same divisions).
function evaluationOf(total) {
  const groups = {};
  for (const [name, g] of Object.entries(total.groups)) {
    groups[name] = { loss: g.rows ? g.lossSum / g.rows : 0, accuracy: g.rows ? g.correct / g.rows : 0, rows: g.rows };
  }
  return {
    loss: total.counted ? total.lossSum / total.counted : 0,
    accuracy: total.counted ? total.correct / total.counted : 0,
    groups,
  };
}

/**
 * A trainer whose steps are split across a pool's workers by batch rows. Use pool.createTrainer().
 * Everything synchronous (options, task, parameters, getWeights, setWeights, ...) is the calling
 * thread's trainer, `trainer`; step, evaluate, measure and attention are asynchronous.
 */
export class PooledTrainer extends DescribedTrainer {
  #pool;
  #main;
  #workers;
  #version = 0; // bumped by every change of the weights: workers measuring get them again
  #fallbackReason = null;
  #divergedSteps = 0;
  #queue = Promise.resolve();
  // Per worker, the buffer that takes it the parameters and comes back holding its gradient; kept
  // between steps (a fresh array is slow to touch, docs/pool-chromium.md). Null while away.
  #buffers = [];

  /** @internal use pool.createTrainer */
  constructor(pool, id, main, workers) {
    // options, task, parameters, stepMultiplyAdds: the calling thread's Trainer's.
    super(() => this.#main);
    this.#pool = pool;
    this.#main = main;
    this.#workers = workers;
    this.id = id;
  }

  /**
   * The calling thread's Trainer: the weights, Adam's state and the batch stream live there. Read
   * it freely; change the weights through this object (setWeights), so that the workers get them.
   */
  get trainer() {
    return this.#main;
  }

  get steps() {
    return this.#main.steps;
  }

  get disposed() {
    return this.#main.disposed;
  }

  /** How many instances split each step's batch now (1: the calling thread alone). */
  get instances() {
    return Math.max(1, this.#slots().length);
  }

  /** Why this trainer steps on the calling thread although workers were asked for, or null. */
  get fallbackReason() {
    return this.#fallbackReason ?? this.#pool.fallbackReason;
  }

  #slots() {
    return this.#pool.trainerSlots(this.#workers).slice(0, this.options.batch);
  }

  #live() {
    if (this.disposed) throw disposedError();
  }

  // Calls run one after another (a step reads the weights the previous one wrote).
  #serial(fn) {
    const run = this.#queue.then(fn);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** The most steps one step(n) may take: the Trainer's (one call's limit over one step's work). */
  get maxStepsPerCall() {
    return this.#main.maxStepsPerCall;
  }

  /** Token ids of one sequence of the task (as Trainer.sequenceIds). */
  sequenceIds(sequence) {
    this.#live();
    return this.#main.sequenceIds(sequence);
  }

  /**
   * n updates (default 1, at most maxStepsPerCall), each split across the workers: the mean over
   * the n batches of the loss and accuracy (per group too) and the step count, as Trainer.step(n).
   * The thread is given back between steps, also when they run on the calling thread.
   */
  async step(n = 1) {
    this.#live();
    stepCount(n, this);
    return this.#serial(async () => {
      const results = [];
      for (let i = 0; i < n; i += 1) {
        this.#live();
        results.push(await this.#stepOnce());
      }
      return meanOfSteps(results, { step: this.#main.steps, divergedSteps: this.#divergedSteps });
    });
  }

  async #stepOnce() {
    const version = this.#version;
    const total = await this.#onWorkers('trainerGradients', (slots) => {
      const n = this.#main.parameterCount;
      const batchState = this.#main.batchState;
      const ranges = rowRanges(this.options.batch, slots.length);
      const work = this.#main.stepMultiplyAdds / slots.length;
      return slots.map((slot, p) => {
        const mine = this.#main[PARAMETER_BUFFER_INTO](this.#buffers[p] ?? new Float32Array(n));
        this.#buffers[p] = null;
        const [from, to] = ranges[p];
        const fields = { parameters: mine, batchState, from, to };
        return this.#pool
          .trainerRequest(slot, this, 'trainerGradients', fields, {
            transfer: [mine.buffer],
            expectedLength: n,
            multiplyAdds: work,
          })
          .then((answer) => {
            slot.trainers.set(this.id, version); // the worker now holds these weights
            return answer;
          });
      });
    });
    this.#version += 1;
    if (!total || total.some((s) => s.batchState !== total[0].batchState)) {
      // Every worker drew from the same state: they cannot disagree unless one is not ours.
      if (total) this.#fallbackReason = 'the workers drew different batches from the same state';
      const e = this.#main.step(1); // the calling thread: Trainer.step() itself
      this.#divergedSteps = e.divergedSteps;
      await new Promise((resolve) => setTimeout(resolve)); // timers and dispose() may run between steps
      return e;
    }
    const sum = sumSlices(total);
    const e = evaluationOf(sum);
    this.#divergedSteps = this.#main.applyGradients(sum.gradient, e.loss).divergedSteps;
    this.#main.batchState = sum.batchState;
    total.forEach((slice, p) => (this.#buffers[p] = slice.gradient)); // for the next step
    return e;
  }

  /** Steps whose loss or gradients were not finite (they changed nothing), as evaluate().divergedSteps. */
  get divergedSteps() {
    return this.#divergedSteps;
  }

  // Runs `make(slots)`'s requests; their results, or null when the calling thread must do it.
  // A worker that fails is replaced and everything asked again once; a refusal, or a second
  // failure, leaves the calling thread (the pool falls back, or this trainer alone).
  async #onWorkers(what, make) {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const slots = this.#slots();
      if (slots.length === 0) return null;
      const settled = await Promise.allSettled(make(slots));
      if (this.disposed) throw disposedError();
      const failures = settled.filter((s) => s.status === 'rejected').map((s) => s.reason);
      if (failures.length === 0) return settled.map((s) => s.value);
      const recovered = await this.#pool.recover(slots, failures, attempt === 1);
      if (!recovered) break;
    }
    return null;
  }

  /** Loss and accuracy on the held-out set (as Trainer.evaluate({ zeroHeads })), computed in a worker. */
  async evaluate(options) {
    this.#live();
    const zeroHeads = zeroHeadsArgument(options, this.options);
    return this.#serial(async () => {
      const [e] = (await this.#onWorkers('trainerEvaluate', (slots) => [
        this.#askFirst(slots[0], 'trainerEvaluate', { zeroHeads: zeroHeads.slice() }),
      ])) ?? [this.#main.evaluate({ zeroHeads: zeroHeadsOf(zeroHeads) })];
      return { ...e, step: this.#main.steps, divergedSteps: this.#divergedSteps };
    });
  }

  /** { step, heldOut: evaluate(), roles: roleScores() } computed in a worker (the Learn panel's curve point). */
  async measure() {
    this.#live();
    return this.#serial(async () => {
      const [m] = (await this.#onWorkers('trainerMeasure', (slots) => [
        this.#askFirst(slots[0], 'trainerMeasure'),
      ])) ?? [{ heldOut: this.#main.evaluate(), roles: this.#main.roleScores() }];
      const heldOut = { ...m.heldOut, step: this.#main.steps, divergedSteps: this.#divergedSteps };
      return { step: this.#main.steps, heldOut, roles: m.roles };
    });
  }

  /** Every block's attention on one sequence, as Trainer.attention(), computed in a worker. */
  async attention(sequence) {
    this.#live();
    const ids = Int32Array.from(this.sequenceIds(sequence));
    return this.#serial(async () => {
      const answer = await this.#onWorkers('trainerAttention', (slots) => [
        this.#askFirst(slots[0], 'trainerAttention', { ids: ids.slice() }),
      ]);
      if (!answer) return this.#main.attention(Array.from(ids));
      return attentionOf(this.#main.task, ids, answer[0]);
    });
  }

  // The first worker, holding this step's weights (sent once per version), answers `op`.
  #askFirst(slot, op, fields = {}) {
    const sends = [];
    if (slot.trainers.get(this.id) !== this.#version) {
      const parameters = this.#main.parameterBuffer();
      sends.push(
        this.#pool.trainerRequest(
          slot,
          this,
          'trainerSetParameters',
          { parameters },
          { transfer: [parameters.buffer] },
        ),
      );
    }
    // The held-out set forward (a third of a step per batch of it), counted as whole steps.
    const multiplyAdds = this.#main.stepMultiplyAdds * (this.options.evalSize / this.options.batch);
    // Replies are checked against the trainer's sizes (protocol.js: roles and maps per layer and head).
    const { layers, heads } = this.options;
    const expect = { layers, heads, tokens: this.#main.task.tokens };
    sends.push(this.#pool.trainerRequest(slot, this, op, fields, { multiplyAdds, expect }));
    return Promise.all(sends).then((answers) => {
      slot.trainers.set(this.id, this.#version);
      return answers.at(-1);
    });
  }

  /** The weights (as Trainer.getWeights). */
  getWeights() {
    return this.#main.getWeights();
  }

  /** Replaces weights (as Trainer.setWeights); the workers get them with the next request. */
  setWeights(weights) {
    this.#main.setWeights(weights);
    this.#version += 1;
  }

  /** Frees the trainer here and in every worker. Calling it twice is harmless. */
  dispose() {
    if (this.disposed) return;
    this.#main.dispose();
    this.#pool.forgetTrainer(this);
  }
}
