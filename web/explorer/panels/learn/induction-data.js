// The Learn panel's second experiment, "1 layer vs 2 layers" on the induction task, as data: the
// sequence the maps are drawn on, the phase change (defined here and nowhere else), the series
// the curves draw, and the account of what the shown models' heads measure. Pure module (no DOM,
// no wasm): tested by Vitest (tests/js/induction-data.test.js).
/** The shipped checkpoints the experiment shows, in the order drawn: 1 layer, then 2 layers. */
export const INDUCTION_CHECKPOINTS = Object.freeze(['induction-1-layer', 'induction-2-layers']);
/** The task's vocabulary and length (wasm/core/tasks/induction.hpp). */
export const INDUCTION_VOCAB = 64;
export const INDUCTION_TOKENS = 64;
/** Chance: the loss of a uniform guess over the 64 tokens, ln 64 = 4.16. */
export const CHANCE_LOSS = Math.log(INDUCTION_VOCAB);
/** The role scores the panel draws over training, with the names it gives them. */
export const SCORE_KINDS = Object.freeze([
  Object.freeze({ key: 'previousToken', name: 'previous token' }),
  Object.freeze({ key: 'duplicate', name: 'duplicate' }),
  Object.freeze({ key: 'induction', name: 'induction' }),
]);
/**
 * The phase change is marked only where the 2-layer repeat loss fell at least this much (nats)
 * from the curve's first point to its last: before that there is no drop to speak of (a run
 * trained live is at first still on its plateau).
 */
export const PHASE_MIN_DROP = 1;

/**
 * The layout of an induction sequence the core drew (trainer.heldOutSequence(i): its ids and each
 * read row's loss group, as indices into trainer.task.groups): a segment of `length` tokens at
 * `first`, repeated at `second`. Read from the groups as the core's probes read it
 * (wasm/core/tasks/induction.cpp, earlier_occurrence): the repeat rows are second .. second +
 * length - 2, the first-copy rows end at first + length - 2. Returns { ids, length, first, second }.
 */
export function inductionSequence({ ids, groups }, groupNames) {
  const [firstCopy, repeat] = ['first copy', 'repeat'].map((name) => groupNames.indexOf(name));
  let second = -1;
  let repeats = 0;
  let firstEnd = -1;
  groups.forEach((group, t) => {
    if (group === repeat) {
      if (second < 0) second = t;
      repeats += 1;
    }
    if (group === firstCopy) firstEnd = t;
  });
  const length = repeats + 1;
  return { ids: Array.from(ids), length, first: firstEnd + 2 - length, second };
}

/**
 * The queries of the repeat group (the positions that predict the second copy's tokens after its
 * first: rows second .. second + length - 2), each with the position an induction head looks at
 * (the token after the earlier occurrence of the query's token) and a duplicate-token head's (the
 * earlier occurrence itself), as the core's probes define them.
 */
export function repeatQueries({ length, first, second }) {
  const out = [];
  for (let q = second; q < second + length - 1; q += 1) {
    const earlier = q - (second - first);
    out.push({ query: q, duplicate: earlier, induction: earlier + 1 });
  }
  return out;
}

/** The held-out loss of a group ('first copy' or 'repeat') at every curve point: [{ step, value }]. */
export function lossSeries(curve, group) {
  return curve.map((p) => ({ step: p.step, value: p.heldOut.groups[group].loss }));
}

/** One head's role score `key` at every curve point: [{ step, value }]. */
export function scoreSeries(curve, layer, head, key) {
  return curve.map((p) => ({ step: p.step, value: p.roles[layer][head][key] }));
}

/**
 * The phase change of a curve ([{ step, heldOut }], the 2-layer model's): the first point where
 * the held-out loss on the repeat fell below half-way between the curve's first point and its
 * last, or null when the loss fell less than PHASE_MIN_DROP. Returns { step, loss, halfway,
 * start, end }.
 */
export function phaseChange(curve) {
  if (curve.length < 2) return null;
  const series = lossSeries(curve, 'repeat');
  const start = series[0].value;
  const end = series.at(-1).value;
  if (!(start - end >= PHASE_MIN_DROP)) return null;
  const halfway = (start + end) / 2;
  const at = series.find((p) => p.value < halfway);
  return { step: at.step, loss: at.value, halfway, start, end };
}

/**
 * How each head of a model reads on the shown sequence: for each repeat query, whether the head's
 * largest attention is on the induction target or on the duplicate target. maps: one Float32Array
 * (T x T, row-major) per head of one layer. Returns per head { induction, duplicate, queries }.
 */
export function hitsOnSequence(maps, sequence) {
  const queries = repeatQueries(sequence);
  const T = INDUCTION_TOKENS;
  return maps.map((map) => {
    let induction = 0;
    let duplicate = 0;
    for (const q of queries) {
      const row = map.subarray(q.query * T, q.query * T + T);
      let best = 0;
      for (let j = 1; j < T; j += 1) if (row[j] > row[best]) best = j;
      induction += best === q.induction;
      duplicate += best === q.duplicate;
    }
    return { induction, duplicate, queries: queries.length };
  });
}

const two = (v) => v.toFixed(2);
const listed = (items) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : items[0]);
const headList = (heads) => `head${heads.length > 1 ? 's' : ''} ${listed(heads.map((h) => h + 1))}`;
const isAre = (heads) => (heads.length > 1 ? 'are' : 'is');
// The heads of a layer that the core named `role`.
const named = (layer, role) => layer.flatMap((h, i) => (h.role === role ? [i] : []));
const best = (layer, key) => Math.max(...layer.map((h) => h[key]));
const range = (layer, heads, key) => {
  const values = heads.map((h) => layer[h][key]);
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  return lo.toFixed(2) === hi.toFixed(2) ? two(lo) : `${two(lo)}-${two(hi)}`;
};

/**
 * The account of how the two layers compose, from what the shown models measure (the textbook's
 * story only where the heads bear it out). one, two: { roles (per layer, per head, with the
 * core's role names), repeat and firstCopy (held-out losses at the end), steps }; phase:
 * phaseChange() of the 2-layer curve; hits: hitsOnSequence() of the 2-layer model's last layer.
 * Returns the paragraphs, plain text: the curves, the heads, how they compose.
 */
export function inductionAccount({ one, two: deep, phase, hits }) {
  const [l1, l2] = deep.roles;
  const induction = named(l2, 'induction');
  const duplicates = named(l1, 'duplicate token');
  const previous = named(l1, 'previous token');
  const drop = phase
    ? `drops at the phase change, step ${phase.step} (the first point below half-way from ${two(phase.start)} ` +
      `to ${two(phase.end)}), to ${two(deep.repeat)}`
    : `is ${two(deep.repeat)} at step ${deep.steps}: no phase change yet`;
  const paragraphs = [
    `With 2 layers the loss on the repeat ${drop}; with 1 layer it ends at ${two(one.repeat)}. On the first ` +
      `copy both stay near chance (${two(one.firstCopy)}, ${two(deep.firstCopy)}): random tokens cannot be predicted.`,
  ];
  // What the heads measure: the core's names and the held-out scores behind them.
  const parts = [];
  if (duplicates.length)
    parts.push(
      `layer 1's ${headList(duplicates)} ${isAre(duplicates)} duplicate token ` +
        `(${range(l1, duplicates, 'duplicate')}: from the repeat it looks at the earlier occurrence of the same token)`,
    );
  if (previous.length)
    parts.push(
      `layer 1's ${headList(previous)} ${isAre(previous)} previous token ` +
        `(${range(l1, previous, 'previousToken')}: each position looks at the one before)`,
    );
  else parts.push(`no head of layer 1 is previous token (best ${two(best(l1, 'previousToken'))})`);
  // The named induction head (or, with none, any head of layer 2) that hits most on the shown sequence.
  const candidates = induction.length ? induction : l2.map((_, h) => h);
  const top = hits?.length ? candidates.reduce((a, b) => (hits[b].induction > hits[a].induction ? b : a)) : -1;
  const shown =
    top >= 0
      ? `; on the shown sequence head ${top + 1} does so from ${hits[top].induction} of ${hits[top].queries} positions`
      : '';
  const layer2 = induction.length
    ? `layer 2's ${headList(induction)} ${isAre(induction)} induction (${range(l2, induction, 'induction')}): ` +
      `from the repeat they look at the token after that occurrence, the one to copy${shown}`
    : `no head of layer 2 is induction yet (best ${two(best(l2, 'induction'))})`;
  paragraphs.push(
    `Heads, measured on held-out sequences: ${parts.join('; ')}. Then ${layer2}. 1 layer has no induction ` +
      `head (best ${two(best(one.roles[0], 'induction'))}).`,
  );
  // How they compose, for the circuit these heads show (inferred from the scores: no ablation).
  if (induction.length && duplicates.length && !previous.length) {
    paragraphs.push(
      `So these layers compose through the duplicate-token head, not the textbook's previous-token head: ` +
        `layer 2 reads where the token occurred before and, with the learned positions, looks one further ` +
        `(Q-composition; inferred from the scores, no ablation run).`,
    );
  } else if (induction.length && previous.length) {
    paragraphs.push(
      `So these layers compose as in the textbook: the induction heads' keys read what the previous-token ` +
        `head wrote, the token before each position (K-composition; inferred from the scores, no ablation run).`,
    );
  } else if (induction.length) {
    paragraphs.push(`Layer 1 has no head with a clear role: how layer 2 finds its target is not read from the scores.`);
  }
  return paragraphs;
}
