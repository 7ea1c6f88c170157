// The one owner of the page's computation. For a configuration it computes, once, every number the
// panels draw: the tokens and their vectors, the fused forward pass with intermediates, the loop
// version, the five steps one call each, W_out, the designed-weights runs of "why heads" and the
// two sentences of "word order". Panels are views of its result: they never call the module.
// Each part is remembered under the inputs it depends on, so a change that does not touch a part
// (a step, a slide message, the panel shown) costs no module call; the main layer lives until the
// configuration changes.
import { sentenceTokens, tokenize } from './tokenizer.js';
import { embedTokens, tokenKey } from './token-embeddings.js';
import { designTeachingWeights } from './teaching-weights.js';
import { withPositions } from './positional-encoding.js';
import { DEFAULT_SENTENCE } from './presets.js';
import { runHeadsSweep } from './sweep.js';
import { LearnSession } from './learn-session.js';
import { SAMPLE_WORDS } from './learn-verdict.js';

/** What each panel views; the owner computes only the parts of the panels shown. */
export const PANEL_PARTS = Object.freeze({
  input: [],
  why: ['why', 'learned'],
  steps: ['fused', 'steps'],
  heads: ['fused', 'wOut', 'learned'],
  loop: ['fused', 'loop'],
  order: ['order'],
  learn: [],
});

export const WHY_WIDTH = 6;
const WHY_TARGETS = { one: [['ball', 'catch']], two: [['ball'], ['catch']] };
export const ORDER_SENTENCES = Object.freeze(['All dogs are animals', 'All animals are dogs']);
const ORDER_MAX_WIDTH = 1024;

// A layer this wide takes tens of milliseconds (width 512) to seconds (width 8000: a 1 GB layer) to
// create in one call that cannot be split, so the page says so and lets the notice paint first.
export const SLOW_LAYER_WIDTH = 512;
export function slowLayerNotice(dModel) {
  return Number.isInteger(dModel) && dModel >= SLOW_LAYER_WIDTH ? `Computing a layer of width ${dModel}...` : null;
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

// Word order computes the current width and heads, or the lecture's 6 and 2 when they are
// unusable here (saying why); the page's causal option sets the mask, the panel's checkbox the positions.
function orderSpec(status, o, { causal, positions }) {
  const usable = status === 'ok' && o.dModel <= ORDER_MAX_WIDTH;
  const reasons = { ok: 'is wider than this panel computes', 'shapes-only': 'is too large to compute here' };
  const fallback = usable ? null : (reasons[status] ?? 'is not valid');
  return { dModel: usable ? o.dModel : 6, heads: usable ? o.heads : 2, seed: o.seed, causal, positions, fallback };
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

  constructor(hw) {
    this.#hw = hw;
  }

  /**
   * @param o the element's options
   * @param {{ parts?: Iterable<string>, order?: { causal: boolean, positions: boolean } }} want
   * @returns a frozen result: { status, message?, tokens?, config?, trace?, x?, fused?, loop?,
   *   steps?, wOut?, why?, order?, learned? }; status is 'sentence', 'invalid', 'shapes-only' or 'ok'
   */
  compute(o, { parts = [], order = { causal: false, positions: false } } = {}) {
    const wanted = new Set(parts);
    const inputs = [o.sentence, o.maxTokens, o.dModel, o.heads, o.causal, o.seed];
    const base = this.#remember('base', inputs, () => this.#base(o));
    const result = { ...base };
    if (base.status === 'ok') {
      const key = base.key;
      const needFused = wanted.has('fused') || wanted.has('loop') || wanted.has('steps');
      if (needFused) result.fused = this.#remember('fused', key, () => this.#fused(base));
      const { fused } = result;
      const part = (name, run) => this.#remember(name, key, () => attempt(run));
      if (wanted.has('loop')) result.loop = part('loop', () => this.#loop(base, fused));
      if (wanted.has('steps')) result.steps = part('steps', () => this.#steps(base, fused));
      if (wanted.has('wOut')) {
        result.wOut = this.#remember('wOut', base.config, () => this.#layerFor(base.config).getWeights().wOut);
      }
    }
    if (wanted.has('why')) result.why = this.#remember('why', [o.seed], () => attempt(() => this.#why(o.seed)));
    if (wanted.has('learned')) result.learned = this.#learned();
    if (wanted.has('order')) {
      const spec = orderSpec(base.status, o, order);
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

  /** Frees the layer in the module and forgets every result. */
  dispose() {
    this.#learn?.dispose();
    this.#learn = null;
    this.#layer?.dispose();
    this.#layer = null;
    this.#layerKey = '';
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

  // Tokens, configuration, validity (checked once, by the module) and the input vectors.
  #base(o) {
    const parsed = sentenceTokens(o.sentence, o.maxTokens);
    if (parsed.error) return { status: 'sentence', message: parsed.error };
    const { tokens } = parsed;
    const { dModel, heads, causal, seed } = o;
    const config = { batch: 1, tokens: tokens.length, dModel, heads, causal, seed };
    const problem = this.#hw.check(config);
    if (problem !== null) {
      let trace = null;
      try {
        trace = this.#hw.shapeTrace(config);
      } catch {
        /* the shapes themselves are invalid */
      }
      const headDim = config.dModel / config.heads;
      if (trace) return { status: 'shapes-only', message: problem, tokens, config, trace, headDim };
      return { status: 'invalid', message: problem, tokens, config };
    }
    const layer = this.#layerFor(config);
    const x = embedTokens(this.#hw, tokens, o.dModel);
    const key = JSON.stringify([config, tokens]);
    const { headDim } = layer.config;
    return { status: 'ok', tokens, config, headDim, trace: layer.shapeTrace(), x, key };
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

  // The same words in two orders, through one layer; row i of each comparison is word a[i].
  #order({ dModel, heads, seed, causal, positions, fallback }) {
    const [a, b] = ORDER_SENTENCES.map((s) => tokenize(s).tokens);
    const T = a.length;
    const input = (tokens) => {
      const x = embedTokens(this.#hw, tokens, dModel);
      return positions ? withPositions(x, T, dModel) : x;
    };
    const layer = this.#hw.createAttention({ batch: 1, tokens: T, dModel, heads, causal, seed });
    let outputA;
    let outputB;
    try {
      outputA = layer.forward(input(a));
      outputB = layer.forward(input(b));
    } finally {
      layer.dispose();
    }
    const keysB = b.map(tokenKey);
    const perWord = a.map((word, i) => {
      const j = keysB.indexOf(tokenKey(word));
      let m = 0;
      for (let k = 0; k < dModel; k += 1) {
        m = Math.max(m, Math.abs(outputA[i * dModel + k] - outputB[j * dModel + k]));
      }
      return { word, inA: i, inB: j, maxDiff: m };
    });
    const maxDiff = Math.max(...perWord.map((w) => w.maxDiff));
    const config = { batch: 1, tokens: T, dModel, heads, causal, seed };
    const tokens = { a, b };
    return { sentences: [...ORDER_SENTENCES], tokens, config, positions, outputA, outputB, perWord, maxDiff, fallback };
  }
}
