// The heads panel's numbers: its trained models (TRAINED_CHECKPOINTS: 2 heads and 4 heads on the
// story task), loaded once and kept by the owner, and the part 'trained': the page's sentence
// through a model's attention layer, trained and before training.
import { tokenize } from '../../lecture/tokenizer.js';
import {
  BESIDE_CHECKPOINT,
  checkpointFor,
  firstRows,
  headDifference,
  readRows,
  readSentence,
  TRAINED_CHECKPOINTS,
} from './trained-heads.js';

// Held-out sequences the untrained heads' roles are measured on (a few milliseconds).
const UNTRAINED_EVAL = 256;

/**
 * What the owner keeps for the heads panel. load() loads the models once (a promise; after that
 * `models` is set and the part 'trained' is computed). Each model keeps its trained weights and those
 * it had before training (a trainer made from the checkpoint's options and seed, step 0), and the
 * core's role scores of both (the checkpoint's, measured when it was saved, and the untrained
 * trainer's). checkpointSource(name) is what loadCheckpoint takes.
 */
export class TrainedModels {
  #hw;
  #source;
  #loading = null;
  #layers = new Map(); // name -> the attention layer their maps are computed in
  models = null; // { name -> model }, once loaded

  constructor(hw, { checkpointSource }) {
    this.#hw = hw;
    this.#source = checkpointSource;
  }

  load() {
    this.#loading ??= this.#load(this.#source).catch((error) => {
      this.#loading = null;
      throw error;
    });
    return this.#loading;
  }

  async #load(source) {
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
    this.models = models;
    return models;
  }

  // The sentence through a trained model's attention layer, with its trained weights and with its
  // weights before training: the model's own token vectors (its embedding table) in an attention
  // layer of its shape (learned positions, biases) given its block's weights, so every row of the
  // T x T maps is drawn (the model itself computes only the row from "?"; tests/js check that the
  // rows agree). The model reads 64 words, "." after the sentence; the sentence's rows are drawn
  // (causal: the "."s change none of them). Beside a configuration with no trained model, the
  // 2-head model.
  /** The part 'trained' for the options (once the models are loaded). */
  on(o) {
    const name = checkpointFor(o.heads) ?? BESIDE_CHECKPOINT;
    const m = this.models[name];
    const T = m.tokens;
    const reading = readSentence(tokenize(o.sentence.replace(/\s+/g, ' '), 4096).tokens, m.words, T);
    const ids = reading.words.map((w) => m.words.indexOf(w));
    const n = reading.shown;
    const words = reading.words.slice(0, n);
    const rows = readRows(reading);
    const { heads, dModel, causal, bias, positions } = m.options;
    const headDim = m.options.headDim || dModel / heads;
    let layer = this.#layers.get(name);
    if (!layer) {
      layer = this.#hw.createAttention({ batch: 1, tokens: T, dModel, heads, headDim, causal, bias, positions });
      this.#layers.set(name, layer);
    }
    const run = ({ weights, roles }) => {
      const b = (key) => weights[`blocks.0.${key}`];
      const set = { wq: b('wq'), wk: b('wk'), wv: b('wv'), wOut: b('wOut') };
      if (bias) Object.assign(set, { bq: b('bq'), bk: b('bk'), bv: b('bv'), bOut: b('bOut') });
      if (positions === 'learned') set.positions = weights.positionEmbedding;
      layer.setWeights(set);
      const x = new Float32Array(T * dModel);
      ids.forEach((id, t) => x.set(weights.tokenEmbedding.slice(id * dModel, (id + 1) * dModel), t * dModel));
      const fused = firstRows(layer.forward(x, { intermediates: true }), heads, T, n, dModel);
      const maps = Array.from({ length: heads }, (_, h) => fused.attention.subarray(h * n * n, (h + 1) * n * n));
      return { fused, wOut: Float32Array.from(set.wOut), roles, difference: headDifference(maps, n, rows, words) };
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
      evaluation: m.evaluation,
      curve: m.curve,
      words,
      ids: ids.slice(0, n),
      rows,
      reading,
      trained: run(m.trained),
      random: run(m.random),
    };
  }

  dispose() {
    for (const layer of this.#layers.values()) layer.dispose();
    this.#layers.clear();
    this.models = null;
    this.#loading = null;
  }
}

/** The part 'trained': null until the models are loaded. */
export const trainedPart = {
  key: (o, { kept }) => (kept.models ? [o.sentence, checkpointFor(o.heads)] : null),
  run: ({ o, kept }) => kept.on(o),
};
