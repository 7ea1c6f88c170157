// The one trainer contract. Trainer (this thread, web/trainer.js), WorkerTrainer (a trainer worker,
// web/pool/worker-trainer.js) and PooledTrainer (data-parallel over a pool, web/pool/data-parallel.js)
// offer the same members, with the checks and errors of this file:
//   options, task, parameters, steps, disposed, stepMultiplyAdds, maxStepsPerCall,
//   step(n), evaluate({ zeroHeads }), measure(), attention(sequence), sequenceIds(sequence),
//   getWeights(), setWeights(weights), dispose()
// (TRAINER_MEMBERS). Trainer answers at once; the other two answer with promises (their refusals
// are rejections). tests/js/trainer-contract.js is the one suite that holds all three to it.
import { describe, floatArrayArgument } from './arguments.js';
import { HeadwiseError } from './errors.js';

/** Every trainer's members: its properties and its methods. */
export const TRAINER_MEMBERS = Object.freeze({
  properties: Object.freeze([
    'options',
    'task',
    'parameters',
    'steps',
    'disposed',
    'stepMultiplyAdds',
    'maxStepsPerCall',
  ]),
  methods: Object.freeze([
    'step',
    'evaluate',
    'measure',
    'attention',
    'sequenceIds',
    'getWeights',
    'setWeights',
    'dispose',
  ]),
});

// The members a trainer off this thread reads from what describes it (the worker's answer to its
// creation, or the calling thread's Trainer): the same in every such trainer, so defined once.
const DESCRIBED_MEMBERS = Object.freeze(['options', 'task', 'parameters', 'stepMultiplyAdds']);
const DESCRIPTION = Symbol('description');

/**
 * The base of WorkerTrainer and PooledTrainer: options, task, parameters and stepMultiplyAdds read
 * from `description()` (an object that has them), one getter each, made from DESCRIBED_MEMBERS.
 */
export class DescribedTrainer {
  constructor(description) {
    Object.defineProperty(this, DESCRIPTION, { value: description });
  }
}
for (const name of DESCRIBED_MEMBERS) {
  if (!TRAINER_MEMBERS.properties.includes(name)) throw new Error(`${name} is not a trainer member`);
  Object.defineProperty(DescribedTrainer.prototype, name, {
    get() {
      return this[DESCRIPTION]()[name];
    },
    configurable: true,
  });
}

const EVALUATE_KEYS = ['zeroHeads'];

/**
 * evaluate()'s options checked against the model's sizes ({ layers, heads }): the heads to zero,
 * as a flat Int32Array of (layer, head) pairs (empty: none). Every trainer checks with this.
 */
export function zeroHeadsArgument(options, { layers, heads }) {
  if (options === undefined) return new Int32Array(0);
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`evaluate's options must be an object such as { zeroHeads }, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!EVALUATE_KEYS.includes(key))
      throw new TypeError(`unknown evaluate option ${describe(key)} (known: zeroHeads)`);
  }
  const zeroHeads = options.zeroHeads === undefined ? [] : options.zeroHeads;
  if (!Array.isArray(zeroHeads))
    throw new TypeError(`zeroHeads must be an array of { layer, head }, got ${describe(zeroHeads)}`);
  if (zeroHeads.length > layers * heads) {
    throw new RangeError(`zeroHeads holds ${zeroHeads.length} heads, more than the model's ${layers * heads}`);
  }
  const pairs = new Int32Array(2 * zeroHeads.length);
  zeroHeads.forEach((z, i) => {
    if (z === null || typeof z !== 'object')
      throw new TypeError(`zeroHeads[${i}] must be { layer, head }, got ${describe(z)}`);
    for (const [key, count] of [
      ['layer', layers],
      ['head', heads],
    ]) {
      const v = z[key];
      if (!Number.isInteger(v) || v < 0 || v >= count) {
        throw new RangeError(
          `zeroHeads[${i}].${key} must be a whole number from 0 to ${count - 1}, got ${describe(v)}`,
        );
      }
    }
    pairs[2 * i] = z.layer;
    pairs[2 * i + 1] = z.head;
  });
  return pairs;
}

/** zeroHeadsArgument's pairs back as evaluate()'s option: [{ layer, head }]. */
export function zeroHeadsOf(pairs) {
  return Array.from({ length: pairs.length / 2 }, (_, i) => ({ layer: pairs[2 * i], head: pairs[2 * i + 1] }));
}

/** Most text a sequence given as a string may hold per token (checked before it is split). */
const CHARACTERS_PER_TOKEN = 64;

// Keys getWeights() adds next to the tensors; setWeights() accepts them back and ignores them.
const WEIGHT_META_KEYS = new Set(['format', 'config', 'step']);
export const WEIGHTS_FORMAT = 'headwise-trainer-weights/2';
// Format 1 (one layer, before the layer library) named the block's tensors without "blocks.0.".
const WEIGHTS_FORMAT_1 = 'headwise-trainer-weights/1';

/** The error every call on a disposed trainer gives. */
export const disposedError = () => new HeadwiseError('this trainer was disposed');

/**
 * step(n)'s count, checked against the trainer's own maxStepsPerCall (one call's work over one
 * step's): returns n, or throws what every trainer throws.
 */
export function stepCount(n, { maxStepsPerCall, stepMultiplyAdds }) {
  if (typeof n !== 'number') throw new TypeError(`n must be a number, got ${describe(n)}`);
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`n must be a whole number from 1 to ${maxStepsPerCall}, got ${describe(n)}`);
  }
  if (n > maxStepsPerCall) {
    throw new RangeError(
      `step(${n}) would take ${Math.round(n * stepMultiplyAdds)} multiply-adds, more than one call ` +
        `allows: call step() repeatedly, at most ${maxStepsPerCall} steps a call for this trainer`,
    );
  }
  return n;
}

/**
 * Token ids of one sequence of task.tokens tokens ({ words, tokens, readout } of the task), from a
 * string of words, an array of words or an array of ids. For a task read at a final "?", the "?"
 * may be left out. The length is checked before any element is read.
 */
export function sequenceIdsOf(task, sequence) {
  const { words, tokens, readout } = task;
  const asksAtEnd = readout === 'last' && words[words.length - 1] === '?';
  let items = sequence;
  if (typeof sequence === 'string') {
    if (sequence.length > CHARACTERS_PER_TOKEN * tokens) {
      throw new RangeError(`the sequence must be ${tokens} tokens, got a string of ${sequence.length} characters`);
    }
    items = sequence.trim().split(/\s+/);
  }
  if (!Array.isArray(items) && !ArrayBuffer.isView(items)) {
    throw new TypeError(
      `the sequence must be a string, an array of words or an array of ids, got ${describe(sequence)}`,
    );
  }
  const length = items.length;
  if (typeof length !== 'number' || length > tokens || length < tokens - (asksAtEnd ? 1 : 0)) {
    throw new RangeError(
      `the sequence must be ${tokens} tokens${asksAtEnd ? ' (the last one "?")' : ''}, got ${length}`,
    );
  }
  const query = words.length - 1;
  const ids = Array.from(items, (item, i) => {
    if (typeof item === 'number') {
      if (!Number.isInteger(item) || item < 0 || item >= words.length) {
        throw new RangeError(`sequence[${i}] must be a token id between 0 and ${words.length - 1}, got ${item}`);
      }
      return item;
    }
    const id = words.indexOf(item);
    if (id < 0) throw new RangeError(`sequence[${i}] ${describe(item)} is not in the vocabulary`);
    return id;
  });
  if (asksAtEnd) {
    if (ids.length === tokens - 1) ids.push(query);
    if (ids[tokens - 1] !== query || ids.slice(0, -1).includes(query)) {
      throw new RangeError(`the sequence must be ${tokens - 1} words followed by "?", got ${ids.length} tokens`);
    }
  }
  return ids;
}

/**
 * attention()'s answer from the ids and, per block, per head, a Float32Array(queries x T):
 * { tokens (words), layers: [{ queries, heads }] }.
 */
export function attentionOf(task, ids, layers) {
  return {
    tokens: Array.from(ids, (id) => task.words[id]),
    layers: layers.map((heads) => ({ queries: heads[0].length / task.tokens, heads })),
  };
}

/**
 * The mean of n steps' results ({ loss, accuracy, groups: { name: { loss, accuracy, rows } } }),
 * as step(n) reports it, with `step` and `divergedSteps` after the last.
 */
export function meanOfSteps(results, { step, divergedSteps }) {
  const n = results.length;
  const mean = { loss: 0, accuracy: 0, groups: {}, step, divergedSteps };
  for (const e of results) {
    mean.loss += e.loss / n;
    mean.accuracy += e.accuracy / n;
    for (const [name, g] of Object.entries(e.groups)) {
      const m = (mean.groups[name] ??= { loss: 0, accuracy: 0, rows: 0 });
      m.loss += g.loss / n;
      m.accuracy += g.accuracy / n;
      m.rows += g.rows;
    }
  }
  return mean;
}

/**
 * setWeights()'s argument checked against the model's parameters (`rows`: a Map name -> { size,
 * shape }) before anything is written: [[name, Float32Array copy]] for the tensors given. Weights
 * saved in format 1 (one layer) name a one-layer model's tensors without "blocks.0.".
 */
export function weightsArgument(rows, weights, layers) {
  if (weights === null || typeof weights !== 'object' || Array.isArray(weights)) {
    throw new TypeError(`setWeights expects an object such as getWeights() returns, got ${describe(weights)}`);
  }
  const format = weights.format;
  if (format !== undefined && format !== WEIGHTS_FORMAT && format !== WEIGHTS_FORMAT_1) {
    throw new RangeError(`weights.format must be "${WEIGHTS_FORMAT}", got ${describe(format)}`);
  }
  const oldNames = format === WEIGHTS_FORMAT_1 && layers === 1;
  const checked = [];
  for (const key of Object.keys(weights)) {
    if (WEIGHT_META_KEYS.has(key)) continue;
    const name = oldNames && !rows.has(key) ? `blocks.0.${key}` : key;
    const row = rows.get(name);
    if (!row) throw new TypeError(`unknown weight ${describe(key)} (this model has ${[...rows.keys()].join(', ')})`);
    checked.push([name, floatArrayArgument(name, weights[key], row.size, row.shape)]);
  }
  return checked;
}
