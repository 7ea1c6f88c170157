// Weights DESIGNED for teaching (not trained): for the default sentence, the query of the last
// "it" should match the keys of "ball" and "catch". With one head the softmax row has to split
// between the two; with two heads, head 1 looks at "ball" and head 2 at "catch".
//
// Construction, per head h with target set S: w_h is the least-squares solution of X w = y over
// the distinct token vectors X, with y = 1 on S and 0 elsewhere (for |S| = 2 the two unit
// solutions are mixed so that both targets score exactly the same). Key column 0 of head h is
// w_h, query column 0 maps the query token's vector x to c (so q . k_j = c * (w_h . x_j)); every
// other query/key column is zero. c is chosen so the targets lead the best other token by
// SHARPNESS in the scaled scores. Values and W_out stay the seeded ones.
import { embedTokens, tokenKey } from '../../lecture/token-embeddings.js';
import { leastSquares, solve } from './linear-solve.js';
import { tokenize } from '../../lecture/tokenizer.js';
import { DEFAULT_SENTENCE } from '../../lecture/presets.js';

const SHARPNESS = 8;

function distinctRows(hw, tokens, dModel) {
  const keys = [...new Set(tokens.map(tokenKey))];
  const x = embedTokens(hw, keys, dModel);
  return { keys, rows: keys.map((_, i) => Array.from(x.subarray(i * dModel, (i + 1) * dModel))) };
}

function direction(rows, keys, targets) {
  const unit = targets.map((target) =>
    leastSquares(
      rows,
      keys.map((k) => (k === target ? 1 : 0)),
    ),
  );
  if (unit.some((w) => w === null)) return null;
  if (unit.length === 1) return unit[0];
  // Mix the unit solutions so every target gets exactly score 1.
  const at = (w, key) => rows[keys.indexOf(key)].reduce((s, v, i) => s + v * w[i], 0);
  const coeffs = solve(
    targets.map((t) => unit.map((w) => at(w, t))),
    targets.map(() => 1),
  );
  if (coeffs === null) return null;
  return unit[0].map((_, i) => unit.reduce((s, w, j) => s + coeffs[j] * w[i], 0));
}

/**
 * Designed Wq and Wk for a layer of width dModel and `heads` heads (head_dim = dModel / heads).
 * targetsPerHead: one array of target tokens per head, e.g. [['ball', 'catch']] or [['ball'], ['catch']].
 * @returns {{ wq: Float32Array, wk: Float32Array, margins: number[] } | null}
 */
export function designTeachingWeights(hw, tokens, queryToken, dModel, targetsPerHead) {
  const heads = targetsPerHead.length;
  const hd = dModel / heads;
  const { keys, rows } = distinctRows(hw, tokens, dModel);
  const query = rows[keys.indexOf(tokenKey(queryToken))];
  const queryNorm2 = query.reduce((s, v) => s + v * v, 0);
  const wq = new Float32Array(dModel * dModel);
  const wk = new Float32Array(dModel * dModel);
  const margins = [];
  for (let h = 0; h < heads; h += 1) {
    const targets = targetsPerHead[h].map(tokenKey);
    const w = direction(rows, keys, targets);
    if (w === null) return null;
    const y = rows.map((row) => row.reduce((s, v, i) => s + v * w[i], 0));
    const best = Math.min(...targets.map((t) => y[keys.indexOf(t)]));
    const rest = Math.max(...y.filter((_, i) => !targets.includes(keys[i])));
    const margin = best - rest;
    if (!(margin > 0)) return null;
    margins.push(margin);
    const c = (SHARPNESS * Math.sqrt(hd)) / margin;
    const column = h * hd;
    for (let i = 0; i < dModel; i += 1) {
      wq[i * dModel + column] = (query[i] * c) / queryNorm2;
      wk[i * dModel + column] = w[i];
    }
  }
  return { wq, wk, margins };
}

/** The width the why panel's designed weights are made at. */
export const WHY_WIDTH = 6;
// Which words the last "it" is given to look at: one head for both, or a head each.
const WHY_TARGETS = { one: [['ball', 'catch']], two: [['ball'], ['catch']] };

/**
 * The why panel's numbers: designed query and key weights at the lecture's width, one head against
 * two, run through the module on the lecture's sentence.
 */
export function whyRuns(hw, seed) {
  const { tokens } = tokenize(DEFAULT_SENTENCE);
  const T = tokens.length;
  const x = embedTokens(hw, tokens, WHY_WIDTH);
  const runs = {};
  for (const [name, targets] of Object.entries(WHY_TARGETS)) {
    const designed = designTeachingWeights(hw, tokens, 'it', WHY_WIDTH, targets);
    if (!designed) return { error: 'The teaching weights could not be designed for these token vectors.' };
    const config = { batch: 1, tokens: T, dModel: WHY_WIDTH, heads: targets.length, causal: true, seed };
    const layer = hw.createAttention(config);
    try {
      layer.setWeights({ wq: designed.wq, wk: designed.wk });
      const r = layer.forward(x, { intermediates: true });
      const lastRow = targets.map((_, h) => r.attention.slice((h * T + T - 1) * T, (h * T + T) * T));
      runs[name] = {
        heads: targets.length,
        attention: r.attention,
        scores: r.scores,
        lastRow,
        wq: designed.wq,
        wk: designed.wk,
      };
    } finally {
      layer.dispose();
    }
  }
  return { tokens, seed, runs };
}
