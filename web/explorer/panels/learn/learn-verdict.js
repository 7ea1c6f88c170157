// The Learn panel's words: the sample sequence, when a run has settled and what its verdict is.
// Which head does which job is head-roles.js's rule (the API's too). Pure module (no DOM, no
// wasm): tested by Vitest.
import { headRoles, ROLE_SHARE } from '../../../head-roles.js';

/** The lecture's sentence as the task's 11 words and "?": latest verb "catch", latest noun "ball". */
export const SAMPLE_WORDS = Object.freeze('the dog chase the cat and the boy catch the ball ?'.split(' '));
/** Where the sample's latest verb and latest noun are (what trained heads look at from "?"). */
export const SAMPLE_VERB_AT = 8;
export const SAMPLE_NOUN_AT = 10;
/**
 * Each model trains at least LEARN_STEPS steps, then on until its held-out accuracy has settled
 * (checked every CHECK_EVERY steps), and at most MAX_LEARN_STEPS.
 */
export const LEARN_STEPS = 1000;
export const MAX_LEARN_STEPS = 3000;
export const CHECK_EVERY = 250;
/** A seed where 2 heads specialise (checked by tests/js/learn-verdict.test.js with the module). */
export const DEFAULT_LEARN_SEED = 2;
/** The widths the panel offers, and its default (the lecture's). */
export const LEARN_WIDTHS = Object.freeze([16, 32, 64]);
export const DEFAULT_LEARN_WIDTH = 32;
/** The runs trained side by side: 1 and 2 heads, or 1, 2 and 4 (every width above divides by 4). */
export const LEARN_HEAD_CHOICES = Object.freeze({ '1,2': Object.freeze([1, 2]), '1,2,4': Object.freeze([1, 2, 4]) });
export const DEFAULT_LEARN_HEADS = '1,2';
/**
 * The panel's experiments: "heads" (1 head vs 2 heads on latest verb and latest noun, trained in
 * the tab), "layers" (1 layer vs 2 layers on the induction task, from the shipped checkpoints;
 * induction-view.js) and "story" (1, 2 and 4 heads on the story task, from the shipped checkpoints;
 * story-view.js).
 */
export const LEARN_EXPERIMENTS = Object.freeze(['heads', 'layers', 'story']);
export const DEFAULT_LEARN_EXPERIMENT = 'heads';
/**
 * A run has settled when its held-out accuracy rose less than SETTLE_RISE over the last
 * SETTLE_WINDOW steps, or when it is at SETTLED_AT or above (what is left to gain there is noise).
 */
export const SETTLE_WINDOW = 500;
export const SETTLE_RISE = 0.02;
export const SETTLED_AT = 0.97;

const pct = (v) => `${Math.round(100 * v)}%`;
const headsName = (n) => `${n} head${n === 1 ? '' : 's'}`;

/** Exponential moving average; the first value starts it. */
export function smooth(previous, value, weight = 0.9) {
  return previous === null || previous === undefined ? value : weight * previous + (1 - weight) * value;
}

/**
 * How much a run's held-out accuracy rose over the last SETTLE_WINDOW steps of its checks
 * ([{ step, accuracy }]); null when they do not reach that far back.
 */
export function lateRise(checks) {
  const last = checks.at(-1);
  const from = last && checks.findLast((p) => p.step <= last.step - SETTLE_WINDOW);
  return from ? last.accuracy - from.accuracy : null;
}

/** Whether a run with these held-out checks is done training (see LEARN_STEPS). */
export function hasSettled(checks) {
  const last = checks.at(-1);
  if (!last || last.step < LEARN_STEPS) return false;
  if (last.step >= MAX_LEARN_STEPS || last.accuracy >= SETTLED_AT) return true;
  const rise = lateRise(checks);
  return rise !== null && rise < SETTLE_RISE;
}

// "head 1 finds the verb"; with more heads "heads 1 and 4 find the noun".
function whoFinds(roles, role) {
  const heads = roles.flatMap((r, h) => (r === role ? [h + 1] : []));
  if (heads.length === 1) return `head ${heads[0]} finds the ${role}`;
  return `heads ${heads.slice(0, -1).join(', ')} and ${heads.at(-1)} find the ${role}`;
}

// What the answers are: "80% right (right verb 90%, right noun 89%)".
function answersText({ accuracy, answers }, variant) {
  if (!answers || variant === 'verb') return `${pct(accuracy)} right`;
  return `${pct(accuracy)} right (right verb ${pct(answers.rightVerb)}, right noun ${pct(answers.rightNoun)})`;
}

function describeRun(run, variant) {
  const { heads, accuracy, shares } = run;
  const name = `${headsName(heads)}: ${answersText(run, variant)}`;
  const { roles, state, verb, noun } = headRoles(shares, { variant });
  if (variant === 'verb') {
    return accuracy >= 0.95 ? `${name} - one thing to find, one head is enough` : `${name} - still learning`;
  }
  if (heads === 1) {
    if (accuracy >= 0.95) return `${name} - this one head found both words`;
    // Right on the verb and on the noun more often than on both: its one row splits between them.
    const [{ verb, noun }] = shares;
    return `${name} - one softmax row split between the verb (${pct(verb)}) and the noun (${pct(noun)})`;
  }
  if (state === 'specialised') return `${name} - ${whoFinds(roles, 'verb')}, ${whoFinds(roles, 'noun')}`;
  if (state === 'mixed' && accuracy < 0.9) {
    const share = shares.map((s) => `${pct(s.verb)} verb / ${pct(s.noun)} noun`).join(', ');
    return (
      `${name} - stuck: the heads took the same compromise (${share}), the 1-head solution; ` +
      `this happens in about 1 run in 20, try another seed`
    );
  }
  // Partial: say what is found and how close the best head comes to the rest.
  const found = ['verb', 'noun'].filter((role) => roles.includes(role)).map((role) => whoFinds(roles, role));
  const missing = ['verb', 'noun']
    .filter((role) => !roles.includes(role))
    .map(
      (role) => `no head puts ${pct(ROLE_SHARE)} on the ${role} (the most is ${pct(role === 'verb' ? verb : noun)})`,
    );
  const unsplit = accuracy < 0.9 ? ': the work is not split, try another seed' : '';
  return `${name} - ${[...found, ...missing].join(', ')}${unsplit}`;
}

/**
 * The training's end, in words, from each run's held-out checks: runs [{ heads, checks }]: each
 * reached SETTLED_AT, plateaued, or (stopped at MAX_LEARN_STEPS) was still rising, and how much.
 */
export function settledNote(runs) {
  const parts = runs.map((r) => {
    const last = r.checks.at(-1);
    if (!last) return `${headsName(r.heads)}: not trained`;
    const rise = lateRise(r.checks);
    const at = `${pct(last.accuracy)} by step ${last.step}`;
    if (last.accuracy >= SETTLED_AT) return `${headsName(r.heads)} reached ${at}`;
    const [has, was] = r.heads === 1 ? ['has', 'was'] : ['have', 'were'];
    if (rise !== null && rise < SETTLE_RISE) return `${headsName(r.heads)} ${has} plateaued at ${at}`;
    const points = rise === null ? '' : ` (+${Math.round(1000 * rise) / 10} points in its last ${SETTLE_WINDOW} steps)`;
    return `${headsName(r.heads)} ${was} still rising at ${at}${points}`;
  });
  return `Trained until the held-out accuracy stopped rising: ${parts.join('; ')}.`;
}

/**
 * runs: [{ heads, accuracy (held-out), shares: headShares(), answers?: answerShares() }]; variant
 * 'verb-noun' or 'verb'. Returns { text, stuck }: stuck when a run of 2 or more heads ended on the
 * shared compromise.
 */
export function verdictOf(runs, variant = 'verb-noun') {
  const text = runs.map((r) => describeRun(r, variant)).join('; ');
  const stuck =
    variant !== 'verb' && runs.some((r) => r.heads > 1 && headRoles(r.shares).state === 'mixed' && r.accuracy < 0.9);
  return { text: `${text}.`, stuck, point: verdictPoint(runs, variant) };
}

/**
 * The verdict short enough for a slide's two lines: each run's held-out accuracy, then which heads
 * find what in the fewest heads that split the work ("Held out: 1 head 61%, 2 heads 98% right; 2
 * heads: head 1 finds the verb, head 2 finds the noun.").
 */
function verdictPoint(runs, variant) {
  const right = `Held out: ${runs.map((r) => `${headsName(r.heads)} ${pct(r.accuracy)}`).join(', ')} right`;
  if (variant === 'verb') return `${right} (the control: the latest verb only).`;
  const split = runs.find((r) => r.heads > 1 && headRoles(r.shares, { variant }).state === 'specialised');
  if (!split) return `${right}; no run split the verb and the noun between heads.`;
  const { roles } = headRoles(split.shares, { variant });
  return `${right}; ${headsName(split.heads)}: ${whoFinds(roles, 'verb')}, ${whoFinds(roles, 'noun')}.`;
}
