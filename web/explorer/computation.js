// The one owner of the page's computation. For a configuration it computes, once, every number the
// panels draw: the tokens and their vectors, the fused forward pass with intermediates, the loop
// version, the five steps one call each, W_out, the designed-weights runs of "why heads" and the
// two sentences of "word order". Panels are views of its result: they never call the module.
// Each part is remembered under the inputs it depends on, so a change that does not touch a part
// (a step, a slide message, the panel shown) costs no module call; the main layer lives until the
// configuration changes.
import { sentenceBatch, tokenize } from './tokenizer.js';
import { embedTokens, tokenKey } from './token-embeddings.js';
import { designTeachingWeights } from './panels/why/teaching-weights.js';
import { DEFAULT_SENTENCE } from './presets.js';
import { runHeadsSweep } from './panels/loop/sweep.js';
import { LearnSession } from './panels/learn/learn-session.js';
import { SAMPLE_WORDS } from './panels/learn/learn-verdict.js';
import { INDUCTION_CHECKPOINTS, inductionSequence } from './panels/learn/induction-data.js';
import { InductionLive } from './panels/learn/induction-live.js';
import { pageBudgetProblem, PAGE_MAX_WIDTH } from './compute-budget.js';
import {
  BESIDE_CHECKPOINT,
  checkpointFor,
  headDifference,
  latestVerbNoun,
  readSentence,
  TRAINED_CHECKPOINTS,
} from './panels/heads/trained-heads.js';

/** What each panel views; the owner computes only the parts of the panels shown. */
export const PANEL_PARTS = Object.freeze({
  input: [],
  why: ['why', 'learned'],
  steps: ['fused', 'steps', 'wOut'],
  heads: ['whole', 'wOut', 'learned', 'trained'],
  loop: ['fused', 'loop'],
  order: ['order'],
  learn: [],
});

export const WHY_WIDTH = 6;
// Held-out sequences the heads panel's untrained heads' roles are measured on (a few milliseconds).
const UNTRAINED_EVAL = 256;
const WHY_TARGETS = { one: [['ball', 'catch']], two: [['ball'], ['catch']] };
export const ORDER_SENTENCES = Object.freeze(['All dogs are animals', 'All animals are dogs']);
// Word order runs at a width and an input scale at which the four words' outputs clearly differ
// from one another (at the toy width 6 with vectors in +-1 the attention is nearly uniform and
// every output is nearly the same average: 1.4% of the outputs' scale apart; here about 25%).
export const ORDER_WIDTH = 16;
export const ORDER_HEADS = 2;
export const ORDER_INPUT_SCALE = 4;
// Positions shown beyond the sentence: PE(i) . PE(j) against |i - j| over this many, and the
// shift of RoPE's offset check.
export const ORDER_TABLE_TOKENS = 24;
export const ORDER_ROPE_SHIFT = 5;

// A layer this wide takes tens of milliseconds to create and run (one call each, which cannot be
// split), so the page says so and lets the notice paint first. Wider than the page computes
// (compute-budget.js) there is no layer to wait for: the refusal comes at once, without a notice.
export const SLOW_LAYER_WIDTH = 512;
export function slowLayerNotice(dModel) {
  const slow = Number.isInteger(dModel) && dModel >= SLOW_LAYER_WIDTH && dModel <= PAGE_MAX_WIDTH;
  return slow ? `Computing a layer of width ${dModel}...` : null;
}

export const maxAbsDiff = (a, b) => {
  let m = 0;
  for (let i = 0; i < a.length; i += 1) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

// Freezes the plain objects of a result (typed arrays cannot be frozen; views only read them).
function frozen(value) {
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

// Word order's own controls set its mask and position kind; the seed is the page's.
function orderSpec(o, { causal, positions }) {
  return { seed: o.seed, causal, positions };
}

// A part that fails says why in its own result; the other parts are unaffected.
function attempt(run) {
  try {
    return run();
  } catch (error) {
    return { error: error.message };
  }
}

export class ExplorerComputation {
  #hw;
  #layer = null;
  #layerKey = '';
  #memo = new Map(); // part -> { key, value }
  #learn = null; // the Learn panel's run
  #induction = null; // the "1 layer vs 2 layers" checkpoints' data, a promise
  #inductionLive = null; // its live replay
  #trained = null; // the heads panel's shipped verb-and-noun models, a promise
  #trainedModels = null; // the same, once loaded: { name -> model }
  #trainedLayers = new Map(); // name -> the attention layer their maps are computed in

  constructor(hw) {
    this.#hw = hw;
  }

  /**
   * @param o the element's options
   * @param {{ parts?: Iterable<string>, order?: { causal: boolean, positions: string } }} want
   * @returns a frozen result: { status, message?, sentences?, tokens?, config?, trace?, x?, fused?,
   *   whole?, loop?, steps?, wOut?, why?, order?, learned? }; status is 'sentence', 'invalid',
   *   'shapes-only' or 'ok'. whole: { tokens, config, fused, joined }: the batch's sentences read
   *   as one sequence (joined), or sentence 1 when there is one or they would be too long together.
   *   sentences: the batch, one token list per sentence (config.batch of them, config.tokens each);
   *   tokens: the first sentence's, which label the figures that draw one sentence.
   */
  compute(o, { parts = [], order = { causal: false, positions: 'none' } } = {}) {
    const wanted = new Set(parts);
    const inputs = [o.sentence, o.maxTokens, o.dModel, o.heads, o.causal, o.seed];
    const base = this.#remember('base', inputs, () => this.#base(o));
    const result = { ...base };
    if (base.status === 'ok') {
      const key = base.key;
      const needFused = ['fused', 'loop', 'steps'].some((p) => wanted.has(p));
      if (needFused) result.fused = this.#remember('fused', key, () => this.#fused(base));
      const { fused } = result;
      const part = (name, run) => this.#remember(name, key, () => attempt(run));
      if (wanted.has('whole')) {
        // One sentence is already the whole text; otherwise sentence 1 only when joined is too long.
        const joined = base.config.batch > 1 ? this.#remember('whole', key, () => this.#whole(base)) : null;
        const first = joined ? null : this.#remember('fused', key, () => this.#fused(base));
        result.whole = joined ?? { tokens: base.tokens, config: base.config, fused: first, joined: false };
      }
      if (wanted.has('loop')) result.loop = part('loop', () => this.#loop(base, fused));
      if (wanted.has('steps')) result.steps = part('steps', () => this.#steps(base, fused));
      if (wanted.has('wOut')) {
        result.wOut = this.#remember('wOut', base.config, () => this.#layerFor(base.config).getWeights().wOut);
      }
    }
    if (wanted.has('why')) result.why = this.#remember('why', [o.seed], () => attempt(() => this.#why(o.seed)));
    if (wanted.has('learned')) result.learned = this.#learned();
    if (wanted.has('trained')) {
      const models = this.#trainedModels;
      result.trained = models
        ? this.#remember('trained', [o.sentence, checkpointFor(o.heads)], () => attempt(() => this.#trainedOn(o)))
        : null;
    }
    if (wanted.has('order')) {
      const spec = orderSpec(o, order);
      result.order = this.#remember('order', spec, () => attempt(() => this.#order(spec)));
    }
    delete result.key;
    return Object.freeze(result);
  }

  /**
   * Times loop against fused for many head counts (a measurement the reader starts, not a part of
   * the result): through forward() and forward({ variant: 'loop' }), the fast kernels.
   */
  measureHeadsSweep(options) {
    return runHeadsSweep(this.#hw, options);
  }

  /** A new Learn run (1 and 2 heads side by side, or 1, 2 and 4); the previous one is freed. */
  learnSession(config) {
    this.#learn?.dispose();
    this.#learn = null;
    this.#learn = new LearnSession(this.#hw, config);
    return this.#learn;
  }

  /**
   * The Learn panel's "1 layer vs 2 layers" from the shipped checkpoints, loaded once: { sequence
   * (the first held-out sequence, its layout read by inductionSequence), models: [{ name, layers, options, steps,
   * curve, roles, evaluation, maps }] }, maps per layer and head on the sequence (T x T). source(name)
   * is what loadCheckpoint takes: the name, or (where files cannot be fetched) the checkpoint object.
   */
  induction(source = (name) => name) {
    this.#induction ??= this.#loadInduction(source).catch((error) => {
      this.#induction = null;
      throw error;
    });
    return this.#induction;
  }

  async #loadInduction(source) {
    const trainers = [];
    try {
      for (const name of INDUCTION_CHECKPOINTS) trainers.push(await this.#hw.loadCheckpoint(await source(name)));
      const shown = trainers.at(-1);
      const sequence = inductionSequence(shown.heldOutSequence(0), shown.task.groups);
      const models = trainers.map((t) => {
        const { options, steps, curve, roles, evaluation } = t.checkpoint;
        const name = `${options.layers} layer${options.layers === 1 ? '' : 's'}`;
        const maps = t.attention(sequence.ids).layers.map((layer) => layer.heads);
        return { name, layers: options.layers, options, steps, curve, roles, evaluation, maps };
      });
      return { sequence, models };
    } finally {
      for (const t of trainers) t.dispose();
    }
  }

  /**
   * The heads panel's trained models (TRAINED_CHECKPOINTS: 1 head and 2 heads on the verb-and-noun
   * task), loaded once; after that compute() gives the part 'trained'. source(name) is what
   * loadCheckpoint takes. Each model keeps its trained weights and those it had before training
   * (a trainer made from the checkpoint's options and seed, step 0), and the core's role scores of
   * both (the checkpoint's, measured when it was saved, and the untrained trainer's).
   */
  trainedModels(source = (name) => name) {
    this.#trained ??= this.#loadTrained(source).catch((error) => {
      this.#trained = null;
      throw error;
    });
    return this.#trained;
  }

  async #loadTrained(source) {
    const models = {};
    for (const name of new Set(Object.values(TRAINED_CHECKPOINTS))) {
      const trainer = await this.#hw.loadCheckpoint(await source(name));
      let fresh = null;
      try {
        const { options, steps, roles, evaluation, curve, about } = trainer.checkpoint;
        // The same model before training: its options and seed give its initial weights; its roles
        // are measured on UNTRAINED_EVAL held-out sequences (2048 would hold the page for a second).
        fresh = this.#hw.createTrainer({ ...options, evalSize: UNTRAINED_EVAL });
        models[name] = {
          name,
          about,
          options,
          steps,
          evaluation,
          curve,
          words: trainer.task.words,
          tokens: trainer.task.tokens,
          trained: { weights: trainer.getWeights(), roles: roles.at(-1) },
          random: { weights: fresh.getWeights(), roles: fresh.roleScores().at(-1) },
        };
      } finally {
        trainer.dispose();
        fresh?.dispose();
      }
    }
    this.#memo.delete('trained');
    this.#trainedModels = models;
    return models;
  }

  // The sentence through a trained model's attention layer, with its trained weights and with its
  // weights before training: the model's own token vectors (its embedding table) in an attention
  // layer of its shape (learned positions, biases) given its block's weights, so every row of the
  // T x T maps is drawn (the model itself computes only the row from "?"; tests/js check that the
  // rows agree). Beside a configuration with no trained model, the 2-head model.
  #trainedOn(o) {
    const name = checkpointFor(o.heads) ?? BESIDE_CHECKPOINT;
    const m = this.#trainedModels[name];
    const T = m.tokens;
    const reading = readSentence(tokenize(o.sentence.replace(/\s+/g, ' '), 4096).tokens, m.words, T);
    const ids = reading.words.map((w) => m.words.indexOf(w));
    const { heads, dModel, causal, bias, positions } = m.options;
    const headDim = m.options.headDim || dModel / heads;
    let layer = this.#trainedLayers.get(name);
    if (!layer) {
      layer = this.#hw.createAttention({ batch: 1, tokens: T, dModel, heads, headDim, causal, bias, positions });
      this.#trainedLayers.set(name, layer);
    }
    const at = latestVerbNoun(ids);
    const run = ({ weights, roles }) => {
      const b = (key) => weights[`blocks.0.${key}`];
      const set = { wq: b('wq'), wk: b('wk'), wv: b('wv'), wOut: b('wOut') };
      if (bias) Object.assign(set, { bq: b('bq'), bk: b('bk'), bv: b('bv'), bOut: b('bOut') });
      if (positions === 'learned') set.positions = weights.positionEmbedding;
      layer.setWeights(set);
      const x = new Float32Array(T * dModel);
      ids.forEach((id, t) => x.set(weights.tokenEmbedding.slice(id * dModel, (id + 1) * dModel), t * dModel));
      const { trace, ...fused } = layer.forward(x, { intermediates: true });
      void trace;
      const maps = Array.from({ length: heads }, (_, h) => fused.attention.slice(h * T * T, (h + 1) * T * T));
      return { fused, wOut: Float32Array.from(set.wOut), roles, difference: headDifference(maps, T, at) };
    };
    return {
      name,
      about: m.about,
      matches: checkpointFor(o.heads) !== null,
      options: m.options,
      heads,
      dModel,
      headDim,
      causal,
      steps: m.steps,
      accuracy: m.evaluation.accuracy,
      curve: m.curve,
      words: reading.words,
      ids,
      at,
      reading,
      trained: run(m.trained),
      random: run(m.random),
    };
  }

  /** A new live replay of the induction models (induction-live.js); the previous one is stopped. */
  inductionLive(config) {
    this.#inductionLive?.dispose();
    this.#inductionLive = new InductionLive(this.#hw, config);
    return this.#inductionLive;
  }

  /** Frees the layer in the module and forgets every result. */
  dispose() {
    this.#inductionLive?.dispose();
    this.#inductionLive = null;
    this.#induction = null;
    this.#learn?.dispose();
    this.#learn = null;
    this.#layer?.dispose();
    this.#layer = null;
    this.#layerKey = '';
    for (const layer of this.#trainedLayers.values()) layer.dispose();
    this.#trainedLayers.clear();
    this.#trained = null;
    this.#trainedModels = null;
    this.#memo.clear();
  }

  // What the Learn run has trained, once it is done, for the panels that show it beside their own
  // maps; null before. The session in this owner is the one place the trained state lives.
  #learned() {
    const s = this.#learn;
    if (!s?.verdict) return null;
    const key = [s.id, s.step];
    return this.#remember('learned', key, () => ({
      step: s.step,
      config: s.config,
      words: [...SAMPLE_WORDS],
      verdict: s.verdict.text,
      runs: s.runs.map((r) => ({
        heads: r.heads,
        accuracy: r.result.accuracy,
        trained: r.maps.map((m) => [...m]),
        untrained: r.untrainedMaps.map((m) => [...m]),
      })),
    }));
  }

  #remember(part, inputs, run) {
    const key = JSON.stringify(inputs);
    const hit = this.#memo.get(part);
    if (hit && hit.key === key) return hit.value;
    const value = frozen(run());
    this.#memo.set(part, { key, value });
    return value;
  }

  // Tokens, configuration, validity (checked once, by the module) and the input vectors: one
  // sentence per line of the text, the batch of the layer.
  #base(o) {
    const parsed = sentenceBatch(o.sentence, o.maxTokens);
    if (parsed.error) return { status: 'sentence', message: parsed.error };
    const { sentences } = parsed;
    const tokens = sentences[0];
    const { dModel, heads, causal, seed } = o;
    const config = { batch: sentences.length, tokens: tokens.length, dModel, heads, causal, seed };
    // The module refuses what it cannot hold; the page also refuses what would freeze it.
    const problem = this.#hw.check(config) ?? pageBudgetProblem(config);
    if (problem !== null) {
      let trace = null;
      try {
        trace = this.#hw.shapeTrace(config);
      } catch {
        /* the shapes themselves are invalid */
      }
      const headDim = config.dModel / config.heads;
      if (trace) return { status: 'shapes-only', message: problem, sentences, tokens, config, trace, headDim };
      return { status: 'invalid', message: problem, sentences, tokens, config };
    }
    const layer = this.#layerFor(config);
    const x = embedTokens(this.#hw, sentences.flat(), o.dModel);
    const key = JSON.stringify([config, sentences]);
    const { headDim } = layer.config;
    return { status: 'ok', sentences, tokens, config, headDim, trace: layer.shapeTrace(), x, key };
  }

  #layerFor(config) {
    const key = JSON.stringify(config);
    if (this.#layer && this.#layerKey === key) return this.#layer;
    this.#layer?.dispose();
    this.#layer = null;
    this.#layer = this.#hw.createAttention(config);
    this.#layerKey = key;
    return this.#layer;
  }

  // The batch's sentences read as one sequence (the lecture's sentence is a batch of two lines, and
  // its last "it" must be able to look at "ball"): the same weights (they do not depend on the
  // batch or the length), a layer of its own made and freed here. Null when the page would not
  // compute a layer that long.
  #whole(base) {
    const tokens = base.sentences.flat();
    const config = { ...base.config, batch: 1, tokens: tokens.length };
    if (this.#hw.check(config) ?? pageBudgetProblem(config)) return null;
    const layer = this.#hw.createAttention(config);
    try {
      const { trace, ...fused } = layer.forward(embedTokens(this.#hw, tokens, config.dModel), { intermediates: true });
      void trace;
      return { tokens, config, fused, joined: true };
    } finally {
      layer.dispose();
    }
  }

  #fused(base) {
    const { trace, ...fused } = this.#layerFor(base.config).forward(base.x, { intermediates: true });
    void trace; // the base already has it
    return fused;
  }

  // The loop keeps the intermediates too: the layer's (B, H, T, T) buffers stay allocated between
  // renders instead of being freed by one call and allocated again by the next.
  #loop(base, fused) {
    const { output } = this.#layerFor(base.config).forward(base.x, { variant: 'loop', intermediates: true });
    return { output, maxDiff: maxAbsDiff(output, fused.output) };
  }

  // The five steps through the public API, one call each, checked against forward().
  #steps(base, fused) {
    const layer = this.#layerFor(base.config);
    const projected = layer.project(base.x);
    const split = layer.split(projected);
    const attended = layer.attend(split, { intermediates: true });
    const concat = layer.merge(attended.context);
    const output = layer.outProject(concat);
    return { projected, split, attended, concat, output, maxDiff: maxAbsDiff(output, fused.output) };
  }

  // Designed query and key weights at the lecture's width: one head against two.
  #why(seed) {
    const { tokens } = tokenize(DEFAULT_SENTENCE);
    const T = tokens.length;
    const x = embedTokens(this.#hw, tokens, WHY_WIDTH);
    const runs = {};
    for (const [name, targets] of Object.entries(WHY_TARGETS)) {
      const designed = designTeachingWeights(this.#hw, tokens, 'it', WHY_WIDTH, targets);
      if (!designed) return { error: 'The teaching weights could not be designed for these token vectors.' };
      const config = { batch: 1, tokens: T, dModel: WHY_WIDTH, heads: targets.length, causal: true, seed };
      const layer = this.#hw.createAttention(config);
      try {
        layer.setWeights({ wq: designed.wq, wk: designed.wk });
        const r = layer.forward(x, { intermediates: true });
        const lastRow = targets.map((_, h) => r.attention.slice((h * T + T - 1) * T, (h * T + T) * T));
        runs[name] = {
          heads: targets.length,
          attention: r.attention,
          scores: r.scores,
          lastRow,
          wq: designed.wq,
          wk: designed.wk,
        };
      } finally {
        layer.dispose();
      }
    }
    return { tokens, seed, runs };
  }

  /** The position kinds the core offers, in its order (its option table). */
  positionKinds() {
    return this.#hw.attentionOptions().find((row) => row.name === 'positions').choices;
  }

  // The same words in two orders, through one layer; row i of each comparison is word a[i]. With
  // the mask and positions off, the claim's numbers; for each kind, what the core computed where
  // it enters (the rows added to x, RoPE's scores at two offsets, ALiBi's bias).
  #order({ seed, causal, positions }) {
    const [a, b] = ORDER_SENTENCES.map((s) => tokenize(s).tokens);
    const T = a.length;
    const dModel = ORDER_WIDTH;
    const heads = ORDER_HEADS;
    const input = (tokens) => embedTokens(this.#hw, tokens, dModel).map((v) => v * ORDER_INPUT_SCALE);
    const config = { batch: 1, tokens: T, dModel, heads, causal, seed, positions };
    const pair = (c) =>
      this.#withLayer(c, (layer) => [a, b].map((tokens) => layer.forward(input(tokens), { intermediates: true })));
    const [runA, runB] = pair(config);
    const compare = (outA, outB) => {
      const keysB = b.map(tokenKey);
      return a.map((word, i) => {
        const j = keysB.indexOf(tokenKey(word));
        return { word, inA: i, inB: j, maxDiff: maxAbsDiff(rowOf(outA, i, dModel), rowOf(outB, j, dModel)) };
      });
    };
    const perWord = compare(runA.output, runB.output);
    const maxDiff = Math.max(...perWord.map((w) => w.maxDiff));
    // The claim, always: no mask, no positions.
    const plain = causal || positions !== 'none' ? pair({ ...config, causal: false, positions: 'none' }) : [runA, runB];
    const claimWords = compare(plain[0].output, plain[1].output);
    let wordGap = Infinity; // the closest two different words' outputs (first sentence)
    for (let i = 0; i < T; i += 1)
      for (let j = i + 1; j < T; j += 1)
        wordGap = Math.min(wordGap, maxAbsDiff(rowOf(plain[0].output, i, dModel), rowOf(plain[0].output, j, dModel)));
    const claim = {
      maxDiff: Math.max(...claimWords.map((w) => w.maxDiff)),
      scale: Math.max(largestAbs(plain[0].output), largestAbs(plain[1].output)),
      wordGap,
    };
    return {
      sentences: [...ORDER_SENTENCES],
      tokens: { a, b },
      config,
      positions,
      inputScale: ORDER_INPUT_SCALE,
      outputA: runA.output,
      outputB: runB.output,
      perWord,
      maxDiff,
      claim,
      kind: this.#kindView(config, runA, input(a)),
      kinds: this.positionKinds(),
    };
  }

  // What the page draws for one kind, as the core computed it.
  #kindView(config, run, x) {
    const { positions, tokens: T, heads: H, dModel } = config;
    if (positions === 'learned' || positions === 'sinusoidal') {
      const n = ORDER_TABLE_TOKENS;
      const table = this.#withLayer(
        { ...config, tokens: n },
        (layer) => layer.forward(new Float32Array(n * dModel), { intermediates: true }).positions,
      );
      const dots = new Float32Array(n * n);
      for (let i = 0; i < n; i += 1)
        for (let j = 0; j < n; j += 1) {
          let s = 0;
          for (let d = 0; d < dModel; d += 1) s += table[i * dModel + d] * table[j * dModel + d];
          dots[i * n + j] = s;
        }
      return { positions: run.positions, table, tableTokens: n, dots };
    }
    if (positions === 'rope') {
      // The sentence at positions 0..T-1 and again after ORDER_ROPE_SHIFT zero vectors.
      const shift = ORDER_ROPE_SHIFT;
      const shifted = new Float32Array((T + shift) * dModel);
      shifted.set(x, shift * dModel);
      const moved = this.#withLayer(
        { ...config, tokens: T + shift },
        (layer) => layer.forward(shifted, { intermediates: true }).scores,
      );
      const n = T + shift;
      const scoresShifted = new Float32Array(H * T * T);
      for (let h = 0; h < H; h += 1)
        for (let i = 0; i < T; i += 1)
          for (let j = 0; j < T; j += 1)
            scoresShifted[(h * T + i) * T + j] = moved[(h * n + shift + i) * n + shift + j];
      let maxShiftDiff = 0; // over the entries the mask leaves (masked ones are -Infinity in both)
      run.scores.forEach((v, k) => {
        if (Number.isFinite(v)) maxShiftDiff = Math.max(maxShiftDiff, Math.abs(v - scoresShifted[k]));
      });
      return { shift, scores: run.scores, scoresShifted, maxShiftDiff };
    }
    if (positions === 'alibi') {
      const slopes = Array.from({ length: H }, (_, h) => -run.scoreBias[h * T * T + 1]); // bias of distance 1
      return { scoreBias: run.scoreBias, slopes };
    }
    return {};
  }

  #withLayer(config, use) {
    const layer = this.#hw.createAttention(config);
    try {
      return use(layer);
    } finally {
      layer.dispose();
    }
  }
}

const rowOf = (values, i, width) => values.subarray(i * width, (i + 1) * width);
function largestAbs(values) {
  let m = 0;
  for (const v of values) m = Math.max(m, Math.abs(v));
  return m;
}
