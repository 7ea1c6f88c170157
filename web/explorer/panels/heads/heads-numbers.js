// The heads panel's numbers: its trained models (TRAINED_CHECKPOINTS: 1, 2 and 4 heads on the
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

// Held-out sequences the untrained heads' roles are measured on. Writing them (when the trainer is
// made) and measuring them are one call of the core each, which cannot be split: 256 took 400-900
// ms of the page's thread, 64 about 120 ms. Untrained heads score 0.04-0.08 on every role on 32 as
// on 256 (they are "mixed").
const UNTRAINED_EVAL = 32;
// A trainer made only to hold weights: one sequence per batch, one held-out sequence (the checkpoint's
// 400 held-out stories took ~300 ms to write). The initial weights depend on neither (the options'
// seed alone: tests/js/trained-heads.test.js compares their bytes).
const HOLDER = { batch: 1, evalSize: 1 };

/** Gives the thread back to the page (its events, a frame) before the next step of a load. */
const yieldToPage = () =>
  typeof globalThis.scheduler?.yield === 'function'
    ? globalThis.scheduler.yield()
    : new Promise((resolve) => setTimeout(resolve, 0));

/**
 * What the owner keeps for the heads panel: its trained models, each loaded when a configuration
 * draws it (load(o)) and kept. A model keeps its trained weights and the core's role scores
 * measured when it was saved, and, once "Random weights" shows it, the same model before training
 * (`random`: a trainer made from the checkpoint's options and seed, step 0: its weights and the
 * core's role scores of them; null until then). Each step of a load is its own task: the page's
 * thread is given back between them. checkpointSource(name) is what loadCheckpoint takes.
 */
export class TrainedModels {
  #hw;
  #source;
  #loading = null; // the load under way (a promise), one at a time
  #generation = 0; // dispose() ends the loads under way
  #layers = new Map(); // name -> the attention layer their maps are computed in
  models = {}; // { name -> model }, those loaded

  constructor(hw, { checkpointSource }) {
    this.#hw = hw;
    this.#source = checkpointSource;
  }

  /**
   * What options `o` draw that is not loaded yet: [{ name, random }] (random: the model before
   * training, for "Random weights" on a head count that has a trained model), [] when nothing is.
   * Without options: every model and each before training.
   */
  missing(o) {
    const wanted = o
      ? [
          {
            name: checkpointFor(o.heads) ?? BESIDE_CHECKPOINT,
            random: o.headsWeights === 'random' && checkpointFor(o.heads) !== null,
          },
        ]
      : [...new Set(Object.values(TRAINED_CHECKPOINTS))].map((name) => ({ name, random: true }));
    return wanted.filter(({ name, random }) => !this.models[name] || (random && !this.models[name].random));
  }

  /** Loads what `o` draws (without options: everything), one step per task; a promise. */
  load(o) {
    const loading = this.#loading ?? Promise.resolve();
    const next = loading
      .catch(() => {})
      .then(() => this.#load(this.missing(o), this.#generation))
      .finally(() => {
        if (this.#loading === next) this.#loading = null;
      });
    this.#loading = next;
    return next;
  }

  async #load(missing, generation) {
    for (const { name, random } of missing) {
      if (!this.models[name]) {
        const model = await this.#trained(name, generation);
        if (generation !== this.#generation) return;
        this.models[name] = model;
      }
      if (random && !this.models[name].random) {
        const before = await this.#untrained(this.models[name].options, generation);
        if (generation !== this.#generation) return;
        this.models[name] = { ...this.models[name], random: before };
      }
    }
    await yieldToPage(); // the panel draws what arrived in a task of its own
  }

  // A checkpoint's trained weights, words and saved numbers: its trainer holds them for a moment.
  async #trained(name, generation) {
    const checkpoint = await this.#source(name);
    await yieldToPage();
    if (generation !== this.#generation) return null;
    const object = checkpoint !== null && typeof checkpoint === 'object';
    const trainer = await this.#hw.loadCheckpoint(
      object ? { ...checkpoint, options: { ...checkpoint.options, ...HOLDER } } : checkpoint,
    );
    try {
      const { steps, roles, evaluation, curve, about } = trainer.checkpoint;
      // As saved (a copy: the part's result is frozen, the source's object is shared with other panels).
      const options = object ? { ...checkpoint.options } : trainer.checkpoint.options;
      return {
        name,
        about,
        options,
        steps,
        evaluation,
        curve,
        words: trainer.task.words,
        tokens: trainer.task.tokens,
        trained: { weights: trainer.getWeights(), roles: roles.at(-1) },
        random: null,
      };
    } finally {
      trainer.dispose();
    }
  }

  // The same model before training: its options and seed give its initial weights; its roles are
  // measured on UNTRAINED_EVAL held-out sequences. Made, read and measured in separate tasks.
  async #untrained(options, generation) {
    await yieldToPage();
    if (generation !== this.#generation) return null;
    const fresh = this.#hw.createTrainer({ ...options, batch: 1, evalSize: UNTRAINED_EVAL });
    try {
      await yieldToPage();
      if (generation !== this.#generation) return null;
      const weights = fresh.getWeights();
      await yieldToPage();
      if (generation !== this.#generation) return null;
      return { weights, roles: fresh.roleScores().at(-1) };
    } finally {
      fresh.dispose();
    }
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
      if (this.#hw.positionKinds().find((k) => k.name === positions).learnedTable)
        set.positions = weights.positionEmbedding;
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
      random: m.random ? run(m.random) : null,
    };
  }

  dispose() {
    for (const layer of this.#layers.values()) layer.dispose();
    this.#layers.clear();
    this.models = {};
    this.#loading = null;
    this.#generation += 1;
  }
}

/**
 * The part 'trained': null until the model drawn for the options is loaded; its `random` (the same
 * model before training) null until measured.
 */
export const trainedPart = {
  key: (o, { kept }) => {
    const m = kept.models[checkpointFor(o.heads) ?? BESIDE_CHECKPOINT];
    return m ? [o.sentence, checkpointFor(o.heads), Boolean(m.random)] : null;
  },
  run: ({ o, kept }) => kept.on(o),
};
