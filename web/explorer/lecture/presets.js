// The configurations the lecture talks about.
export const PRESETS = Object.freeze({
  toy: Object.freeze({ label: "The lecture's toy: 6 = 2 x 3", dModel: 6, heads: 2 }),
  gpt2: Object.freeze({ label: 'GPT-2 small: 768 = 12 x 64', dModel: 768, heads: 12 }),
  gpt3: Object.freeze({ label: 'GPT-3: 12288 = 96 x 128', dModel: 12288, heads: 96 }),
});

/**
 * The lecture's sentence cut in two: the batch of two six-token sentences whose shapes the lecture
 * traces, (2, 6, 6) -> (2, 6, 2, 3) -> (2, 2, 6, 3). The page's input, one sentence per line.
 */
export const LECTURE_BATCH = Object.freeze(['The dog chased the ball,', 'but it could not catch it']);
/** The words the lecture speaks of ("it" matches "ball" and "catch"): always labelled in a figure. */
export const LECTURE_WORDS = Object.freeze(['ball', 'catch', 'it']);
/** The lecture's sentence, whole (what "one head is not enough" reads). */
export const DEFAULT_SENTENCE = LECTURE_BATCH.join(' ');
export const DEFAULT_TEXT = LECTURE_BATCH.join('\n');

/** The preset a width and head count belong to, or 'custom'. */
export function presetOf(dModel, heads) {
  const found = Object.entries(PRESETS).find(([, p]) => p.dModel === dModel && p.heads === heads);
  return found ? found[0] : 'custom';
}
