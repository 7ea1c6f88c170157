// What sharing keys and values costs a trained model (issue 37), as data: the run that
// scripts/make-kv-sharing.mjs trains (the story task, 1 layer of 4 query heads of 16, with 4, 2 and
// 1 K/V heads, the same seeds and steps), one measured point of it, and the shipped results read
// as a table and in words. Pure module: tested by Vitest (tests/js/kv-sharing.test.js).
import { STORY_SKILLS } from '../story/story-reading.js';

const RUN = {
  options: Object.freeze({ task: 'story', layers: 1, heads: 4, dModel: 64 }),
  kvHeads: Object.freeze([4, 2, 1]),
  seeds: Object.freeze([1, 2, 3]),
  steps: Object.freeze([100, 500, 1000, 2000]),
  // The step the panel compares the models at: where they differ (at 500 all are near chance, at
  // 2000 all near 1).
  compared: 1000,
};
const { heads, dModel } = RUN.options;
export const KV_SHARING_RUN = Object.freeze({
  ...RUN,
  describe:
    `the story task, 1 attention layer of ${heads} query heads of ${dModel / heads} (width ${dModel}) with ` +
    `${RUN.kvHeads.join(', ')} K/V heads, seeds ${RUN.seeds.join(', ')}, held-out accuracy per probe at steps ` +
    RUN.steps.join(', '),
});

const NAMES = Object.freeze({ 4: 'multi-head', 2: 'grouped-query', 1: 'multi-query' });

const four = (v) => Number(v.toFixed(4));

/**
 * One measured point: the step, the held-out loss and each probe's accuracy over its candidates, to
 * 4 decimals (the page prints 2; the file stays small).
 */
export const sharingPoint = (step, evaluation) => ({
  step,
  loss: four(evaluation.loss),
  skills: Object.fromEntries(STORY_SKILLS.map(([skill]) => [skill, four(evaluation.groups[skill].candidateAccuracy)])),
});

const mean = (values) => values.reduce((a, v) => a + v, 0) / values.length;

/**
 * The results as rows, one per model: its K/V heads and name, parameters, the numbers its KV cache
 * keeps per token (keys and values of each K/V head: 2 x kvHeads x head size), and per probe the
 * mean held-out accuracy over the seeds at `step` (default: the last) with its lowest and highest.
 */
export function sharingRows(results, step = KV_SHARING_RUN.steps.at(-1)) {
  return results.models.map(({ kvHeads, parameters, seeds }) => {
    const at = seeds.map((s) => s.points.find((p) => p.step === step));
    const skills = STORY_SKILLS.map(([skill, label]) => {
      const values = at.map((p) => p.skills[skill]);
      return { skill, label, mean: mean(values), low: Math.min(...values), high: Math.max(...values) };
    });
    return {
      kvHeads,
      name: NAMES[kvHeads],
      parameters,
      cachePerToken: 2 * kvHeads * (dModel / heads),
      skills,
      pronouns: mean(skills.filter((s) => ['subject', 'object', 'possessive'].includes(s.skill)).map((s) => s.mean)),
    };
  });
}

const two = (v) => v.toFixed(2);
const lowest = (rows) => Math.min(...rows.flatMap((r) => r.skills.map((s) => s.mean)));

/**
 * In words, what sharing cost the trained models: each model's pronouns (subject, object and
 * possessive together) and agreement at the compared step, and the lowest probe of any model at the
 * last step. rows: sharingRows() at `step`; last: at the run's last step.
 */
export function sharingText(rows, last, step = KV_SHARING_RUN.compared) {
  const said = rows.map(
    (r, i) =>
      `${r.kvHeads} K/V head${r.kvHeads > 1 ? 's' : ''} (${r.name}` +
      `${i === 0 ? '' : `, ${r.cachePerToken} cached numbers a token against ${rows[0].cachePerToken}`}): ` +
      `pronouns ${two(r.pronouns)}, agreement ${two(r.skills[3].mean)}`,
  );
  return (
    `Trained on the story task, mean of ${KV_SHARING_RUN.seeds.length} seeds, at step ${step}: ${said.join('; ')}. ` +
    `By step ${KV_SHARING_RUN.steps.at(-1)} every probe is at ${two(lowest(last))} or more for all three: ` +
    'sharing keys and values slowed learning here, and cost little once trained.'
  );
}
