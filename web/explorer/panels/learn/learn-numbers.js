// The Learn panel's numbers, kept by the owner between renders: the run of "1 head vs 2 heads"
// (a LearnSession), the "1 layer vs 2 layers" checkpoints' data and their live replay; and the part
// 'learned': what the run has trained, for the panels that show it beside their own maps.
import { LearnSession } from './learn-session.js';
import { SAMPLE_WORDS } from './learn-verdict.js';
import { INDUCTION_CHECKPOINTS, inductionSequence } from './induction-data.js';
import { InductionLive } from './induction-live.js';
import { STORY_MODELS } from './story-data.js';
import { tokenize } from '../../lecture/tokenizer.js';
import { LECTURE_SENTENCE, readStorySentence } from '../story/story-reading.js';

const headsName = (n) => `${n} head${n === 1 ? '' : 's'}`;

export class LearnRuns {
  #hw;
  #settings;
  #loads = new Map(); // an experiment's data from the shipped checkpoints (a promise), by experiment
  #live = null;
  session = null; // the run, the one place the trained state lives

  /** settings: checkpointSource(name) (what loadCheckpoint takes), workerKinds() (null: the pool's). */
  constructor(hw, settings) {
    this.#hw = hw;
    this.#settings = settings;
  }

  /** A new run (1 and 2 heads side by side, or 1, 2 and 4); the previous one is freed. */
  learnSession(config) {
    this.session?.dispose();
    this.session = null;
    this.session = new LearnSession(this.#hw, config);
    return this.session;
  }

  /**
   * "1 layer vs 2 layers" from the shipped checkpoints, loaded once: { sequence (the first held-out
   * sequence, its layout read by inductionSequence), models: [{ name, layers, options, steps, curve,
   * roles, evaluation, maps }] }, maps per layer and head on the sequence (T x T).
   */
  induction() {
    return this.#once('induction', () => this.#withCheckpoints(INDUCTION_CHECKPOINTS, (t) => this.#inductionData(t)));
  }

  // Loads an experiment's data once; a load that failed is tried again on the next call.
  #once(key, load) {
    if (!this.#loads.has(key)) {
      const loading = load().catch((error) => {
        if (this.#loads.get(key) === loading) this.#loads.delete(key);
        throw error;
      });
      this.#loads.set(key, loading);
    }
    return this.#loads.get(key);
  }

  // The shipped checkpoints `names` as trainers, given to `use`; disposed whatever happens.
  async #withCheckpoints(names, use) {
    const trainers = [];
    try {
      for (const name of names)
        trainers.push(await this.#hw.loadCheckpoint(await this.#settings.checkpointSource(name)));
      return await use(trainers);
    } finally {
      for (const t of trainers) t.dispose();
    }
  }

  #inductionData(trainers) {
    const shown = trainers.at(-1);
    const sequence = inductionSequence(shown.heldOutSequence(0), shown.task.groups);
    const models = trainers.map((t) => {
      const { options, steps, curve, roles, evaluation } = t.checkpoint;
      const name = `${options.layers} layer${options.layers === 1 ? '' : 's'}`;
      const maps = t.attention(sequence.ids).layers.map((layer) => layer.heads);
      return { name, layers: options.layers, options, steps, curve, roles, evaluation, maps };
    });
    return { sequence, models };
  }

  /**
   * "1, 2 and 4 heads" on the story task from the shipped checkpoints (story-data.js STORY_MODELS),
   * loaded once: { sequence ({ ids }: the lecture's sentence, as the model reads it), reading, T,
   * models: [{ name, heads, layers, options, steps, curve, roles, evaluation, ablation, maps }] }.
   */
  story() {
    return this.#once('story', () => this.#withCheckpoints(STORY_MODELS, (t) => this.#storyData(t)));
  }

  #storyData(trainers) {
    const { words, tokens: T } = trainers[0].task;
    const reading = readStorySentence(tokenize(LECTURE_SENTENCE, 4096).tokens, words, T);
    const models = trainers.map((t) => {
      const { options, steps, curve, roles, evaluation, ablation } = structuredClone(t.checkpoint);
      const maps = t.attention(reading.words).layers.map((layer) => layer.heads);
      return {
        name: headsName(options.heads),
        layers: options.layers,
        heads: options.heads,
        options,
        steps,
        curve,
        roles,
        evaluation,
        ablation,
        maps,
      };
    });
    return { sequence: { ids: reading.words }, reading, T, models };
  }

  /** A new live replay of the induction models (induction-live.js); the previous one is stopped. */
  inductionLive(config) {
    this.#live?.dispose();
    const kinds = this.#settings.workerKinds();
    this.#live = new InductionLive(this.#hw, kinds ? { ...config, kinds } : config);
    return this.#live;
  }

  dispose() {
    this.#live?.dispose();
    this.#live = null;
    this.#loads.clear();
    this.session?.dispose();
    this.session = null;
  }
}

/** The part 'learned': what the run has trained, once it is done; null before. */
export const learnedPart = {
  key: (o, { kept }) => (kept.session?.verdict ? [kept.session.id, kept.session.step] : null),
  run: ({ kept: { session: s } }) => ({
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
  }),
};
