// The Learn panel's third experiment, "1, 2 and 4 heads" on the story task (learn-experiment=story,
// docs/story.md), as data: the models it shows, each probe's held-out accuracy over training (over
// the probe's candidates), the heads that look at the antecedent, the ablation table, and the
// account in words. Pure module (no DOM, no wasm): tested by Vitest (tests/js/story-data.test.js).
import { ablationOf, FALLS, keyRows, rowTop, STORY_SKILLS } from '../story/story-reading.js';

/** The shipped story checkpoints the experiment shows (1 layer, width 64), by head count. */
export const STORY_MODELS = Object.freeze(['story-1-head', 'story-2-heads', 'story-4-heads']);
/** A head "looks at the antecedent" where its role score on an antecedent probe is at least this. */
export const ANTECEDENT_SEEN = 0.8;
// The role scores of the antecedent probes (attention from the query on the antecedent).
const ANTECEDENT_KEYS = ['subjectAntecedent', 'objectAntecedent', 'possessiveAntecedent'];

/** A probe's held-out accuracy over its candidates at every curve point: [{ step, accuracy }]. */
export function probeSeries(curve, probe) {
  return curve.map((p) => ({ step: p.step, accuracy: p.heldOut.groups[probe].candidateAccuracy }));
}

/** The largest antecedent role score of any head of `roles` (per layer, per head). */
export function antecedentScore(roles) {
  return Math.max(...roles.flat().flatMap((h) => ANTECEDENT_KEYS.map((k) => h[k])));
}

/**
 * The first curve point at which some head puts at least `at` of its attention on the antecedent
 * (antecedentScore of the point's roles): { step, score, ms } (ms: a live run's time, else
 * undefined), or null.
 */
export function antecedentStep(curve, at = ANTECEDENT_SEEN) {
  const point = curve.find((p) => p.roles && antecedentScore(p.roles) >= at);
  return point ? { step: point.step, score: antecedentScore(point.roles), ms: point.ms } : null;
}

/**
 * The ablation table of a model ({ evaluation, ablation, roles }): per head zeroed alone (layer 0),
 * { head, role, rows: ablationOf() per skill }; heads without a row are left out (all of them
 * before the model is measured).
 */
export function ablationTable(model) {
  if (!model.roles || !model.evaluation) return [];
  return model.roles[0].flatMap((h, head) => {
    const rows = ablationOf(model, 0, head);
    return rows ? [{ head, role: h.role, rows }] : [];
  });
}

const two = (v) => v.toFixed(2);

/** A model "has learned" the task where every probe's held-out accuracy is at least this. */
export const LEARNED_AT = 0.9;

/** The first curve point at which every probe's held-out accuracy is at least `at`: its step, or null. */
export function learnedStep(curve, at = LEARNED_AT) {
  const point = curve.find((p) => STORY_SKILLS.every(([skill]) => p.heldOut.groups[skill].candidateAccuracy >= at));
  return point ? point.step : null;
}

/**
 * The experiment in a sentence (a slide's point): the step at which each model has learned every
 * probe ("Every probe at 0.90 held out: 1 head at step 2700, 2 heads at step 600, ...").
 * models: [{ name, steps, curve }].
 */
export function learnedPoint(models, at = LEARNED_AT) {
  const when = models.map((m) => {
    const step = learnedStep(m.curve, at);
    return `${m.name} ${step === null ? `not by step ${m.curve.at(-1)?.step ?? 0}` : `at step ${step}`}`;
  });
  return `Every probe right ${Math.round(100 * at)}% of the time, held out: ${when.join(', ')}.`;
}

/**
 * Where each head of a model looks from the lecture's key rows ("but", "catch", the last "it"):
 * per head [{ label, word, weight }]. reading: readStorySentence() of the sentence; maps: the
 * layer's heads, T x T.
 */
export function headLooks(reading, maps, T) {
  const rows = keyRows(reading);
  return maps.map((map) => rows.map(({ row, label }) => ({ label, ...rowTop(map, T, row, reading.words) })));
}

/**
 * The account of the shown models in words, from their numbers: per model its final accuracy per
 * probe, the head that looks at the antecedent and where it looks on the sentence, and what falls
 * when it is zeroed. models: [{ name, steps, evaluation, roles, ablation, maps }].
 */
export function storyAccount(models, reading, T) {
  return models.map((m) => {
    const final = STORY_SKILLS.map(([skill, label]) => `${label} ${two(m.evaluation.groups[skill].candidateAccuracy)}`);
    const scores = m.roles[0].map((h) => Math.max(...ANTECEDENT_KEYS.map((k) => h[k])));
    const head = scores.indexOf(Math.max(...scores));
    const looks = headLooks(reading, m.maps[0], T)
      [head].filter((l) => l.label.includes('→'))
      .map((l) => `${two(l.weight)} of "${l.label.split(' ')[0]}" on "${l.word}"`);
    const parts = [
      `${m.name}, step ${m.steps}: ${final.join(', ')} (held out, over each probe's candidates).`,
      `Head ${head + 1} (${m.roles[0][head].role}) looks most at the antecedent (${two(scores[head])} of its ` +
        `attention on held-out probes); on the sentence it puts ${looks.join(', ')}.`,
    ];
    const row = ablationTable(m).find((r) => r.head === head);
    if (row) {
      const falls = row.rows.filter((r) => r.change <= -FALLS);
      parts.push(
        falls.length
          ? `Zeroed, ${falls.map((r) => `${r.label} falls ${two(r.whole)} → ${two(r.without)}`).join(', ')}.`
          : 'Zeroed alone, nothing falls by 0.10 or more.',
      );
    }
    return parts.join(' ');
  });
}
