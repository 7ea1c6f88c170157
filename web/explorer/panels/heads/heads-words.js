// The heads panel in words: why random heads look alike, what the trained model is and how its
// heads differ on the user's sentence, the Learn panel's run beside the maps, and the slide's point.
// Pure functions of what the panel draws (heads-panel.js), so the words say what the figures show.
import { SAMPLE_WORDS } from '../learn/learn-verdict.js';
import { looksText, readingText, skillsText } from './trained-heads.js';

const SAMPLE = SAMPLE_WORDS.join(' ');
/** Said over random heads: why they look alike, and what trained heads do. */
export const UNTRAINED =
  'These weights are random and untrained (seeded): that is why the maps look alike and spread their attention ' +
  `over many tokens. Trained heads each look for one thing: on "${SAMPLE}", one head at the latest verb ` +
  '("catch"), another at the latest noun ("ball"). Train them here, or turn "Random weights" off for the shipped ' +
  "model's trained heads.";
const two = (v) => v.toFixed(2);
// A head's highest role score: the one the core names it by when it is at least its threshold.
const topScore = (scores) => Math.max(...Object.values(scores).filter((v) => typeof v === 'number'));

// How the drawn heads differ, in words, from the numbers of headDifference (the drawn maps' rows
// from the lecture's "catch" and last "it"), each head by its role and its highest role score.
export function differenceText(view) {
  const { pairs } = view.difference;
  const scores = view.roles.map((r, h) => `head ${h + 1} ${two(topScore(r))}`).join(', ');
  const apart = pairs.map((p) => (pairs.length > 1 ? `${p.a + 1}-${p.b + 1}: ` : '') + two(p.distance));
  const last = view.difference.looks.at(-1);
  const distance =
    apart.length && last
      ? ` Their rows from "${last.word}" differ by ${apart.join(', ')} (total variation: 0 the same, 1 disjoint).`
      : '';
  return `${looksText(view.difference, view.roles)} Role scores: ${scores}.${distance}`;
}

// The same, briefly: each head's role and where it looks from the read rows.
export function briefDifference(view) {
  return looksText(view.difference, view.roles, { brief: true });
}

// The trained model in words: what it is, how it reads the sentence.
export function modelText(t) {
  const heads = `${t.heads} head${t.heads === 1 ? '' : 's'} of ${t.headDim}`;
  const what =
    `1 layer of ${heads}, width ${t.dModel}, trained ${t.steps} steps on lecture-like English: held-out ` +
    `accuracy ${skillsText(t.evaluation)}`;
  return `the shipped model ${t.name} (${what}). Your sentence, ${readingText(t.reading)}: "${t.words.join(' ')}".`;
}

// The 2-head run (the lecture's) before and after training, or the widest run if there is no 2-head one.
export const lectureRun = (learned) => learned.runs.find((r) => r.heads === 2) ?? learned.runs.at(-1);

// The Learn panel's run (or the trained model) beside the maps, in words.
export function learnedText(learned) {
  if (learned.checkpoint) {
    return `The trained model's ${learned.runs[0].heads} heads on your sentence, from "${learned.from}":`;
  }
  const run = lectureRun(learned);
  const words = learned.words;
  const found = run.trained.map((v, h) => {
    const at = v.indexOf(Math.max(...v));
    return `head ${h + 1} looks at "${words[at]}" (${v[at].toFixed(2)})`;
  });
  return (
    `Trained here: the same ${run.heads}-head model before and after ${learned.step} steps (width ` +
    `${learned.config.dModel}, seed ${learned.config.seed}), from "?" in the task's sample: random, the heads ` +
    `spread out; trained, ${found.join(', ')}. The T x T head maps still use random weights.`
  );
}

/** The slide's point (slide mode, panels/index.js): the dimension rule, then what each head draws. */
export function headsPoint(view) {
  const c = view.computed;
  if (!c?.config) return 'One attention map per head.';
  const v = view.view;
  // The trained heads: their shape, and where the antecedent head (else the first) looks from the
  // lead row (the lecture's "catch"), the drawn value.
  const look = v?.source === 'trained' ? v.difference.looks.find((r) => r.row === v.readRow) : null;
  if (look) {
    // One line on a 1280x720 slide (two lines left the maps 100 px tall).
    const named = v.roles.findIndex((r) => /antecedent/.test(r.role));
    const h = Math.max(0, named);
    const top = look.heads[h];
    return (
      `${v.dModel} = ${v.heads} x ${v.headDim}, trained: ` +
      `head ${h + 1} puts ${top.weight.toFixed(2)} of "${look.word}" on "${top.word}".`
    );
  }
  const { dModel, heads } = c.config;
  const t = c.trained;
  if (view.trainedInColumn && t?.trained) {
    return (
      `${dModel} = ${heads} x ${dModel / heads}: ${heads} heads. Trained, a small model's ` +
      `${t.dModel} = ${t.heads} x ${t.headDim} heads split the work:`
    );
  }
  const T = v?.tokens.length ?? c.config.tokens; // the tokens the maps draw
  if (heads === 1) return `${dModel} = 1 x ${dModel}: one head, its own ${T} x ${T} attention map.`;
  return `${dModel} = ${heads} x ${dModel / heads}: ${heads} heads, each its own ${T} x ${T} attention map.`;
}
