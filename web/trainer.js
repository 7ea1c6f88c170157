// The trainer of the "latest verb and latest noun" classifier: the core trains, this file checks
// arguments and turns results into plain JS values. Use it through Headwise.createTrainer().
import { floatArrayArgument } from './arguments.js';
import { HeadwiseError } from './errors.js';
import { QUESTION, TOKENS, vocabulary } from './train-task.js';
import { headRoles, ROLE_SHARE } from './head-roles.js';

/** The task's 21 tokens in id order: nouns 0-7, verbs 8-15, fillers 16-19, "?" = 20. */
export const TRAIN_VOCABULARY = vocabulary;
const QUERY = QUESTION;
const VARIANTS = Object.freeze({ 'verb-noun': 0, verb: 1 });

export const TRAINER_DEFAULTS = Object.freeze({
  heads: 2,
  dModel: 32,
  mlpWidth: 64,
  variant: 'verb-noun',
  seed: 0,
  learningRate: 3e-3,
  batch: 32,
  warmup: 100,
  evalSize: 2048,
});
// Whole-number options and their ranges (the core checks the same and the dModel/heads rule).
const INTEGER_RANGES = Object.freeze({
  heads: [1, 64],
  dModel: [1, 1024],
  mlpWidth: [1, 4096],
  seed: [0, 0xffffffff],
  batch: [1, 4096],
  warmup: [0, 1e9],
  evalSize: [1, 65536],
});
// Keys getWeights() adds next to the tensors; setWeights() accepts them back and ignores them.
const WEIGHT_META_KEYS = new Set(['format', 'config', 'step']);
const WEIGHTS_FORMAT = 'headwise-trainer-weights/1';

function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'object'}`;
  return String(value);
}

/** Fills defaults and checks every option; throws TypeError/RangeError naming the option. */
export function normalizeTrainerOptions(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`the trainer options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!(key in TRAINER_DEFAULTS)) {
      throw new TypeError(`unknown trainer option "${key}" (known: ${Object.keys(TRAINER_DEFAULTS).join(', ')})`);
    }
  }
  const o = { ...TRAINER_DEFAULTS, ...options };
  for (const [key, [lo, hi]] of Object.entries(INTEGER_RANGES)) {
    const v = o[key];
    if (typeof v !== 'number') throw new TypeError(`${key} must be a number, got ${describe(v)}`);
    if (!Number.isInteger(v) || v < lo || v > hi) {
      throw new RangeError(`${key} must be a whole number between ${lo} and ${hi}, got ${describe(v)}`);
    }
  }
  if (o.dModel % o.heads !== 0) {
    throw new RangeError(`dModel (${o.dModel}) must be a multiple of heads (${o.heads})`);
  }
  if (typeof o.variant !== 'string') throw new TypeError(`variant must be a string, got ${describe(o.variant)}`);
  if (!(o.variant in VARIANTS)) {
    throw new RangeError(`variant must be "verb-noun" or "verb", got ${describe(o.variant)}`);
  }
  if (typeof o.learningRate !== 'number') {
    throw new TypeError(`learningRate must be a number, got ${describe(o.learningRate)}`);
  }
  if (!(o.learningRate > 0) || !Number.isFinite(o.learningRate) || o.learningRate > 10) {
    throw new RangeError(`learningRate must be a number in (0, 10], got ${describe(o.learningRate)}`);
  }
  return Object.freeze(o);
}

/** Token ids of a 12-token sequence: 11 words then "?" (appended if left out); words or ids. */
export function sequenceIds(sequence) {
  let items = sequence;
  if (typeof sequence === 'string') items = sequence.trim().split(/\s+/);
  if (!Array.isArray(items) && !ArrayBuffer.isView(items)) {
    throw new TypeError(
      `the sequence must be a string, an array of words or an array of ids, got ${describe(sequence)}`,
    );
  }
  const ids = Array.from(items, (item, i) => {
    if (typeof item === 'number') {
      if (!Number.isInteger(item) || item < 0 || item > QUERY) {
        throw new RangeError(`sequence[${i}] must be a token id between 0 and ${QUERY}, got ${item}`);
      }
      return item;
    }
    const id = TRAIN_VOCABULARY.indexOf(item);
    if (id < 0) throw new RangeError(`sequence[${i}] ${describe(item)} is not in the vocabulary`);
    return id;
  });
  if (ids.length === TOKENS - 1) ids.push(QUERY);
  if (ids.length !== TOKENS || ids[TOKENS - 1] !== QUERY || ids.slice(0, -1).includes(QUERY)) {
    throw new RangeError(`the sequence must be 11 words followed by "?", got ${ids.length} tokens`);
  }
  return ids;
}

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

  /** @internal use Headwise.createTrainer */
  constructor(core, handle, options) {
    this.#core = core;
    this.#handle = handle;
    /** The options, with defaults filled in. */
    this.options = options;
    const table = core.call('trainerTable', handle);
    this.#rows = table
      .filter((row) => row.slot === 0)
      .map(({ name, shape }) => ({ name, shape, size: shape.reduce((a, b) => a * b, 1) }));
    /** Parameter tensors in order: { name, shape } (each weight is x_in @ W, shaped (in, out)). */
    this.parameters = Object.freeze(this.#rows.map(({ name, shape }) => Object.freeze({ name, shape })));
    /**
     * The core's tensor table for this model: every parameter, its gradient and Adam's two
     * moments, one row each: { name, role, shape, symbols } (symbols: the shape's dimensions).
     */
    this.tensorTable = Object.freeze(
      table.map(({ name, role, shape, symbols }) => Object.freeze({ name, role, shape, symbols })),
    );
    /** How many classes the variant has (64 for "verb-noun", 8 for "verb"). */
    this.classes = options.variant === 'verb' ? 8 : 64;
    this.steps = 0;
  }

  get disposed() {
    return this.#handle === 0;
  }

  /**
   * n updates (default 1) on fresh batches. Returns the mean over those n batches of the loss and
   * the accuracy (each measured before its batch's update), and the total number of steps taken.
   */
  step(n = 1) {
    if (typeof n !== 'number') throw new TypeError(`n must be a number, got ${describe(n)}`);
    if (!Number.isInteger(n) || n < 1 || n > 1e6) {
      throw new RangeError(`n must be a whole number between 1 and 1000000, got ${describe(n)}`);
    }
    const result = this.#checked(this.#core.call('trainerStep', this.#live(), n));
    this.steps = result.step;
    return result;
  }

  /** Loss and accuracy on the held-out set (options.evalSize sequences of its own seed). */
  evaluate() {
    return this.#checked(this.#core.call('trainerEvaluate', this.#live()));
  }

  /**
   * Per head, the mean attention from "?" on the latest verb and on the latest noun over the
   * held-out set: a head that specialised puts most of its weight on one of the two.
   */
  headShares() {
    return this.#checked(this.#core.call('trainerHeadShares', this.#live()));
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
    return headRoles(this.headShares(), { variant: this.options.variant, threshold });
  }

  /** Attention from "?" for one sequence: { tokens (12 words), heads: [Float32Array(12) per head] }. */
  attentionFrom(sequence) {
    const ids = sequenceIds(sequence);
    const flat = this.#checked(this.#core.call('trainerAttention', this.#live(), ids));
    const heads = [];
    for (let h = 0; h < this.options.heads; h += 1) heads.push(flat.slice(h * TOKENS, (h + 1) * TOKENS));
    return { tokens: ids.map((id) => TRAIN_VOCABULARY[id]), heads };
  }

  /** The parameters as JSON-able flat arrays of numbers, with the format, the options and the step. */
  getWeights() {
    const all = this.#checked(this.#core.call('trainerBufferView', this.#live(), 0)).slice();
    const { heads, dModel, mlpWidth, variant } = this.options;
    const out = { format: WEIGHTS_FORMAT, config: { heads, dModel, mlpWidth, variant }, step: this.steps };
    let offset = 0;
    for (const { name, size } of this.#rows) {
      out[name] = Array.from(all.subarray(offset, offset + size));
      offset += size;
    }
    return out;
  }

  /**
   * Replaces any of the parameters (flat arrays of numbers or Float32Arrays), all checked before
   * any is written. Adam's moments and the step count are kept as they are.
   */
  setWeights(weights) {
    if (weights === null || typeof weights !== 'object' || Array.isArray(weights)) {
      throw new TypeError(`setWeights expects an object such as getWeights() returns, got ${describe(weights)}`);
    }
    const offsets = new Map();
    let offset = 0;
    for (const row of this.#rows) (offsets.set(row.name, [offset, row.shape]), (offset += row.size));
    if (weights.format !== undefined && weights.format !== WEIGHTS_FORMAT) {
      throw new RangeError(`weights.format must be "${WEIGHTS_FORMAT}", got ${describe(weights.format)}`);
    }
    const checked = [];
    for (const [name, value] of Object.entries(weights)) {
      if (WEIGHT_META_KEYS.has(name)) continue;
      if (!offsets.has(name)) {
        throw new TypeError(`unknown weight "${name}" (this model has ${[...offsets.keys()].join(', ')})`);
      }
      const [at, shape] = offsets.get(name);
      checked.push([
        at,
        floatArrayArgument(
          name,
          value,
          shape.reduce((a, b) => a * b, 1),
          shape,
        ),
      ]);
    }
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
    if (this.#handle === 0) throw new HeadwiseError('this trainer was disposed');
    return this.#handle;
  }

  #checked(result) {
    if (result === null) throw new HeadwiseError(this.#core.call('trainerLastError'));
    return result;
  }
}

/** @internal Headwise.createTrainer calls this with its guarded core. */
export function createTrainerOn(core, options) {
  const o = normalizeTrainerOptions(options);
  const handle = core.call(
    'trainerCreate',
    o.heads,
    o.dModel,
    o.mlpWidth,
    VARIANTS[o.variant],
    o.seed,
    o.learningRate,
    o.batch,
    o.warmup,
    o.evalSize,
  );
  if (handle === 0) throw new HeadwiseError(core.call('trainerLastError'));
  const trainer = new Trainer(core, handle, o);
  registryFor(core).register(trainer, handle, trainer);
  return trainer;
}
