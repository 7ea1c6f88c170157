// The pool's messages, checked on both sides. A request is { id, op, ...fields } with id a positive
// safe integer; a reply is { id, ok: true, result } or { id, ok: false, error: { name, message } }
// (id null when the request had no usable id). Every op lists its fields and their kinds; the
// worker refuses anything else, and the pool treats a reply that is not what it asked for as a
// broken worker. Adding an op is one row here and one in serve.js. The data-parallel trainer
// (data-parallel.js) uses trainerGradients (set the parameters and the batch state, draw the
// batch, return the gradient of rows [from, to)), trainerSetParameters and trainerEvaluate.

const typedArrayName = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Int8Array.prototype),
  Symbol.toStringTag,
).get;
const isFloat32Array = (value) => ArrayBuffer.isView(value) && typedArrayName.call(value) === 'Float32Array';
const isPlainObject = (value) =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
const isLayerId = (value) => Number.isSafeInteger(value) && value > 0;
const isCount = (value) => Number.isSafeInteger(value) && value >= 0;
const isShare = (value) => typeof value === 'number' && value >= 0 && value <= 1;
const isLoss = (value) => typeof value === 'number' && value >= 0;
const isText = (value, most = 64) => typeof value === 'string' && value.length <= most;
const isTexts = (value, most) => Array.isArray(value) && value.length <= most && value.every((t) => isText(t));
const isInt32Array = (value) => ArrayBuffer.isView(value) && typedArrayName.call(value) === 'Int32Array';
/** Most steps one trainerStep request may ask for (the worker answers within its deadline). */
export const MAX_TRAIN_STEPS = 1000;
/**
 * A trainer request's deadline grows with its work as if the worker did only this many multiply-adds
 * a millisecond (about 1/50 of a training step's rate here): an honest slow machine keeps its time.
 */
export const SLOWEST_MULTIPLY_ADDS_PER_MS = 2.5e5;
/** Most multiply-adds one trainerStep request may ask for (steps x the trainer's stepMultiplyAdds). */
export const REQUEST_WORK_LIMIT = 2e10;
/** Most token ids one trainerAttention request may carry (checked before anything is read). */
export const MAX_IDS = 4096;
/** Most forward passes one forwardTime request may time. */
export const MAX_TIMED_REPEATS = 16;
/** Most positions one decodeTime request may decode. */
export const MAX_TIMED_DECODES = 4096;
const MAX_OPTIONS = 64;
const MAX_TENSORS = 256;
const MAX_OPTION_TEXT = 200;
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

// A flat object of at most MAX_OPTIONS fields, each a number, a short string or a boolean: null,
// or what is wrong. Which names and values are options is the core's table's to say: the worker's
// createAttention and createTrainer check them there (no list of names here to fall behind it).
function optionsProblem(v) {
  if (!isPlainObject(v)) return 'must be a plain object';
  const keys = Object.keys(v);
  if (keys.length > MAX_OPTIONS) return `has ${keys.length} fields, more than ${MAX_OPTIONS}`;
  for (const key of keys) {
    const value = v[key];
    if (PROTOTYPE_KEYS.has(key) || key.length > MAX_OPTION_TEXT) return `has a field "${key.slice(0, 40)}" refused`;
    if (!['number', 'string', 'boolean'].includes(typeof value))
      return `field "${key}" must be a number, string or boolean`;
    if (typeof value === 'string' && value.length > MAX_OPTION_TEXT)
      return `field "${key}" is a text of ${value.length} characters, more than ${MAX_OPTION_TEXT}`;
  }
  return null;
}

// field -> a check that returns null when the value is acceptable, else what is wrong.
const FIELD_CHECKS = {
  layer: (v) => (isLayerId(v) ? null : 'must be a positive whole number'),
  wasmBinary: (v) => (v === undefined || v instanceof ArrayBuffer ? null : 'must be an ArrayBuffer when given'),
  wasmModule: (v) =>
    v === undefined || v instanceof WebAssembly.Module ? null : 'must be a WebAssembly.Module when given',
  x: (v) => (isFloat32Array(v) ? null : 'must be a Float32Array'),
  // createAttention's options (the worker's layer checks their names and values).
  config: optionsProblem,
  // Tensors by name (the worker's layer's setWeights takes only the core's learned rows).
  weights: (v) => {
    if (!isPlainObject(v)) return 'must be a plain object';
    const keys = Object.keys(v);
    if (keys.length > MAX_OPTIONS) return `has ${keys.length} tensors, more than ${MAX_OPTIONS}`;
    for (const key of keys) {
      if (PROTOTYPE_KEYS.has(key) || key.length > MAX_OPTION_TEXT) return `has a tensor "${key.slice(0, 40)}" refused`;
      if (!isFloat32Array(v[key])) return `tensor "${key}" must be a Float32Array`;
    }
    return null;
  },
  // A trainer in the worker (the Learn panel's live replay): its id, its options (checked by
  // createTrainer there), how many steps, and token ids to read the attention on.
  trainer: (v) => (isLayerId(v) ? null : 'must be a positive whole number'),
  options: optionsProblem,
  steps: (v) =>
    Number.isSafeInteger(v) && v >= 1 && v <= MAX_TRAIN_STEPS
      ? null
      : `must be a whole number from 1 to ${MAX_TRAIN_STEPS}`,
  ids: (v) => {
    if (!isInt32Array(v)) return 'must be an Int32Array';
    return v.length >= 1 && v.length <= MAX_IDS ? null : `must hold 1 to ${MAX_IDS} ids, got ${v.length}`;
  },
  parameters: (v) => (isFloat32Array(v) ? null : 'must be a Float32Array'),
  // evaluate()'s heads to zero, (layer, head) pairs (checked against the model's sizes there).
  zeroHeads: (v) =>
    v === undefined || (isInt32Array(v) && v.length % 2 === 0 && v.length <= MAX_IDS)
      ? null
      : `must be an Int32Array of (layer, head) pairs, at most ${MAX_IDS} numbers, when given`,
  // A trainer's weights by tensor name (checked by setWeights there; the page checked them first).
  tensors: (v) => {
    if (!isPlainObject(v)) return 'must be a plain object';
    const keys = Object.keys(v);
    if (keys.length > MAX_TENSORS) return `has ${keys.length} tensors, more than ${MAX_TENSORS}`;
    for (const key of keys) {
      if (PROTOTYPE_KEYS.has(key) || key.length > MAX_OPTION_TEXT) return `has a tensor "${key.slice(0, 40)}" refused`;
      if (!isFloat32Array(v[key])) return `tensor "${key.slice(0, 40)}" must be a Float32Array`;
    }
    return null;
  },
  batchState: (v) => (Number.isSafeInteger(v) && v >= 0 && v < 2 ** 32 ? null : 'must be a whole number below 2^32'),
  from: (v) => (Number.isSafeInteger(v) && v >= 0 ? null : 'must be a whole number >= 0'),
  to: (v) => (Number.isSafeInteger(v) && v >= 1 ? null : 'must be a whole number >= 1'),
  repeats: (v) =>
    Number.isSafeInteger(v) && v >= 1 && v <= MAX_TIMED_REPEATS
      ? null
      : `must be a whole number from 1 to ${MAX_TIMED_REPEATS}`,
};

/** op -> its fields (all required unless the check accepts undefined). */
export const REQUESTS = Object.freeze({
  init: ['wasmBinary', 'wasmModule'],
  create: ['layer', 'config'],
  weights: ['layer', 'weights'],
  forward: ['layer', 'x'],
  dispose: ['layer'],
  // Timed in the worker (the kv panel's "Time generation"): x's positions decoded one by one into
  // the layer's KV cache, or forward(x) `repeats` times; each call's milliseconds on the worker's clock.
  decodeTime: ['layer', 'x'],
  forwardTime: ['layer', 'x', 'repeats'],
  stats: [],
  trainerCreate: ['trainer', 'options'],
  trainerStep: ['trainer', 'steps'],
  trainerMeasure: ['trainer'],
  trainerAttention: ['trainer', 'ids'],
  trainerDispose: ['trainer'],
  trainerGradients: ['trainer', 'parameters', 'batchState', 'from', 'to'],
  trainerSetParameters: ['trainer', 'parameters'],
  trainerEvaluate: ['trainer', 'zeroHeads'],
  trainerGetWeights: ['trainer'],
  trainerSetWeights: ['trainer', 'tensors'],
  trainerRoles: ['trainer'],
});

/** What the worker accepts: null, or the reason the request is refused. */
export function requestProblem(message) {
  if (!isPlainObject(message)) return 'a request must be a plain object';
  if (!isLayerId(message.id)) return 'a request needs an id (a positive whole number)';
  const op = message.op;
  if (typeof op !== 'string' || !Object.hasOwn(REQUESTS, op)) {
    return `unknown op ${typeof op === 'string' ? JSON.stringify(op.slice(0, 40)) : typeof op}`;
  }
  const fields = REQUESTS[op];
  for (const key of Object.keys(message)) {
    if (key !== 'id' && key !== 'op' && !fields.includes(key)) return `${op}: unexpected field "${key}"`;
  }
  for (const field of fields) {
    const problem = FIELD_CHECKS[field](message[field]);
    if (problem) return `${op}: ${field} ${problem}`;
  }
  return null;
}

/** What trainerCreate answers: the trainer's sizes (see serve.js). */
export const TRAINER_INFO = Object.freeze([
  'stepMultiplyAdds',
  'layers',
  'heads',
  'tokens',
  'vocabulary',
  'evalSize',
  'batch',
  'maxStepsPerCall',
]);

// What a successful reply to each op may carry: a check returning null or what is wrong. `expected`
// is what the request said to expect (a length, or a trainer's sizes), when it said.
const RESULT_CHECKS = {
  init: (r) => (isPlainObject(r) && typeof r.simdArch === 'string' ? null : 'init must answer { simdArch }'),
  create: (r) => (r === null ? null : 'create must answer null'),
  weights: (r) => (r === null ? null : 'weights must answer null'),
  forward: (r, expectedLength) =>
    isFloat32Array(r) && r.length === expectedLength
      ? null
      : `forward must answer a Float32Array of ${expectedLength} values`,
  dispose: (r) => (r === null ? null : 'dispose must answer null'),
  // expected: how many calls were timed (the positions decoded, or the repeats).
  decodeTime: (r, expected) =>
    isPlainObject(r) && Object.keys(r).length === 2 && isCount(r.length) && timesProblem(r.ms, expected) === null
      ? null
      : `decodeTime must answer { length (the cache's positions), ms: ${expected ?? 'one'} times of calls }`,
  forwardTime: (r, expected) =>
    isPlainObject(r) && Object.keys(r).length === 1 && timesProblem(r.ms, expected) === null
      ? null
      : `forwardTime must answer { ms: ${expected ?? 'one'} times of calls }`,
  stats: (r) =>
    isPlainObject(r) && ['liveLayers', 'wasmMemoryBytes', 'heapInUseBytes'].every((k) => Number.isSafeInteger(r[k]))
      ? null
      : 'stats must answer { liveLayers, wasmMemoryBytes, heapInUseBytes }',
  // The trainer's sizes, which bound its later requests and the checks of their replies, its
  // options, task and parameter tensors (the contract's members, web/trainer-contract.js).
  trainerCreate: (r) => {
    const shape =
      `trainerCreate must answer { ${TRAINER_INFO.join(', ')} } (whole numbers >= 1), ` +
      '{ options, task: { name, words, tokens, readout, groups, probes }, parameters: [{ name, shape }] }';
    const keys = [...TRAINER_INFO, 'options', 'task', 'parameters'];
    if (!isPlainObject(r) || Object.keys(r).length !== keys.length || !keys.every((k) => Object.hasOwn(r, k)))
      return shape;
    if (!TRAINER_INFO.every((k) => Number.isSafeInteger(r[k]) && r[k] >= 1)) return shape;
    const { task, parameters } = r;
    const taskOk =
      isPlainObject(task) &&
      isText(task.name) &&
      isTexts(task.words, MAX_IDS) &&
      task.words.length === r.vocabulary &&
      task.tokens === r.tokens &&
      ['last', 'every'].includes(task.readout) &&
      isTexts(task.groups, MAX_OPTIONS) &&
      isTexts(task.probes, MAX_OPTIONS);
    const parametersOk =
      Array.isArray(parameters) &&
      parameters.length >= 1 &&
      parameters.length <= MAX_TENSORS &&
      parameters.every(
        (p) =>
          isPlainObject(p) &&
          isText(p.name, MAX_OPTION_TEXT) &&
          Array.isArray(p.shape) &&
          p.shape.length >= 1 &&
          p.shape.length <= 8 &&
          p.shape.every((d) => Number.isSafeInteger(d) && d >= 1),
      );
    return taskOk && parametersOk && FIELD_CHECKS.options(r.options) === null ? null : shape;
  },
  // The mean of the steps: finite, unless a step diverged (its loss is then what the core saw).
  trainerStep: (r, known) => {
    const shape = 'trainerStep must answer { step, loss, accuracy, groups, divergedSteps } (finite unless diverged)';
    if (!isPlainObject(r) || !isCount(r.step) || !isCount(r.divergedSteps)) return shape;
    // Without the trainer's count before the request (known), any diverged step so far allows it.
    if (r.divergedSteps > (known?.divergedSteps ?? 0)) return typeof r.loss === 'number' ? null : shape;
    return evaluationProblem(r, isLoss) ? shape : null;
  },
  trainerMeasure: (r, info) => {
    const shape = 'trainerMeasure must answer { step, heldOut: { loss, accuracy, groups }, roles }';
    if (!isPlainObject(r) || !Number.isSafeInteger(r.step) || !isPlainObject(r.heldOut) || !Array.isArray(r.roles))
      return shape;
    if (!info) return null;
    if (evaluationProblem(r.heldOut)) return `${shape} (${evaluationProblem(r.heldOut)})`;
    return rolesProblem(r.roles, info);
  },
  trainerRoles: (r, info) =>
    Array.isArray(r) ? (info ? rolesProblem(r, info) : null) : 'trainerRoles must answer roles',
  // Per layer, per head a map of T x T (or T: a classifier's last layer reads one position).
  trainerAttention: (r, info) => {
    if (!info) {
      return Array.isArray(r) && r.every((layer) => Array.isArray(layer) && layer.every(isFloat32Array))
        ? null
        : 'trainerAttention must answer one array of Float32Array maps per layer';
    }
    const { layers, heads, tokens: T } = info;
    const ok =
      Array.isArray(r) &&
      r.length === layers &&
      r.every(
        (layer) =>
          Array.isArray(layer) &&
          layer.length === heads &&
          layer.every((m) => isFloat32Array(m) && (m.length === T * T || m.length === T)),
      );
    return ok ? null : `trainerAttention must answer ${layers} layers x ${heads} heads of Float32Array(${T} x ${T})`;
  },
  trainerDispose: (r) => (r === null ? null : 'trainerDispose must answer null'),
  // A slice's sums: its loss sum may be anything (a diverged batch's is not finite), the counts not.
  trainerGradients: (r, expectedLength) =>
    isPlainObject(r) &&
    isFloat32Array(r.gradient) &&
    r.gradient.length === expectedLength &&
    typeof r.lossSum === 'number' &&
    ['counted', 'correct'].every((k) => isCount(r[k])) &&
    FIELD_CHECKS.batchState(r.batchState) === null &&
    isPlainObject(r.groups) &&
    Object.values(r.groups).every(
      (g) => isPlainObject(g) && typeof g.lossSum === 'number' && isCount(g.correct) && isCount(g.rows),
    )
      ? null
      : `trainerGradients must answer { gradient: Float32Array of ${expectedLength} values, lossSum, counted, ` +
        'correct, groups, batchState } (counts whole numbers)',
  trainerSetParameters: (r) => (r === null ? null : 'trainerSetParameters must answer null'),
  trainerEvaluate: (r) => {
    const problem = evaluationProblem(r);
    return problem ? `trainerEvaluate must answer { loss, accuracy, groups, ... }: ${problem}` : null;
  },
  // getWeights(): the format, options and step, and every parameter as numbers of its size.
  trainerGetWeights: (r, info) => {
    const shape = 'trainerGetWeights must answer { format, config, step, <every parameter>: finite numbers }';
    if (!isPlainObject(r) || !isText(r.format, MAX_OPTION_TEXT) || !isPlainObject(r.config) || !isCount(r.step))
      return shape;
    if (!info) return null;
    if (Object.keys(r).length !== info.parameters.length + 3) return shape;
    const ok = info.parameters.every(({ name, shape: dims }) => {
      const values = r[name];
      const size = dims.reduce((a, b) => a * b, 1);
      return Array.isArray(values) && values.length === size && values.every(Number.isFinite);
    });
    return ok ? null : shape;
  },
  trainerSetWeights: (r) => (r === null ? null : 'trainerSetWeights must answer null'),
};

// Milliseconds of `expected` calls (any number of them when not said): finite numbers >= 0.
function timesProblem(ms, expected) {
  if (!Array.isArray(ms) || ms.length < 1 || ms.length > MAX_TIMED_DECODES) return 'not an array of times';
  if (expected !== undefined && ms.length !== expected) return `not ${expected} times`;
  return ms.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0) ? null : 'a time not >= 0';
}

// Role scores: per layer, per head { role, <score>: a share }.
function rolesProblem(roles, info) {
  const ok =
    roles.length === info.layers &&
    roles.every(
      (layer) =>
        Array.isArray(layer) &&
        layer.length === info.heads &&
        layer.every(
          (h) =>
            isPlainObject(h) &&
            isText(h.role) &&
            Object.entries(h).every(([key, value]) => key === 'role' || isShare(value)),
        ),
    );
  return ok ? null : `roles must be ${info.layers} layers x ${info.heads} heads of { role, scores within [0, 1] }`;
}

// A measured result { loss, accuracy, groups: { name: { loss, accuracy, rows } }, ... }: null, or what
// is wrong. Losses are numbers >= 0, Infinity or NaN: weights set outside the trainable range (finite,
// such as 3e38) make the core's own evaluation NaN (inf - inf), which the calling thread's Trainer
// answers too (the protocol fuzz found it, seed 1090697651). Accuracies and shares within [0, 1],
// counts whole numbers. A step's mean loss, when no step diverged, is checked with `lossOk` = isLoss.
const isEvaluatedLoss = (value) => isLoss(value) || Number.isNaN(value);
function evaluationProblem(r, lossOk = isEvaluatedLoss) {
  if (!isPlainObject(r) || !isPlainObject(r.groups)) return 'not { loss, accuracy, groups }';
  if (!lossOk(r.loss)) return `loss ${String(r.loss)}`;
  if (!isShare(r.accuracy)) return `accuracy ${String(r.accuracy)}`;
  for (const [name, g] of Object.entries(r.groups)) {
    if (!isPlainObject(g) || !lossOk(g.loss) || !isShare(g.accuracy) || !isCount(g.rows)) return `group "${name}"`;
  }
  for (const key of ['step', 'divergedSteps']) if (key in r && !isCount(r[key])) return `${key} ${String(r[key])}`;
  if ('parts' in r && !(isPlainObject(r.parts) && Object.values(r.parts).every(isShare))) return 'parts';
  return null;
}

const ERROR_NAMES = new Set(['Error', 'TypeError', 'RangeError', 'HeadwiseError']);

/**
 * What the pool accepts as the answer to `pending` ({ id, op, expected? }): null, or the reason
 * the reply is refused.
 */
export function replyProblem(message, pending) {
  if (!isPlainObject(message)) return 'a reply must be a plain object';
  const keys = Object.keys(message);
  if (keys.some((k) => !['id', 'ok', 'result', 'error'].includes(k))) return 'a reply has an unexpected field';
  if (pending === undefined || message.id !== pending.id) return `a reply to no request (id ${String(message.id)})`;
  if (message.ok === true) return RESULT_CHECKS[pending.op](message.result, pending.expected);
  if (message.ok !== false) return 'a reply needs ok: true or false';
  const error = message.error;
  if (!isPlainObject(error) || !ERROR_NAMES.has(error.name) || typeof error.message !== 'string') {
    return 'an error reply needs error: { name, message }';
  }
  return null;
}

/** An error reply's content, sent by the worker. */
export function errorOf(error) {
  const name = ERROR_NAMES.has(error?.name) ? error.name : 'Error';
  return { name, message: String(error?.message ?? error).slice(0, 2000) };
}
