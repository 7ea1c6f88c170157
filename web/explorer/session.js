// The numbers behind the panels for one configuration: the tokens, their vectors, one layer of the
// module and its forward pass with intermediates. Keeps at most one layer alive and reuses it while
// the configuration is unchanged.
import { sentenceTokens } from './tokenizer.js';
import { embedTokens } from './token-embeddings.js';

export class Session {
  #hw;
  #layer = null;
  #key = '';
  #wOut = null;

  constructor(hw) { this.#hw = hw; }

  get hw() { return this.#hw; }

  /**
   * @returns one of { status: 'sentence', message } (unusable sentence),
   *   { status: 'invalid', message, tokens, config } (the dimension rule fails),
   *   { status: 'shapes-only', message, tokens, config, trace } (valid, too large to compute here),
   *   { status: 'ok', tokens, config, trace, x, result, weights, layer }
   */
  compute(o) {
    const parsed = sentenceTokens(o.sentence, o.maxTokens);
    if (parsed.error) return { status: 'sentence', message: parsed.error };
    const { tokens } = parsed;
    const config = { batch: 1, tokens: tokens.length, dModel: o.dModel, heads: o.heads, causal: o.causal, seed: o.seed };
    const problem = this.#hw.check(config);
    if (problem !== null) {
      let trace = null;
      try { trace = this.#hw.shapeTrace(config); } catch { /* the shapes themselves are invalid */ }
      if (trace) return { status: 'shapes-only', message: problem, tokens, config, trace };
      return { status: 'invalid', message: problem, tokens, config };
    }
    const layer = this.layerFor(config);
    const x = embedTokens(this.#hw, tokens, o.dModel);
    const result = layer.forward(x, { intermediates: true });
    const session = this;
    // W_out is read from the module only if a panel asks (getWeights copies all four matrices).
    const weights = { get wOut() { return session.#wOutOf(layer); } };
    return { status: 'ok', tokens, config, trace: result.trace, x, result, weights, layer };
  }

  layerFor(config) {
    const key = JSON.stringify(config);
    if (this.#layer && this.#key === key) return this.#layer;
    this.#layer?.dispose();
    this.#layer = null;
    this.#layer = this.#hw.createAttention(config);
    this.#key = key;
    this.#wOut = null;
    return this.#layer;
  }

  // The page never changes a layer's weights, so one copy per layer is enough.
  #wOutOf(layer) {
    if (layer !== this.#layer) return layer.getWeights().wOut;
    this.#wOut ??= layer.getWeights().wOut;
    return this.#wOut;
  }

  dispose() {
    this.#layer?.dispose();
    this.#layer = null;
  }
}

export const maxAbsDiff = (a, b) => {
  let m = 0;
  for (let i = 0; i < a.length; i += 1) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};
