// Types for headwise's public API (web/headwise.js).

import type {
  AttentionOptionFields,
  CheckpointName,
  HeadRole,
  PositionEntry,
  PositionKind,
  TraceStep,
  TrainerOptionFields,
  TrainTask,
} from './build/headwise-schema.js';

// The unions and option fields are generated from the core's tables (scripts/schema-types.mjs).
export type { CheckpointName, HeadRole, PositionEntry, PositionKind, TraceStep, TrainTask };

/**
 * A configuration; every field has a default (the lecture's toy: width 6, 2 heads, 6 tokens).
 * positions 'rope' and 'alibi' run only in the fused forward pass.
 */
export interface AttentionConfig extends AttentionOptionFields {}

/** A position kind as the core defines it (Headwise.positionKinds()). */
export interface PositionKindInfo {
  readonly name: PositionKind;
  /** As a page shows it ("learned absolute", "RoPE"). */
  readonly label: string;
  readonly entersAt: PositionEntry;
  /** The kind has a weight named positions, (tokens, dModel). */
  readonly learnedTable: boolean;
  /** What the kind is, after its label: its paper and rule ('' for none). */
  readonly about: string;
}

export interface ResolvedConfig extends Readonly<Required<Omit<AttentionOptionFields, 'memoryBudget' | 'kvHeads'>>> {
  /** As given; left out: undefined (heads: multi-head). */
  readonly kvHeads: number | undefined;
  /** heads x headDim: the width of the concatenation. */
  readonly concatWidth: number;
  /** Left out: undefined (the module's default budget). */
  readonly memoryBudget: number | undefined;
}

export interface TraceEntry {
  step: TraceStep;
  name: string;
  shape: number[];
}

/**
 * A Float32Array (from any realm, e.g. an iframe) or an array of numbers, with exactly as many
 * values as the shape holds. Every value must be a finite float32; anything else (null, strings,
 * BigInts, Proxies, other typed arrays) is a TypeError or RangeError. Values are copied before any
 * is written. Outputs are guaranteed finite when every input, weight and bias is within
 * +-2^20 (about 1e6); far beyond that, products can overflow float32 to Infinity or NaN.
 */
export type FloatInput = Float32Array | number[];

export interface QKV<T = Float32Array> {
  q: T;
  k: T;
  v: T;
}

export interface Weights {
  /** (dModel, heads*headDim), row-major: q = x @ wq. */
  wq: Float32Array;
  wk: Float32Array;
  wv: Float32Array;
  /** (heads*headDim, dModel). */
  wOut: Float32Array;
  bq?: Float32Array;
  bk?: Float32Array;
  bv?: Float32Array;
  bOut?: Float32Array;
  /** With positions: 'learned', (tokens, dModel): row t is added to x[t]. */
  positions?: Float32Array;
}

export interface Intermediates {
  /** (B, T, dModel) */
  output: Float32Array;
  /** Per head, (B, H, T, hd). */
  q: Float32Array;
  k: Float32Array;
  v: Float32Array;
  /** (B, H, T, T): q k^T / sqrt(hd), masked entries -Infinity. */
  scores: Float32Array;
  /** (B, H, T, T): softmax of the scores, masked entries 0. */
  attention: Float32Array;
  /** Each head's context, (B, H, T, hd). */
  context: Float32Array;
  /** (B, T, H*hd) */
  concat: Float32Array;
  trace: TraceEntry[];
  /** positions 'learned' or 'sinusoidal': the (T, dModel) rows added to x before Wq, Wk, Wv. */
  positions?: Float32Array;
  /** positions 'rope': q and k before their rotation, (B, H, T, hd) (q and k above are rotated). */
  qUnrotated?: Float32Array;
  kUnrotated?: Float32Array;
  /** positions 'alibi': (H, T, T), the bias added to each head's scaled scores. */
  scoreBias?: Float32Array;
  /** The K/V head each query head read (k and v hold kvHeads heads, (B, kvHeads, T, hd)). */
  kvHeadOf: number[];
}

/** Options of forward(); any other key is a TypeError. */
export interface ForwardOptions {
  /** 'fused' (one large product per projection, GPT style) or 'loop' (one head after another). */
  variant?: 'fused' | 'loop';
  /**
   * Also return what a teacher draws; needs (B, H, T, T) memory twice. The attention then runs in
   * the kernel that writes out full score rows instead of the fast kernels, so the outputs may
   * differ from forward(x) in the last bits (within 1e-5 + 1e-5 |ref|, tested at every kernel
   * boundary).
   */
  intermediates?: boolean;
}

/** Memory of the module, for leak checks. */
export interface MemoryStats {
  /** Size of the linear memory in bytes (grows, never shrinks; at most 2 GiB). */
  wasmMemoryBytes: number;
  /** Bytes currently allocated in the module (including a small fixed out-of-memory reserve). */
  heapInUseBytes: number;
  /** Where the module's stack pointer stands between calls: the same on every call unless leaked. */
  stackPointer: number;
}

/** nn.MultiheadAttention's parameters in PyTorch's (out x in) layout, row-major. */
export interface PyTorchWeights {
  /** (3 E, E): W_q, W_k, W_v stacked, each (out x in). */
  inProjWeight: Float32Array | number[];
  /** (E, E), out_proj.weight. */
  outProjWeight: Float32Array | number[];
  /** (3 E), optional. */
  inProjBias?: Float32Array | number[];
  /** (E), out_proj.bias, optional. */
  outProjBias?: Float32Array | number[];
}

/** A configuration or call the core refused; the message says why. */
export class HeadwiseError extends Error {}

export class MultiHeadAttention {
  readonly config: ResolvedConfig;
  readonly shapes: Readonly<
    Record<'input' | 'projected' | 'heads' | 'scores' | 'concat' | 'output' | 'wq' | 'wOut' | 'bq' | 'bOut', number[]>
  >;
  readonly disposed: boolean;
  /** The whole forward pass; with intermediates the attention kernel differs (see ForwardOptions). */
  forward(x: FloatInput, options?: ForwardOptions & { intermediates?: false }): Float32Array;
  forward(x: FloatInput, options: ForwardOptions & { intermediates: true }): Intermediates;
  forwardLoop(x: FloatInput, options?: { intermediates?: false }): Float32Array;
  forwardLoop(x: FloatInput, options: { intermediates: true }): Intermediates;
  /** Step 1: x (B, T, dModel) -> q, k, v (B, T, H*hd). */
  project(x: FloatInput): QKV;
  /** Step 2: (B, T, H*hd) -> view (B, T, H, hd) -> transpose(1, 2) -> (B, H, T, hd). */
  split(projected: QKV<FloatInput>): QKV;
  /** Step 3: per head softmax(q k^T / sqrt(hd) + mask) v -> context (B, H, T, hd). */
  attend(heads: QKV<FloatInput>, options?: { intermediates?: false }): { context: Float32Array };
  attend(
    heads: QKV<FloatInput>,
    options: { intermediates: true },
  ): { context: Float32Array; scores: Float32Array; attention: Float32Array };
  /** Step 4: (B, H, T, hd) -> transpose(1, 2) -> view (B, T, H*hd). */
  merge(context: FloatInput): Float32Array;
  /** Step 5: concat @ W_out (+ b_out) -> (B, T, dModel). */
  outProject(concat: FloatInput): Float32Array;
  getWeights(): Weights;
  setWeights(weights: Partial<Record<keyof Weights, FloatInput>>): void;
  shapeTrace(): TraceEntry[];
  dispose(): void;
  /**
   * Causal decoding: token (batch, dModel), the next position of every sequence; its key and
   * value join the KV cache and its output (batch, dModel) is returned. N steps equal forward()
   * of the N positions with causal: true within 1e-5 + 1e-5 |ref|. The cache holds up to `tokens`
   * positions, counted in the memory budget (a HeadwiseError past it, or when full).
   */
  decode(token: FloatInput): Float32Array;
  readonly cache: CacheState;
  /** Frees the KV cache: the next decode() is position 0. */
  resetCache(): void;
  /** The K/V head each query head reads. */
  kvHeadOf(): number[];
}

/** LatentAttention.forward's options. */
export interface LatentForwardOptions {
  /**
   * 'explicit' (default): every head's keys and values up-projected; 'absorbed': wUk folded into
   * the queries, wUv into wOut.
   */
  form?: 'explicit' | 'absorbed';
  intermediates?: boolean;
}

/**
 * The latent layer's weights, (in, out): wDkv (D, kvLatent), wUk and wUv (kvLatent, H*hd), wq
 * (D, H*hd), wQr (D, H*ropeDim), wKr (D, ropeDim), wOut (H*hd, D).
 */
export interface LatentWeights {
  wDkv: Float32Array;
  wUk: Float32Array;
  wUv: Float32Array;
  wq: Float32Array;
  wQr: Float32Array;
  wKr: Float32Array;
  wOut: Float32Array;
}

/** What LatentAttention.backward returns: the gradients of the loss at the input and the weights. */
export interface LatentBackward {
  /** (batch, tokens, dModel), at the last forward()'s input. */
  dx: Float32Array;
  gradients: LatentWeights;
}

export interface LatentIntermediates {
  output: Float32Array;
  form: 'explicit' | 'absorbed';
  /** (B, T, kvLatent) and (B, T, ropeDim): what decode() caches per position. */
  latent: Float32Array;
  ropeKey: Float32Array;
  /** (B, H, T, T) softmax weights. */
  attention: Float32Array;
}

/**
 * createAttention({ attention: 'mla', kvLatent, ropeDim }): multi-head latent attention
 * (DeepSeek-V2), keys and values through a latent of kvLatent numbers per position and a RoPE key
 * of ropeDim shared by the heads; the core's one latent operator in either of its two forms.
 */
export class LatentAttention {
  readonly config: ResolvedConfig;
  readonly shapes: Readonly<
    Record<keyof LatentWeights | 'input' | 'output' | 'latent' | 'ropeKey' | 'attention', number[]>
  >;
  readonly disposed: boolean;
  forward(x: FloatInput, options?: LatentForwardOptions & { intermediates?: false }): Float32Array;
  forward(x: FloatInput, options: LatentForwardOptions & { intermediates: true }): LatentIntermediates;
  getWeights(): LatentWeights;
  setWeights(weights: Partial<Record<keyof LatentWeights, FloatInput>>): void;
  /** The explicit form's backward at the last forward()'s input: dy is the loss's gradient at the output. */
  backward(dy: FloatInput): LatentBackward;
  /** Causal decoding with the latent cache (kvLatent + ropeDim numbers per position), by the absorbed form. */
  decode(token: FloatInput): Float32Array;
  readonly cache: CacheState;
  resetCache(): void;
  dispose(): void;
}

export class Headwise {
  /** The xsimd architecture of the kernels ("sse4.2", lowered to wasm SIMD128). */
  readonly simdArch: string;
  /** The compiled module this instance runs: `loadHeadwise({ wasmModule })` makes another from it. */
  readonly wasmModule: WebAssembly.Module;
  /** Why the module stopped (after an abort, a trap or an interrupted call), or null while it works. */
  readonly stoppedReason: string | null;
  createAttention(config: AttentionConfig & { attention: 'mla' }): LatentAttention;
  createAttention(config?: AttentionConfig): MultiHeadAttention;
  /** null if valid, otherwise the reason in words. */
  check(config?: AttentionConfig): string | null;
  shapeTrace(config?: AttentionConfig): TraceEntry[];
  /** Deterministic input (batch, tokens, dModel), uniform in [-1, 1). */
  randomInput(config?: AttentionConfig, seed?: number): Float32Array;
  liveLayers(): number;
  /** Linear memory size, bytes currently allocated in the module and the stack pointer. */
  memoryStats(): MemoryStats;
  /** A model's KV cache per token and per sequence, computed by the core without allocating. */
  cacheBytes(config: CacheConfig | string): CacheSizes;
  /** GPT-2 small, LLaMA-2 7B and 70B, Mistral 7B, DeepSeek-V2. */
  cachePresets(): readonly CachePreset[];
}

export interface LoadOptions {
  /** The bytes of headwise-core.wasm, if you already have them. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** headwise-core.wasm compiled, e.g. another instance's `wasmModule` posted to a worker. */
  wasmModule?: WebAssembly.Module;
  /** Where to fetch headwise-core.wasm from; defaults to the file next to the module. */
  wasmUrl?: string | URL;
}

export function loadHeadwise(options?: LoadOptions): Promise<Headwise>;
/**
 * Converts nn.MultiheadAttention's weights (PyTorch's (out x in) layout, E = dModel = heads x
 * headDim) to headwise's (in x out) ones, for setWeights: wq, wk, wv (E, E), wOut (E, E), biases.
 */
export function weightsFromPyTorch(weights: PyTorchWeights, dModel: number): Weights;
export function createAttention(config: AttentionConfig & { attention: 'mla' }): Promise<LatentAttention>;
export function createAttention(config?: AttentionConfig): Promise<MultiHeadAttention>;

// ---- Training: the "latest verb and latest noun" classifier (web/trainer.js) ----

export type TrainVariant = 'verb-noun' | 'verb';

/** A task as the core defines it (Headwise.tasks()). */
export interface TaskInfo {
  readonly name: TrainTask;
  readonly about: string;
  /** Where a head's attention is measured, and the role a head scoring highest there takes. */
  readonly probes: ReadonlyArray<{ readonly name: string; readonly role: HeadRole }>;
}

export interface TrainerOptions extends TrainerOptionFields {
  /** Another name for task, from before the layer library. */
  variant?: TrainVariant;
}

export interface TrainResult {
  loss: number;
  accuracy: number;
  /** Steps taken so far. */
  step: number;
  /** Per loss group of the task (verb-noun: "answer"). */
  groups: Record<
    string,
    {
      loss: number;
      accuracy: number;
      rows: number;
      /** evaluate() of task 'story', a probe's group: accuracy over its candidate set ("he" or "it"). */
      candidateAccuracy?: number;
      candidateRows?: number;
    }
  >;
  /** Steps whose loss or gradients were not finite and so changed nothing. */
  divergedSteps: number;
  /** evaluate() only: per part of an answer (verb-noun: verb, noun), the share of answers with it right. */
  parts?: Record<string, number>;
}

/** One option of the trainer as the core defines it. */
/** A row of the trainer's option table: the same row format as createAttention's. */
export type TrainerOptionRow = OptionRow;

export interface HeadShare {
  /** Mean attention from "?" on the latest verb over the held-out set. */
  verb: number;
  /** Mean attention from "?" on the latest noun over the held-out set. */
  noun: number;
}

export interface Specialisation {
  state: 'specialised' | 'partial' | 'mixed';
  /** Per head, the word it finds (at least the threshold of its attention from "?"), or null. */
  roles: Array<'verb' | 'noun' | null>;
  /** The head that attends most to the latest verb (in the best verb/noun pairing of two heads). */
  verbHead: number;
  /** The other head of that pairing; null for the 'verb' variant. */
  nounHead: number | null;
  verb: number;
  noun: number | null;
}

/** A head finds a word when it puts at least this share (0.8) of its attention from "?" on it. */
export const ROLE_SHARE: number;
/** Below this share (0.5) on both words, for every head, a run is 'mixed'. */
export const MIXED_SHARE: number;
/**
 * The rule behind Trainer.specialisation() and the explorer's Learn verdict, for head shares given
 * by hand: per head { verb, noun } (mean attention from "?" on the latest verb and noun).
 */
export function headRoles(
  shares: ReadonlyArray<HeadShare>,
  options?: { variant?: TrainVariant; threshold?: number },
): Specialisation;

/** JSON-able weights: each tensor a flat row-major array (weights shaped (in, out), y = x W + b). */
export interface TrainerWeights {
  format: 'headwise-trainer-weights/2' | 'headwise-trainer-weights/1';
  config: Readonly<Required<Omit<TrainerOptions, 'variant'>>>;
  step: number;
  [tensor: string]: number[] | string | number | object;
}

/** One head's role scores: mean attention weights over the held-out set (null: nothing counted). */
export interface HeadRoleScores {
  /** From t to t - 1, over the queries t >= 1 the block computes. */
  previousToken: number | null;
  /** From t to position 0, over t >= 1. */
  firstToken: number | null;
  /** From t to t itself, over t >= 1. */
  self: number | null;
  /** Task 'induction': from a second-copy position to the token after the earlier occurrence of its token. */
  induction?: number | null;
  /** Task 'induction': from a second-copy position to the earlier occurrence of its token itself. */
  duplicate?: number | null;
  /** Tasks 'verb-noun' and 'verb': from "?" to the latest verb. */
  verb?: number | null;
  /** Tasks 'verb-noun' and 'verb': from "?" to the latest noun. */
  noun?: number | null;
  /** Task 'story' (docs/story.md): from a probe's query to its antecedent, counted rows only. */
  subjectAntecedent?: number | null;
  objectAntecedent?: number | null;
  possessiveAntecedent?: number | null;
  agreement?: number | null;
  nameCopy?: number | null;
  /** Task 'story': from t to t - 2. */
  twoBack?: number | null;
  role: HeadRole;
}

export const CHECKPOINT_NAMES: ReadonlyArray<CheckpointName>;

/** What scripts/make-checkpoints.sh measured while training a checkpoint (native trainer). */
export interface CheckpointInfo {
  format: 'headwise-checkpoint/1';
  name: string;
  about: string;
  command: string;
  options: Required<Omit<TrainerOptions, 'variant'>>;
  steps: number;
  /** FNV-1a 64 of the weight bytes after `step` steps (reproducibility checks). */
  weightHashes: ReadonlyArray<{ step: number; fnv1a64: string }>;
  /** Held-out evaluation after the last step. */
  evaluation: { loss: number; accuracy: number; groups: Record<string, { loss: number; accuracy: number }> };
  /** Role scores after the last step. */
  roles: ReadonlyArray<ReadonlyArray<HeadRoleScores>>;
  /** The first 20 batch losses (the wasm trainer reproduces them within 1e-6). */
  firstLosses: ReadonlyArray<number>;
  /** Every 50 steps: the mean batch loss since the last point, the held-out evaluation, the role scores (no names). */
  curve: ReadonlyArray<{
    step: number;
    loss: number;
    heldOut: { loss: number; accuracy: number; groups: Record<string, { loss: number; accuracy: number }> };
    roles: ReadonlyArray<ReadonlyArray<Omit<HeadRoleScores, 'role'>>>;
  }>;
  parameterCount: number;
}

/** A checkpoint file's contents: CheckpointInfo plus the weights (float32 little-endian, base64, buffer order). */
export interface Checkpoint extends CheckpointInfo {
  weights: string;
}

export class Trainer {
  readonly options: Readonly<Required<TrainerOptions>>;
  /** Parameter tensors in order, with shapes. */
  readonly parameters: ReadonlyArray<{ name: string; shape: number[] }>;
  /** The core's tensor table: each parameter, its gradient and Adam's moments, one row each. */
  readonly tensorTable: ReadonlyArray<{
    name: string;
    role: 'weight' | 'bias' | 'embedding' | 'gradient' | 'optimizerState';
    shape: number[];
    symbols: string[];
  }>;
  /** The activations a forward pass keeps for its backward. */
  readonly activationTable: ReadonlyArray<{ name: string; role: string; shape: number[]; symbols: string[] }>;
  /** The task as the core defines it. */
  readonly task: {
    readonly name: string;
    readonly words: ReadonlyArray<string>;
    readonly tokens: number;
    readonly readout: 'last' | 'every';
    readonly groups: ReadonlyArray<string>;
    readonly probes: ReadonlyArray<string>;
  };
  readonly classes: number;
  readonly steps: number;
  readonly disposed: boolean;
  /** Multiply-adds of one step. */
  readonly stepMultiplyAdds: number;
  /** The most steps one step(n) call may take (one call's work limit). */
  readonly maxStepsPerCall: number;
  /** n updates (default 1); the mean loss and accuracy of those n batches, each before its update. */
  step(n?: number): TrainResult;
  /** Loss and accuracy on the held-out set; zeroHeads: heads (from 0) zeroed before W_out (ablation). */
  evaluate(options?: EvaluateOptions): TrainResult;
  /** { step, heldOut: evaluate(), roles: roleScores() }: the Learn panel's curve point. */
  measure(): MeasurePoint;
  /** Per head, mean attention from "?" on the latest verb and latest noun (held-out set). */
  headShares(): HeadShare[];
  /**
   * The solution the heads found, from headShares(), by headRoles(): 'specialised' (for
   * 'verb-noun', one head at >= threshold (ROLE_SHARE, 0.8) on the latest verb and another on the
   * latest noun), 'mixed' (no head at 0.5 on either: the stuck 1-head-like solution) or 'partial'.
   */
  specialisation(threshold?: number): Specialisation;
  /**
   * Per block, per head, where each head looks over the held-out set, and the role the core names
   * it by (the one rule: its highest score's role when that score is at least 0.3, else "mixed").
   */
  roleScores(): HeadRoleScores[][];
  /** For a trainer made by loadCheckpoint(): the checkpoint without its weights; otherwise null. */
  readonly checkpoint: CheckpointInfo | null;
  /** Attention from "?" for 11 words (+ "?"), given as a string, words or token ids. */
  attentionFrom(sequence: SequenceInput): { tokens: string[]; heads: Float32Array[] };
  /** Every block's attention on one sequence. */
  attention(sequence: SequenceInput): BlocksAttention;
  /** Held-out sequence `index` as the core drew it: its ids, and each read row's loss group (-1: not counted). */
  heldOutSequence(index?: number): { ids: Int32Array; groups: Int32Array };
  /** Token ids of one sequence of the task. */
  sequenceIds(sequence: SequenceInput): number[];
  getWeights(): TrainerWeights;
  /** Replaces any of the parameters; Adam's moments and the step count are kept. */
  setWeights(weights: Partial<TrainerWeights> | Record<string, ArrayLike<number>>): void;
  // ---- Data-parallel pieces (what pool.createTrainer() splits a step into) ----
  /** Numbers in the parameter buffer (and in a gradient). */
  readonly parameterCount: number;
  /** The batch generator's 32-bit state: trainers of the same options at the same state draw the same batch. */
  batchState: number;
  /**
   * Draws the next batch (as step() would) and returns the gradient of its rows [from, to) (default
   * the whole batch) of the batch's mean loss: the slices' gradients sum to the batch's. Weights unchanged.
   */
  sliceGradients(from?: number, to?: number): SliceGradients;
  /** One Adam step with `gradient` as the batch's gradient (non-finite: nothing changes, counted as diverged). */
  applyGradients(gradient: Float32Array, loss: number): { step: number; diverged: boolean; divergedSteps: number };
  /** Every parameter as one Float32Array (a copy), in buffer order. */
  parameterBuffer(): Float32Array;
  /** Replaces every parameter from one Float32Array as parameterBuffer() gives. */
  setParameterBuffer(buffer: Float32Array | number[]): void;
  dispose(): void;
}

/** What Trainer.sliceGradients returns: the gradient and the slice's own sums. */
export interface SliceGradients {
  gradient: Float32Array;
  lossSum: number;
  counted: number;
  correct: number;
  groups: Record<string, { lossSum: number; correct: number; rows: number }>;
  /** The batch generator's state after the draw. */
  batchState: number;
}

/** Parameters within +-TRAINABLE_RANGE (2^10) train with finite steps; a checkpoint's weights must lie within it. */
export const TRAINABLE_RANGE: number;
/** The task's 21 tokens in id order: nouns 0-7, verbs 8-15, fillers 16-19, "?" = 20. */
export const TRAIN_VOCABULARY: ReadonlyArray<string>;
/** Where each kind of word starts in TRAIN_VOCABULARY: nouns 0-7, verbs 8-15, fillers 16-19 ("?" is 20). */
export const NOUN_BASE: 0;
export const VERB_BASE: 8;
export const FILLER_BASE: 16;

/** A row of one of the core's option tables (createAttention's and the trainer's share the format). */
export interface OptionRow {
  name: string;
  /**
   * 'size': judged by the core against its limits; 'integer': a whole number in [min, max];
   * 'number': a finite number in (min, max].
   */
  type: 'size' | 'integer' | 'number' | 'choice' | 'boolean';
  min?: number;
  /** null: no upper bound. */
  max?: number | null;
  /** 'byte' for memory budgets, '' otherwise. */
  unit?: string;
  choices?: ReadonlyArray<string>;
  default: number | string | boolean;
  about: string;
}
export type AttentionOptionRow = OptionRow;

export interface TensorRow {
  readonly id: number;
  readonly name: string;
  readonly role: string;
  readonly allocated: string;
  /** Dimension symbols: B, T, D, H, hd, C (heads x hd), S (scratch). */
  readonly shape: ReadonlyArray<string>;
  readonly stream: number;
  readonly fanIn: string | null;
}

export interface TensorTable {
  readonly tensors: ReadonlyArray<TensorRow>;
  readonly steps: ReadonlyArray<{ readonly id: number; readonly name: string }>;
}

export interface Headwise {
  /** createAttention's options as the core defines them (positions: the core's position kinds). */
  attentionOptions(): ReadonlyArray<AttentionOptionRow>;
  /** The core's tensor table: every tensor's row (shape in dimension symbols) and the steps. */
  tensorTable(): TensorTable;
  /** The core's position kinds with their labels and where each enters. */
  positionKinds(): ReadonlyArray<PositionKindInfo>;
  /** The core's tasks for createTrainer, with their probes and the role each names. */
  tasks(): ReadonlyArray<TaskInfo>;
  /** Every role a trained head can be given, "mixed" last. */
  headRoleNames(): ReadonlyArray<HeadRole>;
  createTrainer(options?: TrainerOptions): Trainer;
  /**
   * A trainer holding a shipped checkpoint's weights (read from web/checkpoints/) or a checkpoint
   * object's; trainer.checkpoint keeps the curve, evaluation and role scores measured at make time.
   */
  loadCheckpoint(source: CheckpointName | Checkpoint): Promise<Trainer>;
  /** The trainer's options as the core defines them (names, types, ranges, defaults). */
  trainerOptions(): ReadonlyArray<TrainerOptionRow>;
  liveTrainers(): number;
}

export function createTrainer(options?: TrainerOptions): Promise<Trainer>;
export function loadCheckpoint(source: CheckpointName | Checkpoint): Promise<Trainer>;

// ---- A pool of module instances in Workers (web/pool/) ----

export interface PoolOptions {
  /** Module instances (workers); default the machine's cores, at most 8. 1 = no workers. */
  size?: number;
  /** How long a worker may take to start or to answer (plus time for a forward's work). Default 30000. */
  timeoutMs?: number;
  /** Where the worker file (headwise/web/pool/worker.js) is served from, if not next to the module. */
  workerUrl?: string | URL;
  /** The calling thread's module; default loadHeadwise(). */
  module?: Headwise;
}

export interface PoolWorkerStats {
  name: string;
  liveLayers: number;
  liveTrainers: number;
  wasmMemoryBytes: number;
  heapInUseBytes: number;
}

/** A layer of a pool: weights as MultiHeadAttention, an asynchronous forward split by heads. */
export interface PooledAttention {
  readonly config: ResolvedConfig;
  readonly shapes: MultiHeadAttention['shapes'];
  readonly disposed: boolean;
  /** Whether forward(x) with parallel 'auto' splits across the pool right now. */
  readonly willSplit: boolean;
  /**
   * parallel: 'auto' (default; split when the pool has workers and the shape is large enough),
   * 'always' (split whenever there are workers), 'never' (the calling thread's instance).
   * Equal to MultiHeadAttention.forward within 1e-5 + 1e-5 |ref| (the parts' sums round differently).
   */
  forward(x: FloatInput, options?: { parallel?: 'auto' | 'always' | 'never' }): Promise<Float32Array>;
  getWeights(): Weights;
  setWeights(weights: Partial<Record<keyof Weights, FloatInput>>): void;
  dispose(): void;
}

/** A pool of module instances in Workers (createPool), or a lease of the shared one (sharedPool). */
export interface Pool {
  /** Instances doing forwards: the workers, or 1. */
  readonly size: number;
  /** Why the pool runs on the calling thread alone although more was asked for, or null. */
  readonly fallbackReason: string | null;
  /** Workers replaced after failing. */
  readonly replacements: number;
  readonly disposed: boolean;
  /** The calling thread's module. */
  readonly module: Headwise;
  createAttention(config?: AttentionConfig): PooledAttention;
  /**
   * A trainer whose steps are split across the workers by batch rows (workers: how many share a
   * step, default all). The calling thread keeps the weights and takes the Adam step; the slices'
   * gradients are summed in worker order (bitwise repeatable for a seed and a worker count; with one
   * instance Trainer.step() bit for bit).
   */
  createTrainer(options?: TrainerOptions, split?: { workers?: number }): PooledTrainer;
  workerStats(): Promise<PoolWorkerStats[]>;
  /** Frees every layer and stops the workers (a lease: its own layers; the last lease stops the workers). */
  dispose(): void;
}

/** A sequence of the task: a string, its words or their token ids. */
export type SequenceInput = string | ReadonlyArray<string | number>;
/** evaluate()'s options: heads (from 0) zeroed before W_out (ablation). */
export interface EvaluateOptions {
  zeroHeads?: ReadonlyArray<{ layer: number; head: number }>;
}
/** measure()'s point: { step, heldOut: evaluate(), roles: roleScores() }. */
export interface MeasurePoint {
  step: number;
  heldOut: TrainResult;
  roles: HeadRoleScores[][];
}
/** Every block's attention on one sequence. */
export interface BlocksAttention {
  tokens: string[];
  layers: Array<{ queries: number; heads: Float32Array[] }>;
}
/**
 * The trainer contract off the calling thread (web/trainer-contract.js holds all three trainers to
 * the same members and checks): Trainer's members, the work answered with promises.
 */
export interface TrainerOffThread {
  readonly options: Readonly<Required<TrainerOptions>>;
  readonly task: Trainer['task'];
  readonly parameters: Trainer['parameters'];
  readonly steps: number;
  readonly disposed: boolean;
  readonly stepMultiplyAdds: number;
  /** The most steps one step(n) may ask for (the Trainer's; a worker trainer's on the page: one call's). */
  readonly maxStepsPerCall: number;
  sequenceIds(sequence: SequenceInput): number[];
  /** n updates; as Trainer.step(n). */
  step(n?: number): Promise<TrainResult>;
  evaluate(options?: EvaluateOptions): Promise<TrainResult>;
  measure(): Promise<MeasurePoint>;
  attention(sequence: SequenceInput): Promise<BlocksAttention>;
  dispose(): void;
}

/** A trainer of a pool (pool.createTrainer): its steps split across the workers. */
export interface PooledTrainer extends TrainerOffThread {
  readonly id: number;
  /** The calling thread's Trainer: the weights, Adam's moments and the batch stream. */
  readonly trainer: Trainer;
  /** Instances sharing each step now (1: the calling thread alone). */
  readonly instances: number;
  /** Why it steps on the calling thread although workers were asked for, or null. */
  readonly fallbackReason: string | null;
  readonly divergedSteps: number;
  /** (Each step split across the workers; evaluate, measure and attention computed in a worker.) */
  getWeights(): TrainerWeights;
  setWeights(weights: Partial<TrainerWeights> | Record<string, ArrayLike<number>>): void;
}

export function createPool(options?: PoolOptions): Promise<Pool>;
/** A lease of the page's (or process's) one pool, started with the first caller's options. */
export function sharedPool(options?: PoolOptions): Promise<Pool>;

/** The worker kinds worth trying here, best first ('node', 'module', 'blob'; [] where there are no Workers). */
export function workerKinds(options?: { workerUrl?: string | URL }): Array<'node' | 'module' | 'blob'>;
/** What a trainer's worker reports at its creation (WorkerTrainer.info). */
export interface WorkerTrainerInfo {
  stepMultiplyAdds: number;
  layers: number;
  heads: number;
  tokens: number;
  vocabulary: number;
  evalSize: number;
  batch: number;
  /** The worker's Trainer's maxStepsPerCall (one call's limit): the bound where no worker started. */
  maxStepsPerCall: number;
  options: Readonly<Required<TrainerOptions>>;
  task: Trainer['task'];
  parameters: Trainer['parameters'];
}
/**
 * A trainer off the calling thread (createWorkerTrainer), in one of the page's trainer workers:
 * at most workerSlotLimit() of them run at once, and trainers share them past that bound. Its
 * members and checks are every trainer's (Trainer, PooledTrainer), answered with promises.
 */
export interface WorkerTrainer extends TrainerOffThread {}
export class WorkerTrainer {
  /** 'worker', or 'page' where no worker started (then `why` says why and each step blocks the page). */
  readonly where: 'worker' | 'page';
  readonly why: string | null;
  /** Why its worker broke (it died, missed a deadline or sent a wrong reply), or null. */
  readonly failure: string | null;
  /** How many other trainers share its worker now. */
  readonly sharing: number;
  readonly info: WorkerTrainerInfo;
  getWeights(): Promise<TrainerWeights>;
  setWeights(weights: Partial<TrainerWeights> | Record<string, ArrayLike<number>>): Promise<void>;
}
/**
 * A trainer (createTrainer options) off the calling thread, so it never waits for a step. timeoutMs
 * is the fixed part of every request's deadline (default 15000); each request may take that plus
 * its work at a slow machine's rate (a worker gets one request at a time, so nothing waits before it).
 */
export function createWorkerTrainer(
  module: Headwise,
  options?: TrainerOptions,
  settings?: {
    kinds?: ReadonlyArray<'node' | 'module' | 'blob'>;
    workerUrl?: string | URL;
    timeoutMs?: number;
    /** Abandons the creation at any point: a wait for a worker ends, the creation is dropped or freed. */
    signal?: AbortSignal;
  },
): Promise<WorkerTrainer>;
/**
 * Layers timed off the calling thread, in one of the page's trainer workers (shared with the worker
 * trainers, taking turns): each call's milliseconds on the worker's own clock, so the calling thread
 * does none of the work it times (the explorer's "Time generation"). open() refuses in words where
 * no worker starts.
 */
export class WorkerTimer {
  private constructor();
  static open(
    module: Headwise,
    settings?: {
      kinds?: ReadonlyArray<'node' | 'module' | 'blob'>;
      workerUrl?: string | URL;
      /** The fixed part of every request's deadline (default 15000); the work's part is added. */
      timeoutMs?: number;
      signal?: AbortSignal;
    },
  ): Promise<WorkerTimer>;
  readonly disposed: boolean;
  /** Why its worker broke (died, missed a deadline, sent a wrong reply), or null. */
  readonly failure: string | null;
  /** A layer (createAttention's config, checked in the worker); resolves with its id. */
  create(config: AttentionConfig): Promise<number>;
  /** x (positions x batch x dModel, transferred) decoded a position a call into the layer's cache. */
  decodeTime(
    layer: number,
    x: Float32Array,
    work: { positions: number; multiplyAdds: number },
  ): Promise<{ length: number; ms: number[] }>;
  /** forward(x) `repeats` times (x transferred): each call's milliseconds. */
  forwardTime(
    layer: number,
    x: Float32Array,
    work: { repeats: number; multiplyAdds: number },
  ): Promise<{ ms: number[] }>;
  disposeLayer(layer: number): Promise<void>;
  dispose(): void;
}
/** How many trainer workers may run at once here: the shared pool's default size, at least 2. */
export function workerSlotLimit(): Promise<number>;
/**
 * The trainer workers now: the bound, workers running, trainers on them, trainers waiting for a
 * worker of their kind, workers started ever, the most at once.
 */
export function workerSlotStats(): Promise<{
  limit: number;
  workers: number;
  trainers: number;
  waiting: number;
  started: number;
  peak: number;
}>;

// ---- Sharing keys and values: grouped-query and multi-query attention, the KV cache (web/kv.js) ----

/** The KV cache of a layer: positions held, the most it holds (tokens), K and V bytes. */
export interface CacheState {
  readonly length: number;
  readonly capacity: number;
  readonly bytes: number;
}

/** A model's attention shape for cacheBytes; every field has a default. */
export interface CacheConfig {
  layers?: number;
  heads?: number;
  /** Default: heads. */
  kvHeads?: number;
  headDim?: number;
  /** 'mla': the cache holds a latent of kvLatent numbers and a RoPE key of ropeDim. */
  attention?: 'mha' | 'mla';
  kvLatent?: number;
  ropeDim?: number;
  /** Positions of one sequence (bytesPerSequence). Default 1. */
  tokens?: number;
  /** Default 2 (fp16). */
  bytesPerNumber?: number;
}

export interface CachePreset {
  readonly name: string;
  readonly label: string;
  /** The paper or model card the shape is taken from (docs/kv.md). */
  readonly source: string;
  readonly layers: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly kvLatent: number;
  readonly ropeDim: number;
  readonly tokens: number;
  readonly bytesPerNumber: number;
}

export interface CacheSizes {
  readonly numbersPerTokenPerLayer: number;
  /** The same model with every head keeping its own K and V. */
  readonly mhaNumbersPerTokenPerLayer: number;
  readonly bytesPerToken: number;
  readonly mhaBytesPerToken: number;
  readonly bytesPerSequence: number;
}
