// The Learn panel's words: the sample sequence, when a run has settled and what its verdict is.
// Pure module (no DOM, no wasm): tested by Vitest.

/** The lecture's sentence as the task's 11 words and "?": latest verb "catch", latest noun "ball". */
export const SAMPLE_WORDS = Object.freeze('the dog chase the cat and the boy catch the ball ?'.split(' '));
/** Where the sample's latest verb and latest noun are (what trained heads look at from "?"). */
export const SAMPLE_VERB_AT = 8;
export const SAMPLE_NOUN_AT = 10;
/** Steps each model trains before the panel gives its verdict. */
export const LEARN_STEPS = 1000;
/** A seed where 2 heads specialise (checked by tests/js/learn-verdict.test.js with the module). */
export const DEFAULT_LEARN_SEED = 2;
/** The widths the panel offers, and its default (the lecture's). */
export const LEARN_WIDTHS = Object.freeze([16, 32, 64]);
export const DEFAULT_LEARN_WIDTH = 32;
/** The runs trained side by side: 1 and 2 heads, or 1, 2 and 4 (every width above divides by 4). */
export const LEARN_HEAD_CHOICES = Object.freeze({ '1,2': Object.freeze([1, 2]), '1,2,4': Object.freeze([1, 2, 4]) });
export const DEFAULT_LEARN_HEADS = '1,2';
/**
 * A run has settled when its accuracy rose less than SETTLE_RISE over the last SETTLE_WINDOW steps,
 * or when it is at SETTLED_AT or above (what is left to gain there is noise).
 */
export const SETTLE_WINDOW = 200;
export const SETTLE_RISE = 0.02;
export const SETTLED_AT = 0.97;
/** A head "finds" a word when it puts at least this share on it. */
export const FINDS = 0.5;

const pct = (v) => `${Math.round(100 * v)}%`;

/** Exponential moving average; the first value starts it. */
export function smooth(previous, value, weight = 0.9) {
  return previous === null || previous === undefined ? value : weight * previous + (1 - weight) * value;
}

/** Which word each head finds: 'verb', 'noun' or null, from headShares(). */
export function headRoles(shares) {
  return shares.map(({ verb, noun }) => {
    if (verb >= FINDS && verb >= noun) return 'verb';
    if (noun >= FINDS) return 'noun';
    return null;
  });
}

/** Whether the heads of a run split the work: one finds the verb, another the noun. */
export function specialised(shares) {
  const roles = headRoles(shares);
  return roles.includes('verb') && roles.includes('noun');
}

function describeRun({ heads, accuracy, shares }, variant) {
  const name = `${heads} head${heads === 1 ? '' : 's'}: ${pct(accuracy)}`;
  const roles = headRoles(shares);
  if (variant === 'verb') {
    return accuracy >= 0.95 ? `${name} - one thing to find, one head is enough` : `${name} - still learning`;
  }
  if (heads === 1) {
    if (accuracy >= 0.95) return `${name} - this one head found both words`;
    return `${name} - it cannot look at the verb and the noun at once`;
  }
  if (specialised(shares)) {
    // "head 1 finds the verb, head 2 finds the noun"; with more heads "heads 1 and 4 find the noun".
    const found = [...new Set(roles.filter(Boolean))].map((role) => {
      const heads = roles.flatMap((r, h) => (r === role ? [h + 1] : []));
      if (heads.length === 1) return `head ${heads[0]} finds the ${role}`;
      return `heads ${heads.slice(0, -1).join(', ')} and ${heads.at(-1)} find the ${role}`;
    });
    return `${name} - ${found.join(', ')}`;
  }
  if (accuracy < 0.9) {
    const share = shares.map((s) => `${pct(s.verb)} verb / ${pct(s.noun)} noun`).join(', ');
    return (
      `${name} - stuck: the heads took the same compromise (${share}), the 1-head solution; ` +
      `this happens in about 1 run in 20, try another seed`
    );
  }
  return `${name} - solved, but no head specialises cleanly`;
}

/**
 * How much a run's smoothed training accuracy rose over the last SETTLE_WINDOW steps of its curve
 * ([{ step, accuracy }]); null when the curve is shorter than that.
 */
export function lateRise(curve) {
  const last = curve.at(-1);
  const from = last && curve.findLast((p) => p.step <= last.step - SETTLE_WINDOW);
  return from ? last.accuracy - from.accuracy : null;
}

/**
 * The training runs for a fixed LEARN_STEPS (not until a plateau: 1 head often still creeps up at
 * the end, and 2 heads can sit on a plateau before they split the work). The verdict says which
 * runs had settled by then: runs [{ heads, curve }].
 */
export function settledNote(runs, steps = LEARN_STEPS) {
  const rising = runs.filter(
    (r) => (lateRise(r.curve) ?? 1) >= SETTLE_RISE && !(r.curve.at(-1)?.accuracy >= SETTLED_AT),
  );
  const name = (r) => `${r.heads} head${r.heads === 1 ? '' : 's'}`;
  if (!rising.length) return `After ${steps} steps every run had settled.`;
  const how = rising.map((r) => {
    const rise = lateRise(r.curve);
    return rise === null ? `${name(r)} is too short to tell` : `${name(r)} +${Math.round(100 * rise)} points`;
  });
  const others = rising.length < runs.length ? '; the others had settled' : '';
  return `After ${steps} steps, still rising over the last ${SETTLE_WINDOW} steps: ${how.join(', ')}${others}.`;
}

/**
 * runs: [{ heads, accuracy (held-out), shares: headShares() }]; variant 'verb-noun' or 'verb'.
 * Returns { text, stuck }: stuck when a run of 2 or more heads ended on the shared compromise.
 */
export function verdictOf(runs, variant = 'verb-noun') {
  const text = runs.map((r) => describeRun(r, variant)).join('; ');
  const stuck = variant !== 'verb' && runs.some((r) => r.heads > 1 && !specialised(r.shares) && r.accuracy < 0.9);
  return { text: `${text}.`, stuck };
}
