// The story panel's numbers: the shipped story model (STORY_CHECKPOINT), loaded once and kept by the
// computation owner as a trainer, and the part 'story': the page's sentence read against its
// vocabulary and through the model (its one block's maps), with the checkpoint's roles, evaluation
// and ablation table (the page says only the checkpoint's numbers: tests/js/story-panel.test.js
// checks the table against the trainer's evaluate({ zeroHeads })).
import { tokenize } from '../../lecture/tokenizer.js';
import { readStorySentence, STORY_CHECKPOINT } from './story-reading.js';

/** What the owner keeps for the story panel: load() once, then on(sentence). */
export class StoryModel {
  #hw;
  #source;
  #loading = null;
  story = null; // { trainer, words, tokens }, once loaded

  constructor(hw, { checkpointSource }) {
    this.#hw = hw;
    this.#source = checkpointSource;
  }

  load() {
    this.#loading ??= this.#load().catch((error) => {
      this.#loading = null;
      throw error;
    });
    return this.#loading;
  }

  async #load() {
    const trainer = await this.#hw.loadCheckpoint(await this.#source(STORY_CHECKPOINT));
    const { words, tokens } = trainer.task;
    this.story = { trainer, words, tokens };
    return this.story;
  }

  /**
   * The model on a sentence (once loaded): { name, options, steps, words (its vocabulary), reading
   * (readStorySentence), maps (its one block's heads, T x T each), T, roles (per head), evaluation,
   * ablation }. One forward of 64 tokens (a few million multiply-adds).
   */
  on(sentence) {
    const { trainer, words, tokens: T } = this.story;
    const reading = readStorySentence(tokenize(sentence.replace(/\s+/g, ' '), 4096).tokens, words, T);
    const { layers } = trainer.attention(reading.words);
    // Copies: the result is frozen, the trainer's checkpoint is not the page's to freeze.
    const c = trainer.checkpoint;
    const { name, options, steps, roles, evaluation, ablation } = structuredClone({
      name: c.name,
      options: c.options,
      steps: c.steps,
      roles: c.roles,
      evaluation: c.evaluation,
      ablation: c.ablation ?? [],
    });
    return { name, options, steps, words, reading, maps: layers[0].heads, T, roles: roles[0], evaluation, ablation };
  }

  dispose() {
    this.story?.trainer.dispose();
    this.story = null;
    this.#loading = null;
  }
}

/** The part 'story': null until the model is loaded. */
export const storyPart = {
  key: (o, { kept }) => (kept.story ? [o.sentence] : null),
  run: ({ o, kept }) => kept.on(o.sentence),
};
