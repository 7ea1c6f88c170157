// The loaded module: Headwise (loadHeadwise), its attention layers, and the shorthands. The API's
// entry (headwise.js) re-exports this; the pool's workers import it directly, so nothing under
// web/pool/ imports the entry back.
import { loadCore } from './core-loader.js';
import { deepFreeze, floatArrayArgument, optionsArgument, positiveSize, seedArgument } from './arguments.js';
import { attentionOptionTableOf, coreOptions, normalizeConfig } from './options.js';
import { HeadwiseError } from './errors.js';
import { GuardedCore } from './guarded-core.js';
import { loadCheckpointWith } from './checkpoint.js';
import { createTrainerOn, trainerOptionsOn } from './trainer.js';
import { cacheBytesOn, cachePresetsOn, cacheStateOn, decodeOn } from './kv.js';
import { LatentAttention } from './latent.js';
import { FORWARD_IN_PLACE } from './pool-keys.js';

// The core's tensor table and steps, read from the module at load: ids by name (T), steps by name
// (STEP), the stream inputs are drawn from, every row by id (its shape in dimension symbols), and
// the learned tensors' rows (weights, then biases).
function tablesOf(core) {
  const { tensors, steps } = core.call('tensorTable');
  const kinds = deepFreeze(core.call('positionKinds'));
  const { tasks, roles } = core.call('taskTable');
  const byName = (rows) => Object.freeze(Object.fromEntries(rows.map((row) => [row.name, row.id])));
  const rows = tensors.map((row) => Object.freeze({ ...row, shape: Object.freeze([...row.shape]) }));
  return Object.freeze({
    table: deepFreeze({ tensors: rows, steps: steps.map((step) => ({ ...step })) }),
    // Position kinds ({ name, label, entersAt, learnedTable }), by name too; tasks and head roles.
    kinds,
    kindByName: Object.freeze(new Map(kinds.map((kind) => [kind.name, kind]))),
    tasks: deepFreeze(tasks),
    roles: deepFreeze(roles),
    T: byName(tensors),
    STEP: byName(steps),
    INPUT_STREAM: rows.find((row) => row.name === 'input').stream,
    rows: Object.freeze(new Map(rows.map((row) => [row.id, row]))),
    // Weights, biases, and the position table (learned by a trainer, seeded here).
    learned: Object.freeze(rows.filter((row) => ['weight', 'bias', 'embedding'].includes(row.role))),
  });
}

/** One multi-head attention layer with its weights, living in the module until dispose(). */
export class MultiHeadAttention {
  #core;
  #handle;
  #registry;
  #keeping = false;
  #T;
  #STEP;
  #rows;
  #learned;
  #kind;

  /** @internal use Headwise.createAttention */
  constructor(core, handle, config, registry, tables) {
    this.#core = core;
    this.#T = tables.T;
    this.#STEP = tables.STEP;
    this.#rows = tables.rows;
    this.#learned = tables.learned;
    this.#kind = tables.kindByName.get(config.positions);
    this.#handle = handle;
    this.#registry = registry;
    const headDim = config.headDim ?? config.dModel / config.heads;
    /**
     * The configuration: every option of the core's table, with headDim and concatWidth (heads x
     * headDim) filled in (memoryBudget undefined when left out; kvHeads too, meaning heads, so a
     * part of the layer made from this config with fewer heads, the pool's, is still multi-head).
     */
    this.config = Object.freeze({ ...config, headDim, concatWidth: config.heads * headDim });
    // The public groups of shapes, each the table's shape of one row (q, k, v share theirs).
    const shapeOf = (name) => this.#shapeOf(this.#rows.get(this.#T[name]));
    /** Every tensor's shape, frozen all the way down. */
    this.shapes = deepFreeze({
      input: shapeOf('input'),
      projected: shapeOf('q'),
      heads: shapeOf('qHeads'),
      scores: shapeOf('scores'),
      concat: shapeOf('concat'),
      output: shapeOf('output'),
      wq: shapeOf('wq'),
      wOut: shapeOf('wOut'),
      bq: shapeOf('bq'),
      bOut: shapeOf('bOut'),
    });
  }

  get disposed() {
    return this.#handle === 0;
  }

  /**
   * The whole forward pass. variant: 'fused' (default) or 'loop'. With intermediates the attention
   * runs in the kernel that writes out full score rows, so outputs may differ from forward(x) in
   * the last bits (tested within 1e-5 + 1e-5 |ref| at every kernel boundary).
   */
  forward(x, options) {
    const { variant = 'fused', intermediates = false } = optionsArgument('forward', options, FORWARD_OPTIONS);
    if (variant !== 'fused' && variant !== 'loop') {
      throw new RangeError(`variant must be "fused" or "loop", got ${JSON.stringify(variant)}`);
    }
    this.#write([[this.#T.input, 'x', x]]);
    this.#keep(intermediates);
    this.#run(variant === 'loop' ? this.#STEP.forwardLoop : this.#STEP.forwardFused);
    const output = this.#read(this.#T.output);
    if (!intermediates) return output;
    const concat = this.#read(this.#T.concat);
    return {
      ...this.#positionIntermediates(),
      output,
      q: this.#read(this.#T.qHeads),
      k: this.#read(this.#T.kHeads),
      v: this.#read(this.#T.vHeads),
      scores: this.#read(this.#T.scores),
      attention: this.#read(this.#T.attention),
      // The loop version writes each head's context straight into its columns of concat.
      context: variant === 'loop' ? this.#headsOf(concat) : this.#read(this.#T.contextHeads),
      concat,
      // The K/V head each query head read (k and v above hold kvHeads heads).
      kvHeadOf: this.kvHeadOf(),
      trace: this.shapeTrace(),
    };
  }

  // What the position kind added, as the core computed it, by where the kind enters: the
  // (T, dModel) rows added to x (input); q and k before their rotation (queries and keys: q and k
  // themselves are rotated); the (H, T, T) bias on the scaled scores (scores).
  #positionIntermediates() {
    switch (this.#kind.entersAt) {
      case 'input':
        return { positions: this.#read(this.#T.positions) };
      case 'queries and keys':
        return {
          qUnrotated: this.#headsOf(this.#read(this.#T.q)),
          kUnrotated: this.#headsOf(this.#read(this.#T.k), this.config.kvHeads ?? this.config.heads),
        };
      case 'scores':
        return { scoreBias: this.#read(this.#T.scoreBias) };
      default:
        return {};
    }
  }

  /** The K/V head each query head reads: h / (heads / kvHeads), as the core's operator does. */
  kvHeadOf() {
    const { heads, kvHeads = heads } = this.config;
    return Array.from({ length: heads }, (_, h) => Math.floor(h / (heads / kvHeads)));
  }

  /** The loop version: H single heads one after another, concatenated, then W_out. */
  /**
   * @internal the pool worker's forward (web/pool/serve.js): x read from `buffer` (a Float32Array of
   * the input's length, every value finite, as forward checks) and the output written back into it.
   * Nothing is allocated: a fresh multi-megabyte array costs a page fault per 4 KiB on first touch
   * (docs/pool-chromium.md), more than the split saves. `buffer` is left as it was on an error.
   */
  [FORWARD_IN_PLACE](buffer) {
    const input = this.#view(this.#T.input);
    if (!(buffer instanceof Float32Array) || buffer.length !== input.length) {
      throw new RangeError(`x must be a Float32Array of ${input.length} values`);
    }
    for (let i = 0; i < buffer.length; i += 1) {
      if (!isFinite(buffer[i])) throw new RangeError(`x[${i}] is ${buffer[i]}; every value must be finite`);
    }
    input.set(buffer);
    this.#keep(false);
    this.#run(this.#STEP.forwardFused);
    buffer.set(this.#view(this.#T.output));
    return buffer;
  }

  forwardLoop(x, options) {
    return this.forward(x, { ...optionsArgument('forwardLoop', options, ['intermediates']), variant: 'loop' });
  }

  /** Step 1. x (B, T, d_model) -> q, k, v, each (B, T, H*hd): one large product each. */
  project(x) {
    this.#write([[this.#T.input, 'x', x]]);
    this.#run(this.#STEP.project);
    return { q: this.#read(this.#T.q), k: this.#read(this.#T.k), v: this.#read(this.#T.v) };
  }

  /** Step 2. q, k, v (B, T, H*hd) -> view (B, T, H, hd) -> transpose(1, 2) -> (B, H, T, hd). */
  split(projected) {
    const { q, k, v } = qkvArgument('split', projected);
    this.#write([
      [this.#T.q, 'q', q],
      [this.#T.k, 'k', k],
      [this.#T.v, 'v', v],
    ]);
    this.#run(this.#STEP.split);
    return { q: this.#read(this.#T.qHeads), k: this.#read(this.#T.kHeads), v: this.#read(this.#T.vHeads) };
  }

  /** Step 3. Per head: softmax(q k^T / sqrt(hd) + causal mask) v. Context is (B, H, T, hd). */
  attend(heads, options) {
    const { q, k, v } = qkvArgument('attend', heads);
    const { intermediates = false } = optionsArgument('attend', options, ['intermediates']);
    this.#write([
      [this.#T.qHeads, 'q', q],
      [this.#T.kHeads, 'k', k],
      [this.#T.vHeads, 'v', v],
    ]);
    this.#keep(intermediates);
    this.#run(this.#STEP.attend);
    const context = this.#read(this.#T.contextHeads);
    if (!intermediates) return { context };
    return { context, scores: this.#read(this.#T.scores), attention: this.#read(this.#T.attention) };
  }

  /** Step 4. context (B, H, T, hd) -> transpose(1, 2) -> view (B, T, H*hd). */
  merge(context) {
    this.#write([[this.#T.contextHeads, 'context', context]]);
    this.#run(this.#STEP.merge);
    return this.#read(this.#T.concat);
  }

  /** Step 5. concat (B, T, H*hd) @ W_out (+ b_out) -> (B, T, d_model). */
  outProject(concat) {
    this.#write([[this.#T.concat, 'concat', concat]]);
    this.#run(this.#STEP['out-project']);
    return this.#read(this.#T.output);
  }

  /**
   * Copies of the weights: wq, wk, wv (d_model, H*hd), wOut (H*hd, d_model), biases if on, and
   * positions (T, d_model) with learned positions.
   */
  getWeights() {
    return Object.fromEntries(this.#learnedRows().map((row) => [row.name, this.#read(row.id)]));
  }

  /** Replaces any of the weights; all given arrays are checked before any is written. */
  setWeights(weights) {
    if (weights === null || typeof weights !== 'object') {
      throw new TypeError('setWeights expects an object such as { wq, wk, wv, wOut }');
    }
    // An explicit allow-list (a Map of the table's rows): "constructor" or "toString" are not weights.
    const rows = new Map(this.#learnedRows().map((row) => [row.name, row]));
    const writes = Object.keys(weights).map((name) => {
      const row = rows.get(name);
      if (!row) {
        throw new TypeError(`unknown weight ${JSON.stringify(name)} (this layer has ${[...rows.keys()].join(', ')})`);
      }
      return [row.id, name, weights[name]];
    });
    this.#write(writes);
  }

  /** Every step's tensor name and shape for this configuration. */
  shapeTrace() {
    return traceOf(this.#core, this.config);
  }

  /**
   * Causal decoding with a KV cache: token (batch, dModel) is the next position of every
   * sequence; its key and value are appended to the cache and its output (batch, dModel)
   * returned. N steps give forward() of the N positions with causal: true (within 1e-5 + 1e-5
   * |ref|). The cache holds up to `tokens` positions and is counted in the memory budget.
   */
  decode(token) {
    return decodeOn(this.#core, this.#live(), this.config, token);
  }

  /** { length, capacity, bytes }: positions in the KV cache, the most it holds, its K and V bytes. */
  get cache() {
    return cacheStateOn(this.#core, this.#live());
  }

  /** Frees the KV cache: the next decode() is position 0 again. */
  resetCache() {
    this.#core.call('resetCache', this.#live());
  }

  /** Frees the layer's memory in the module. Calling it twice is harmless. */
  dispose() {
    if (this.#handle === 0) return;
    if (this.#core.stoppedReason === null) this.#core.call('disposeModel', this.#handle);
    this.#registry.unregister(this);
    this.#handle = 0;
  }

  // The table's weight rows, its bias rows when this layer has biases, and the position table
  // when positions are learned, in table order.
  #learnedRows() {
    const held = { weight: true, bias: this.config.bias, embedding: this.#kind.learnedTable };
    return this.#learned.filter((row) => held[row.role]);
  }

  // A row's shape with this layer's sizes for the table's dimension symbols.
  #shapeOf(row) {
    const { batch, tokens, dModel, heads, headDim, concatWidth, kvHeads = heads } = this.config;
    const sizes = {
      B: batch,
      T: tokens,
      D: dModel,
      H: heads,
      hd: headDim,
      C: concatWidth,
      Hkv: kvHeads,
      Ckv: kvHeads * headDim,
    };
    return row.shape.map((symbol) => sizes[symbol]);
  }

  #live() {
    if (this.#handle === 0) throw new HeadwiseError('this attention layer was disposed');
    return this.#handle;
  }

  // Views into wasm memory go stale when memory grows: take one, use it at once, never keep it.
  #view(id) {
    return this.#core.call('tensorView', this.#live(), id);
  }
  #read(id) {
    return this.#view(id).slice();
  }

  // Every argument is converted and checked into a private copy first (its shape from the table's
  // row); only then are views taken and the copies written, so no caller code runs between a
  // check and its write.
  #write(writes) {
    const copies = writes.map(([id, name, value]) => {
      const shape = this.#shapeOf(this.#rows.get(id));
      return [id, floatArrayArgument(name, value, sizeOf(shape), shape)];
    });
    for (const [id, copy] of copies) this.#view(id).set(copy);
  }

  #keep(intermediates) {
    if (typeof intermediates !== 'boolean') {
      throw new TypeError(`intermediates must be true or false, got ${String(intermediates)}`);
    }
    if (intermediates === this.#keeping) return; // one call into the module saved per forward
    if (!this.#core.call('keepIntermediates', this.#live(), intermediates)) {
      throw new HeadwiseError(this.#core.call('lastError'));
    }
    this.#keeping = intermediates;
  }

  #run(step) {
    if (!this.#core.call('runStep', this.#live(), step)) throw new HeadwiseError(this.#core.call('lastError'));
  }

  // (B, T, H*hd) -> (B, H, T, hd); k and v: H = kvHeads
  #headsOf(concat, H = this.config.heads) {
    const { batch: B, tokens: Tn, headDim: hd } = this.config;
    const C = H * hd;
    const out = new Float32Array(concat.length);
    for (let b = 0; b < B; b += 1)
      for (let t = 0; t < Tn; t += 1)
        for (let h = 0; h < H; h += 1)
          out.set(
            concat.subarray((b * Tn + t) * C + h * hd, (b * Tn + t) * C + (h + 1) * hd),
            ((b * H + h) * Tn + t) * hd,
          );
    return out;
  }
}

const FORWARD_OPTIONS = ['variant', 'intermediates'];
const sizeOf = (shape) => shape.reduce((a, b) => a * b, 1);

function qkvArgument(what, value) {
  if (value === null || typeof value !== 'object') {
    throw new TypeError(`${what} expects an object { q, k, v }, got ${value === null ? 'null' : typeof value}`);
  }
  return { q: value.q, k: value.k, v: value.v };
}

function traceOf(core, config) {
  const c = normalizeConfig(attentionOptionTableOf(core), config);
  const trace = core.call('shapeTrace', coreOptions(c));
  if (trace === null) throw new HeadwiseError(core.call('lastError'));
  return trace;
}

/** The loaded module. Create as many layers as you like; dispose() them when done. */
export class Headwise {
  #core;
  #registry;
  #tables;

  /** @internal use loadHeadwise() */
  constructor(rawCore) {
    const core = new GuardedCore(rawCore);
    this.#core = core;
    this.#tables = tablesOf(core);
    // The option tables are read at load, while there is memory for them (a full module still
    // refuses creations cleanly).
    trainerOptionsOn(core);
    attentionOptionTableOf(core);
    // A safety net for layers that are dropped without dispose() (of either kind: the handles
    // are one map's, so disposeModel refuses a latent layer's).
    this.#registry = new FinalizationRegistry((handle) => {
      if (core.stoppedReason === null && !core.call('disposeModel', handle)) core.call('disposeLatent', handle);
    });
    /** The xsimd architecture the kernels were compiled for ("sse4.2" maps to wasm SIMD128). */
    this.simdArch = core.call('simdArch');
    /**
     * The compiled WebAssembly.Module this instance runs: loadHeadwise({ wasmModule }) makes another
     * instance from it without fetching or compiling again (a worker gets it by postMessage).
     */
    this.wasmModule = rawCore.headwiseWasmModule;
  }

  /** Why the module stopped (after an abort or a trap), or null while it works. */
  get stoppedReason() {
    return this.#core.stoppedReason;
  }

  /**
   * Creates a layer; weights come from config.seed unless you setWeights() afterwards. attention
   * 'mla' (with kvLatent) makes a LatentAttention (web/latent.js), 'mha' (the default) a
   * MultiHeadAttention.
   */
  createAttention(config = {}) {
    const c = normalizeConfig(attentionOptionTableOf(this.#core), config);
    const latent = c.attention === 'mla';
    const handle = this.#core.call(latent ? 'createLatent' : 'createModel', coreOptions(c));
    if (handle === 0) throw new HeadwiseError(this.#core.call('lastError'));
    const layer = latent
      ? new LatentAttention(this.#core, handle, c, this.#registry)
      : new MultiHeadAttention(this.#core, handle, c, this.#registry, this.#tables);
    this.#registry.register(layer, handle, layer);
    return layer;
  }

  /** null if the configuration is valid, otherwise the reason in words. */
  check(config = {}) {
    try {
      const c = normalizeConfig(attentionOptionTableOf(this.#core), config);
      const message = this.#core.call('validateConfig', coreOptions(c));
      return message === '' ? null : message;
    } catch (error) {
      if (error instanceof TypeError || error instanceof RangeError) return error.message;
      throw error;
    }
  }

  /** Every step's tensor name and shape, without allocating anything (works for GPT-3 sizes). */
  shapeTrace(config = {}) {
    return traceOf(this.#core, config);
  }

  /** A deterministic input of shape (batch, tokens, dModel), values uniform in [-1, 1). */
  randomInput(config = {}, seed = 0) {
    const c = normalizeConfig(attentionOptionTableOf(this.#core), config);
    for (const key of ['batch', 'tokens', 'dModel']) positiveSize(key, c[key]);
    seedArgument('seed', seed);
    const length = c.batch * c.tokens * c.dModel;
    if (!Number.isSafeInteger(length) || length > 2 ** 28) {
      throw new RangeError(`an input of ${length} values is too large`);
    }
    const values = this.#core.call('randomUniform', length, seed, this.#tables.INPUT_STREAM, 1);
    if (values === null) throw new HeadwiseError(this.#core.call('lastError'));
    return values;
  }

  /**
   * Creates a trainer: a model built from the core's layers ({ task, layers, heads, dModel,
   * positions, mlpWidth, layerNorm, causal, ... }: see trainerOptions()) and Adam (web/trainer.js).
   */
  createTrainer(options = {}) {
    return createTrainerOn(this.#core, options);
  }

  /**
   * createAttention's options as the core defines them: [{ name, type, min, max, unit, default,
   * choices, about }] (positions: its choices are the core's position kinds).
   */
  attentionOptions() {
    return attentionOptionTableOf(this.#core).rows;
  }

  /**
   * A trainer holding a shipped checkpoint's weights (a name of CHECKPOINT_NAMES, read from
   * web/checkpoints/) or a checkpoint object; trainer.checkpoint keeps its curve, evaluation and
   * role scores. Training on continues from those weights with fresh Adam moments.
   */
  loadCheckpoint(source) {
    return loadCheckpointWith((options) => this.createTrainer(options), source);
  }

  /**
   * The core's position kinds, in its order: [{ name, label, entersAt, learnedTable, about }]; entersAt is
   * where the kind's positions enter: 'nowhere', 'input' (added to x), 'queries and keys' (q and k
   * rotated) or 'scores' (a bias on the scaled scores). learnedTable: a weight named positions.
   * about: what the kind is, after its label (paper and rule; '' for none).
   */
  positionKinds() {
    return this.#tables.kinds;
  }

  /**
   * The core's tasks for createTrainer, in its order: [{ name, about, probes: [{ name, role }] }]
   * (a probe: where a head's attention is measured; role: what a head scoring highest on it is).
   */
  tasks() {
    return this.#tables.tasks;
  }

  /** Every role a trained head can be given (roleScores()[l][h].role), "mixed" last. */
  headRoleNames() {
    return this.#tables.roles;
  }

  /**
   * The core's tensor table: { tensors: [{ id, name, role, allocated, shape, stream, fanIn }],
   * steps: [{ id, name }] } (shapes in dimension symbols B, T, D, H, hd, C, S).
   */
  tensorTable() {
    return this.#tables.table;
  }

  /** The trainer's options as the core defines them: [{ name, type, min, max, default, choices, about }]. */
  trainerOptions() {
    return trainerOptionsOn(this.#core);
  }

  /**
   * A model's KV cache per token and per sequence, computed by the core without allocating:
   * a preset's name (cachePresets()) or { layers, heads, kvHeads, headDim, attention: 'mha' |
   * 'mla', kvLatent, ropeDim, tokens, bytesPerNumber (default 2, fp16) }. Returns
   * { numbersPerTokenPerLayer, mhaNumbersPerTokenPerLayer, bytesPerToken, mhaBytesPerToken,
   * bytesPerSequence }.
   */
  cacheBytes(config) {
    return cacheBytesOn(this.#core, config);
  }

  /** Published configurations for cacheBytes (docs/kv.md cites each). */
  cachePresets() {
    return cachePresetsOn(this.#core);
  }

  /** How many trainers are alive in the module (for leak checks). */
  liveTrainers() {
    return this.#core.call('liveTrainers');
  }

  /** How many layers are alive in the module (for leak checks). */
  liveLayers() {
    return this.#core.call('liveModels');
  }

  /**
   * { wasmMemoryBytes, heapInUseBytes, stackPointer }: linear memory size, bytes currently
   * allocated, and where the module's stack pointer stands between calls (constant unless leaked).
   */
  memoryStats() {
    return this.#core.call('memoryStats');
  }
}

let shared = null;

/**
 * Loads the WebAssembly module. With no options the module is loaded once and shared; if the
 * shared one has stopped (an abort), the next call loads a fresh one. With options, always fresh.
 * @param {{ wasmBinary?: ArrayBuffer | Uint8Array, wasmModule?: WebAssembly.Module, wasmUrl?: string | URL }} [options]
 */
export async function loadHeadwise(options) {
  if (options) return new Headwise(await loadCore(options));
  if (shared && (await shared.catch(() => null))?.stoppedReason != null) shared = null;
  shared ??= loadCore().then((core) => new Headwise(core));
  shared.catch(() => {
    shared = null;
  }); // a failed load is retried next time
  return shared;
}

/**
 * nn.MultiheadAttention's weights in PyTorch's (out x in) layout -> headwise's (in x out) layout:
 * in_proj_weight (3E, E) holds W_q, W_k, W_v stacked; out_proj.weight is (E, E). PyTorch computes
 * q = x W_q^T + b_q, headwise q = x wq + bq, so wq = W_q^T (likewise k, v, out). E = dModel.
 * Returns new arrays for setWeights(); the layer needs bias: true if biases are given.
 */
export function weightsFromPyTorch(weights, dModel) {
  if (weights === null || typeof weights !== 'object') {
    throw new TypeError('weightsFromPyTorch expects { inProjWeight, outProjWeight, inProjBias?, outProjBias? }');
  }
  const given = optionsArgument('weightsFromPyTorch', weights, [
    'inProjWeight',
    'outProjWeight',
    'inProjBias',
    'outProjBias',
  ]);
  const E = dModel;
  if (typeof E !== 'number' || !Number.isInteger(E) || E < 1) {
    throw new RangeError(`dModel must be a whole number of at least 1, got ${String(E)}`);
  }
  const inW = floatArrayArgument('inProjWeight', given.inProjWeight, 3 * E * E, [3 * E, E]);
  const outW = floatArrayArgument('outProjWeight', given.outProjWeight, E * E, [E, E]);
  const transpose = (source, rowOffset) => {
    const t = new Float32Array(E * E);
    for (let o = 0; o < E; o += 1) for (let i = 0; i < E; i += 1) t[i * E + o] = source[(rowOffset + o) * E + i];
    return t;
  };
  const result = { wq: transpose(inW, 0), wk: transpose(inW, E), wv: transpose(inW, 2 * E), wOut: transpose(outW, 0) };
  if (given.inProjBias !== undefined) {
    const b = floatArrayArgument('inProjBias', given.inProjBias, 3 * E, [3 * E]);
    Object.assign(result, { bq: b.slice(0, E), bk: b.slice(E, 2 * E), bv: b.slice(2 * E) });
  }
  if (given.outProjBias !== undefined) result.bOut = floatArrayArgument('outProjBias', given.outProjBias, E, [E]);
  return result;
}

/** Shorthand: load the shared module and create one layer. */
export async function createAttention(config) {
  return (await loadHeadwise()).createAttention(config);
}

/** Shorthand: load the shared module and a trainer holding a checkpoint. */
export async function loadCheckpoint(source) {
  return (await loadHeadwise()).loadCheckpoint(source);
}

/** Shorthand: load the shared module and create one trainer. */
export async function createTrainer(options) {
  return (await loadHeadwise()).createTrainer(options);
}
