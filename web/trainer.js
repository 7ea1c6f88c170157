// A model built from the core's layers, its task and Adam: the core trains, this file checks
// arguments (against the core's option table, web/options.js) and turns results into
// plain JS values. Use it through Headwise.createTrainer().
import { describe, floatArrayArgument } from './arguments.js';
import { PARAMETER_BUFFER_INTO } from './pool-keys.js';
import { HeadwiseError } from './errors.js';
import { headRoles, ROLE_SHARE } from './head-roles.js';
import { vocabulary } from './train-task.js';
import {
  attentionOf,
  disposedError,
  sequenceIdsOf,
  stepCount,
  weightsArgument,
  WEIGHTS_FORMAT,
  zeroHeadsArgument,
} from './trainer-contract.js';
import { normalizeTrainerOptions, trainerOptionTableOf as optionTableOf } from './options.js';

/** The verb-and-noun task's 21 tokens in id order: nouns 0-7, verbs 8-15, fillers 16-19, "?" = 20. */
export const TRAIN_VOCABULARY = vocabulary;
/** Parameters within +-TRAINABLE_RANGE train with finite steps (docs/guarantees.md, the trainable range). */
export const TRAINABLE_RANGE = 2 ** 10;

const registries = new WeakMap();

function registryFor(core) {
  let registry = registries.get(core);
  if (!registry) {
    registry = new FinalizationRegistry((handle) => {
      if (core.stoppedReason === null) core.call('trainerDispose', handle);
    });
    registries.set(core, registry);
  }
  return registry;
}

/** A model, its task and Adam, living in the module until dispose(). */
export class Trainer {
  #core;
  #handle;
  #rows;
  #info;
  #limit;
  // Kept between data-parallel steps: a fresh array of the parameters' length is slow to touch
  // (page faults, docs/pool-chromium.md); the checked copies of setParameterBuffer and
  // applyGradients go through it.
  #scratch = null;

  /** @internal use Headwise.createTrainer */
  constructor(core, handle, options, limit) {
    this.#core = core;
    this.#handle = handle;
    this.#limit = limit;
    /** The options, with defaults filled in. */
    this.options = options;
    const info = core.call('trainerInfo', handle);
    this.#info = info;
    const table = core.call('trainerTable', handle);
    this.#rows = table.parameters.map(({ name, shape, offset, size }) => ({ name, shape, offset, size }));
    /** Parameter tensors in buffer order: { name, shape } (each weight is x_in @ W, shaped (in, out)). */
    this.parameters = Object.freeze(
      this.#rows.map(({ name, shape }) => Object.freeze({ name, shape: Object.freeze(shape) })),
    );
    /**
     * The core's tensor table for this model: every parameter, its gradient and Adam's two
     * moments, one row each: { name, role, shape, symbols } (symbols: the shape's dimensions).
     */
    this.tensorTable = Object.freeze(
      table.slots.flatMap(({ suffix, role: slotRole }) =>
        table.parameters.map(({ name, role, shape, symbols }) =>
          Object.freeze({ name: name + suffix, role: slotRole || role, shape, symbols }),
        ),
      ),
    );
    /** The activations a forward pass keeps for its backward, for up to the batch: { name, role, shape, symbols }. */
    this.activationTable = Object.freeze(
      table.activations.map(({ name, role, shape, symbols }) => Object.freeze({ name, role, shape, symbols })),
    );
    /** The task as the core defines it: its words (by id), loss groups and probes. */
    this.task = Object.freeze({
      name: options.task,
      words: Object.freeze(info.words),
      tokens: info.spec.tokens,
      readout: info.readout,
      groups: Object.freeze(info.groups),
      probes: Object.freeze(info.probes),
    });
    /** How many classes the readout has (64 for "verb-noun", 8 for "verb"). */
    this.classes = info.spec.classes;
    /** Multiply-adds of one step: step(n) is refused when n of them exceed one call's limit. */
    this.stepMultiplyAdds = info.stepMultiplyAdds;
    this.steps = 0;
    /**
     * For a trainer made by loadCheckpoint(): the checkpoint without its weights ({ name, options,
     * steps, evaluation, roles, curve, firstLosses, weightHashes }); otherwise null.
     */
    this.checkpoint = null;
  }

  get disposed() {
    return this.#handle === 0;
  }

  /** The most steps one step(n) call may take (one call's work limit over one step's work). */
  get maxStepsPerCall() {
    return Math.max(1, Math.floor(this.#limit / this.stepMultiplyAdds));
  }

  /**
   * n updates (default 1) on fresh batches. Returns the mean over those n batches of the loss and
   * the accuracy (each measured before its batch's update), per loss group too, and the total
   * number of steps taken. A batch whose loss or gradients are not finite changes nothing
   * (divergedSteps counts them). One call does at most maxStepsPerCall steps: call repeatedly.
   */
  step(n = 1) {
    stepCount(n, this);
    const result = this.#checked(this.#core.call('trainerStep', this.#live(), n));
    this.steps = result.step;
    return result;
  }

  /** How many numbers the parameters are (the length of parameterBuffer() and of a gradient). */
  get parameterCount() {
    const last = this.#rows[this.#rows.length - 1];
    return last.offset + last.size;
  }

  /**
   * The batch generator's state, a whole number in [0, 2^32): what the next step() or
   * sliceGradients() draws. Trainers of the same options set to the same state draw the same batch.
   */
  get batchState() {
    return this.#core.call('trainerBatchState', this.#live());
  }

  set batchState(state) {
    if (typeof state !== 'number') throw new TypeError(`batchState must be a number, got ${describe(state)}`);
    if (!Number.isInteger(state) || state < 0 || state >= 2 ** 32) {
      throw new RangeError(`batchState must be a whole number from 0 to 2^32 - 1, got ${describe(state)}`);
    }
    this.#checked(this.#core.call('trainerSetBatchState', this.#live(), state) || null);
  }

  /**
   * Data-parallel training, one piece: draws the next batch (as step() would) and returns the
   * gradient of its rows [from, to) of the batch's mean loss (divided by the whole batch's counted
   * rows, so the slices' gradients sum to the batch's gradient), with the slice's own sums:
   * { gradient (Float32Array, parameter buffer order), lossSum, counted, correct, groups: { name:
   * { lossSum, correct, rows } }, batchState (after the draw) }. The weights do not change.
   * @internal into: a Float32Array of parameterCount values the gradient is written into (the
   * pool's workers send it back in the buffer the parameters came in), instead of a new one.
   */
  sliceGradients(from = 0, to = this.options.batch, into = null) {
    const batch = this.options.batch;
    for (const [name, value] of [
      ['from', from],
      ['to', to],
    ]) {
      if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
    }
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || from >= to || to > batch) {
      throw new RangeError(`the slice must be whole rows with 0 <= from < to <= ${batch}, got [${from}, ${to})`);
    }
    const sums = this.#checked(this.#core.call('trainerSliceGradients', this.#live(), from, to));
    const view = this.#checked(this.#core.call('trainerBufferView', this.#live(), 1));
    const gradient = into?.length === view.length ? (into.set(view), into) : view.slice();
    const groups = {};
    sums.groups.forEach((group, g) => (groups[this.task.groups[g]] = group));
    return { ...sums, groups, gradient };
  }

  /**
   * Data-parallel training, the other piece: one Adam step with `gradient` (a Float32Array of
   * parameterCount numbers, e.g. the slices' gradients summed) as the batch's gradient; `loss`
   * is the batch's mean loss. A loss or gradient that is not finite changes nothing and counts in
   * divergedSteps, as in step(). Returns { step, diverged, divergedSteps }.
   */
  applyGradients(gradient, loss) {
    const n = this.parameterCount;
    if (!ArrayBuffer.isView(gradient) || Object.prototype.toString.call(gradient) !== '[object Float32Array]') {
      throw new TypeError(`gradient must be a Float32Array, got ${describe(gradient)}`);
    }
    if (gradient.length !== n) throw new RangeError(`gradient must have ${n} values, got ${gradient.length}`);
    if (typeof loss !== 'number') throw new TypeError(`loss must be a number, got ${describe(loss)}`);
    const handle = this.#live();
    const copy = this.#scratchOf(n);
    copy.set(gradient); // a copy first: no caller code runs between the view and the call
    this.#checked(this.#core.call('trainerBufferView', handle, 1)).set(copy);
    const result = this.#checked(this.#core.call('trainerApplyGradient', handle, loss));
    this.steps = result.step;
    return result;
  }

  /** Every parameter as one Float32Array (a copy), in buffer order (each tensor at its table offset). */
  parameterBuffer() {
    return this.#checked(this.#core.call('trainerBufferView', this.#live(), 0)).slice();
  }

  /** parameterBuffer() written into `out` (a Float32Array of parameterCount values): the pool's. */
  [PARAMETER_BUFFER_INTO](out) {
    out.set(this.#checked(this.#core.call('trainerBufferView', this.#live(), 0)));
    return out;
  }

  #scratchOf(n) {
    if (this.#scratch?.length !== n) this.#scratch = new Float32Array(n);
    return this.#scratch;
  }

  /** Replaces every parameter from one Float32Array as parameterBuffer() gives (finite values only). */
  setParameterBuffer(buffer) {
    const n = this.parameterCount;
    const copy = floatArrayArgument('buffer', buffer, n, [n], this.#scratchOf(n));
    this.#checked(this.#core.call('trainerBufferView', this.#live(), 0)).set(copy);
  }

  /**
   * Loss and accuracy on the held-out set (options.evalSize sequences of its own seed), per group
   * too (task 'story': a probe's group also has candidateAccuracy, over its candidate set, and
   * candidateRows). zeroHeads: [{ layer, head }] (from 0) whose context is zeroed before W_out
   * for this evaluation only (ablation: which skill falls without them).
   */
  evaluate(options) {
    const handle = this.#live();
    const pairs = zeroHeadsArgument(options, this.options);
    return this.#checked(this.#core.call('trainerEvaluate', handle, pairs));
  }

  /** { step, heldOut: evaluate(), roles: roleScores() }: the Learn panel's curve point. */
  measure() {
    return { step: this.steps, heldOut: this.evaluate(), roles: this.roleScores() };
  }

  /**
   * Per head of the last block, the mean attention from the read position on each of the task's
   * probes over the held-out set ("verb": the latest verb, "noun": the latest noun): a head that
   * specialised puts most of its weight on one of them.
   */
  headShares() {
    return this.#checked(this.#core.call('trainerProbeShares', this.#live()));
  }

  /**
   * Which solution the heads have found, from headShares() (held-out set), by the rule of
   * head-roles.js (the explorer's Learn verdict uses the same): 'specialised' when one head puts
   * at least `threshold` (ROLE_SHARE, 0.8) of its attention from "?" on the latest verb and another
   * on the latest noun (for 'verb', a head on the verb); 'mixed' when no head puts even 0.5 on
   * either word; 'partial' between. roles: each head's word or null; verbHead and nounHead: the
   * best pairing (nounHead null for 'verb'), verb and noun their shares.
   */
  specialisation(threshold = ROLE_SHARE) {
    if (typeof threshold !== 'number') throw new TypeError(`threshold must be a number, got ${describe(threshold)}`);
    if (!this.task.probes.includes('verb')) {
      throw new HeadwiseError(`specialisation() reads the verb and noun probes; task "${this.task.name}" has none`);
    }
    return headRoles(this.headShares(), { variant: this.options.task, threshold });
  }

  /**
   * Per block, per head, where the head looks over the held-out set: previousToken (mean
   * attention from t to t - 1), firstToken (to position 0) and self (to t), over the queries
   * t >= 1 the block computes; then each of the task's probes by name ("induction": from a
   * position of the second copy to the token after the earlier occurrence of its token, and
   * "duplicate": to that earlier occurrence itself; "verb" and "noun": from "?" to the latest
   * verb and noun); and role, the name the core gives the head by its one rule: its highest
   * score's role ("previous token", "first token", "self", "induction", "duplicate token",
   * "latest verb", "latest noun") when that score is at least 0.3, else "mixed".
   */
  roleScores() {
    return this.#checked(this.#core.call('trainerRoleScores', this.#live()));
  }

  /**
   * Token ids of one sequence of task.tokens tokens, from a string of words, an array of words or
   * an array of ids. For a task read at a final "?", the "?" may be left out.
   */
  sequenceIds(sequence) {
    return sequenceIdsOf(this.task, sequence);
  }

  /**
   * Every block's attention on one sequence: { tokens (words), layers: [{ queries, heads:
   * [Float32Array(queries x T) per head] }] }; queries are the positions the block computes
   * (all T, or the read position in the last block of a classifier).
   */
  attention(sequence) {
    const ids = this.sequenceIds(sequence);
    const flat = this.#checked(this.#core.call('trainerAttention', this.#live(), Int32Array.from(ids)));
    const H = this.options.heads;
    const layers = flat.map((maps) => {
      const size = maps.length / H;
      return Array.from({ length: H }, (_, h) => maps.slice(h * size, (h + 1) * size));
    });
    return attentionOf(this.task, ids, layers);
  }

  /**
   * Sequence `index` of the held-out set (0 .. evalSize - 1), as the core drew it: { ids
   * (Int32Array of task.tokens), groups (Int32Array per read row: an index into task.groups, -1
   * where the loss leaves the row out) }.
   */
  heldOutSequence(index = 0) {
    if (typeof index !== 'number') throw new TypeError(`the index must be a number, got ${describe(index)}`);
    const n = this.options.evalSize;
    if (!Number.isInteger(index) || index < 0 || index >= n) {
      throw new RangeError(`the held-out set has sequences 0 to ${n - 1}, got ${index}`);
    }
    return this.#checked(this.#core.call('trainerHeldOut', this.#live(), index));
  }

  /** Attention from the read position ("?") in the last block: { tokens, heads: [Float32Array(T) per head] }. */
  attentionFrom(sequence) {
    const { tokens, layers } = this.attention(sequence);
    const T = this.task.tokens;
    const last = layers[layers.length - 1];
    return { tokens, heads: last.heads.map((rows) => rows.slice(rows.length - T)) };
  }

  /** The parameters as JSON-able flat arrays of numbers, with the format, the options and the step. */
  getWeights() {
    const all = this.#checked(this.#core.call('trainerBufferView', this.#live(), 0)).slice();
    const out = { format: WEIGHTS_FORMAT, config: { ...this.options }, step: this.steps };
    for (const { name, offset, size } of this.#rows) out[name] = Array.from(all.subarray(offset, offset + size));
    return out;
  }

  /**
   * Replaces any of the parameters (flat arrays of numbers or Float32Arrays), all checked before
   * any is written. Adam's moments and the step count are kept as they are. Weights saved in
   * format 1 (one layer) load into a one-layer model.
   */
  setWeights(weights) {
    const rows = new Map(this.#rows.map((row) => [row.name, row]));
    const checked = weightsArgument(rows, weights, this.options.layers).map(([name, array]) => [
      rows.get(name).offset,
      array,
    ]);
    const view = this.#checked(this.#core.call('trainerBufferView', this.#live(), 0));
    for (const [at, array] of checked) view.set(array, at);
  }

  /** Frees the trainer's memory in the module. Calling it twice is harmless. */
  dispose() {
    if (this.#handle === 0) return;
    if (this.#core.stoppedReason === null) this.#core.call('trainerDispose', this.#handle);
    registryFor(this.#core).unregister(this);
    this.#handle = 0;
  }

  #live() {
    if (this.#handle === 0) throw disposedError();
    return this.#handle;
  }

  #checked(result) {
    if (result === null) throw new HeadwiseError(this.#core.call('lastError'));
    return result;
  }
}

/** @internal Headwise.trainerOptions calls this: the option table, frozen. */
export function trainerOptionsOn(core) {
  return optionTableOf(core).options;
}

/** @internal Headwise.createTrainer calls this with its guarded core. */
export function createTrainerOn(core, options) {
  const table = optionTableOf(core);
  const o = normalizeTrainerOptions(table, options);
  const handle = core.call('trainerCreate', o);
  if (handle === 0) throw new HeadwiseError(core.call('lastError'));
  const trainer = new Trainer(core, handle, o, table.maxMultiplyAddsPerCall);
  registryFor(core).register(trainer, handle, trainer);
  return trainer;
}
