// The one owner of the page's computation. For a configuration it computes, once, every number the
// panels draw: the tokens and their vectors, the page's layer (its fused forward pass with
// intermediates, the batch read as one sequence, W_out), and each panel's own numbers, declared by
// the panel's entry in the registry (panels/index.js: `numbers`, computed here, and `keeps`, what the
// owner holds for the panel between renders: a training run, loaded checkpoints). Panels are views
// of its result: they never call the module. Each part is remembered under the inputs it depends
// on, so a change that does not touch a part (a step, a slide message, the panel shown) costs no
// module call; the main layer lives until the configuration changes.
import { sentenceBatch } from './lecture/tokenizer.js';
import { embedTokens } from './lecture/token-embeddings.js';
import { pageBudgetProblem, PAGE_MAX_WIDTH } from './compute-budget.js';
import { PANELS } from './panels/index.js';

/** What each panel views (its entry's parts); the owner computes only the parts of the panels shown. */
export const PANEL_PARTS = Object.freeze(Object.fromEntries(PANELS.map((entry) => [entry.id, entry.parts ?? []])));

// A layer this wide takes tens of milliseconds to create and run (one call each, which cannot be
// split), so the page says so and lets the notice paint first. Wider than the page computes
// (compute-budget.js) there is no layer to wait for: the refusal comes at once, without a notice.
export const SLOW_LAYER_WIDTH = 512;
export function slowLayerNotice(dModel) {
  const slow = Number.isInteger(dModel) && dModel >= SLOW_LAYER_WIDTH && dModel <= PAGE_MAX_WIDTH;
  return slow ? `Computing a layer of width ${dModel}...` : null;
}

// Freezes the plain objects of a result (typed arrays cannot be frozen; views only read them).
function frozen(value) {
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

// A panel's part that fails says why in its own result; the other parts are unaffected.
function attempt(run) {
  try {
    return run();
  } catch (error) {
    return { error: error.message };
  }
}

// The page's layer, which several panels view. A part: { layer (needs a valid configuration),
// key(o, ctx) (the inputs it depends on besides the layer's; null: the part is null), run(ctx) }.
const LAYER_PARTS = {
  fused: { layer: true, run: ({ layer, base }) => withoutTrace(layer().forward(base.x, { intermediates: true })) },
  // The batch's sentences read as one sequence (the lecture's sentence is a batch of two lines, and
  // its last "it" must be able to look at "ball"), or sentence 1 when there is one or the sequence
  // would be too long for the page.
  whole: {
    layer: true,
    run: (ctx) => {
      const { base } = ctx;
      const joined = base.config.batch > 1 ? wholeSequence(ctx) : null;
      return joined ?? { tokens: base.tokens, config: base.config, fused: ctx.part('fused'), joined: false };
    },
  },
  // Keyed by the configuration alone: the weights do not depend on the sentence.
  wOut: { layer: true, key: (o, { base }) => [base.config], run: ({ layer }) => layer().getWeights().wOut },
};

function withoutTrace({ trace, ...rest }) {
  void trace; // the base already has it
  return rest;
}

// The same weights (they do not depend on the batch or the length), a layer of its own made and
// freed here. Null when the page would not compute a layer that long.
function wholeSequence({ hw, base, withLayer }) {
  const tokens = base.sentences.flat();
  const config = { ...base.config, batch: 1, tokens: tokens.length };
  if (hw.check(config) ?? pageBudgetProblem(config)) return null;
  const x = embedTokens(hw, tokens, config.dModel);
  return {
    tokens,
    config,
    fused: withLayer(config, (l) => withoutTrace(l.forward(x, { intermediates: true }))),
    joined: true,
  };
}

// Every part by name: the layer's, then each panel's numbers (with the id of the panel that keeps it).
const PARTS = Object.freeze({
  ...LAYER_PARTS,
  ...Object.fromEntries(
    PANELS.flatMap((entry) =>
      Object.entries(entry.numbers ?? {}).map(([name, part]) => [name, { ...part, id: entry.id }]),
    ),
  ),
});

/** The parts computed from the input panel's layer (its preset, sizes and seed), the layer's own first. */
export const LAYER_PART_NAMES = Object.freeze(Object.keys(PARTS).filter((name) => PARTS[name].layer));

export class ExplorerComputation {
  #hw;
  #settings;
  #layer = null;
  #layerKey = '';
  #memo = new Map(); // part -> { key, value }
  #kept = new Map(); // panel id -> what its entry's keeps() made

  /**
   * settings: what the panels' keepers are given, e.g. checkpointSource(name) (what loadCheckpoint
   * takes for a shipped checkpoint: its name, or where files cannot be fetched the object) and
   * workerKinds() (the worker kinds live training tries; null: what the pool finds).
   */
  constructor(hw, settings = {}) {
    this.#hw = hw;
    this.#settings = { checkpointSource: (name) => name, workerKinds: () => null, ...settings };
  }

  /**
   * @param o the element's options
   * @param {{ parts?: Iterable<string> }} want the parts to compute (PANEL_PARTS of the panels shown)
   * @returns a frozen result: { status, message?, sentences?, tokens?, config?, trace?, x?, and each
   *   part asked for }; status is 'sentence', 'invalid', 'shapes-only' or 'ok'. A part of the layer
   *   is there only when status is 'ok'. whole: { tokens, config, fused, joined }: the batch's
   *   sentences read as one sequence (joined), or sentence 1. sentences: the batch, one token list per
   *   sentence (config.batch of them, config.tokens each); tokens: the first sentence's.
   */
  compute(o, { parts = [] } = {}) {
    const inputs = [o.sentence, o.maxTokens, o.dModel, o.heads, o.causal, o.seed];
    const base = this.#remember('base', inputs, () => this.#base(o));
    const result = { ...base };
    const ctx = {
      hw: this.#hw,
      o,
      base,
      layer: () => this.#layerFor(base.config),
      withLayer: (config, use) => this.#withLayer(config, use),
      part: (name) => part(name),
    };
    const part = (name) => {
      if (Object.hasOwn(result, name)) return result[name];
      const spec = PARTS[name];
      if (!spec) throw new Error(`no part "${name}"`);
      if (spec.layer && base.status !== 'ok') return undefined;
      const own = { ...ctx, kept: spec.id ? this.kept(spec.id) : null };
      const key = spec.key ? spec.key(o, own) : [];
      if (key === null) return (result[name] = null);
      const run = spec.id ? () => attempt(() => spec.run(own)) : () => spec.run(own);
      return (result[name] = this.#remember(name, spec.layer ? [base.key, key] : key, run));
    };
    const wanted = new Set(parts);
    for (const name of [...Object.keys(LAYER_PARTS), ...wanted]) if (wanted.has(name)) part(name); // the layer's first
    delete result.key;
    return Object.freeze(result);
  }

  /** What the owner keeps for panel `id` between renders (its entry's keeps(hw, settings)), made once. */
  kept(id) {
    if (!this.#kept.has(id)) {
      const entry = PANELS.find((e) => e.id === id);
      this.#kept.set(id, entry?.keeps ? entry.keeps(this.#hw, this.#settings) : null);
    }
    return this.#kept.get(id);
  }

  /** Frees the layers in the module, what the panels kept, and forgets every result. */
  dispose() {
    for (const kept of this.#kept.values()) kept?.dispose?.();
    this.#kept.clear();
    this.#layer?.dispose();
    this.#layer = null;
    this.#layerKey = '';
    this.#memo.clear();
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

  #withLayer(config, use) {
    const layer = this.#hw.createAttention(config);
    try {
      return use(layer);
    } finally {
      layer.dispose();
    }
  }
}
