// What a Learn model answers on its held-out set: the share of answers with the right verb and the
// share with the right noun (a 1-head model that looks at one word gets that one right and guesses
// the other). The trainer API gives only the accuracy, so until the core returns its predictions
// this runs the model's forward at "?" (wasm/core/train/classifier.hpp) in JavaScript from
// getWeights(); tests/js/learn-answers.test.js checks that its answers give evaluate()'s accuracy.
// Pure module: no DOM, no wasm.
import { evalSet, TOKENS } from '../train-task.js';

const LAST = TOKENS - 1;

// y (n) = x (m) @ W (m, n) + b (n), W row-major; into `y` when given.
function affine(x, w, b, n, y = new Float64Array(n)) {
  for (let j = 0; j < n; j += 1) y[j] = b ? b[j] : 0;
  for (let i = 0; i < x.length; i += 1) {
    const xi = x[i];
    if (xi === 0) continue;
    for (let j = 0, at = i * n; j < n; j += 1) y[j] += xi * w[at + j];
  }
  return y;
}

// rows (r, m) @ W (m, n) (+ b), row by row: a table of projected embeddings (r, n).
function table(rows, r, m, w, b, n) {
  const out = new Float64Array(r * n);
  for (let i = 0; i < r; i += 1) affine(rows.subarray(i * m, (i + 1) * m), w, b, n, out.subarray(i * n, (i + 1) * n));
  return out;
}

/**
 * weights: getWeights() of a trainer; options: its options. Returns { answers, rightVerb,
 * rightNoun, right }: shares of the held-out answers (evalSize sequences of the training seed's
 * held-out generator) whose class has the right verb, the right noun, both (the accuracy).
 * For the 'verb' variant the class is the verb: rightNoun is null.
 */
export function answerShares(weights, options) {
  return sharesOf(answerCounts(weights, options, 0, options.evalSize), options.variant);
}

/** The shares of answerShares() from the counts of answerCounts(), summed over its ranges. */
export function sharesOf({ n, verbs, nouns, both }, variant) {
  return { answers: n, rightVerb: verbs / n, rightNoun: variant === 'verb' ? null : nouns / n, right: both / n };
}

/**
 * The counts behind answerShares() for held-out sequences from..to-1 only (so that a page can
 * spread the work over frames): { n, verbs, nouns, both }.
 */
export function answerCounts(weights, options, from, to) {
  const { heads: H, dModel: D, mlpWidth: M, seed, evalSize, variant } = options;
  const K = variant === 'verb' ? 8 : 64;
  const hd = D / H;
  const scale = 1 / Math.sqrt(hd);
  const w = Object.fromEntries(Object.entries(weights).map(([name, v]) => [name, Float64Array.from(v ?? [])]));
  const V = w.tokenEmbedding.length / D;
  // x0 = token + position embedding, so x0 @ W + b = (token @ W) + (position @ W + b).
  const project = (name) => ({
    token: table(w.tokenEmbedding, V, D, w[`w${name}`], null, D),
    position: table(w.positionEmbedding, TOKENS, D, w[`w${name}`], w[`b${name}`], D),
  });
  const [pq, pk, pv] = ['q', 'k', 'v'].map(project);
  const { tokens, targets } = evalSet(seed, evalSize, variant);
  const [xq, q, context, h1, h2] = [0, 0, 0, 0, 0].map(() => new Float64Array(D));
  const hidden = new Float64Array(M);
  const logits = new Float64Array(K);
  const scores = new Float64Array(TOKENS);
  let verbs = 0;
  let nouns = 0;
  let both = 0;
  for (let s = from; s < Math.min(to, evalSize); s += 1) {
    const words = tokens.subarray(s * TOKENS, (s + 1) * TOKENS);
    const last = words[LAST];
    for (let d = 0; d < D; d += 1) {
      xq[d] = w.tokenEmbedding[last * D + d] + w.positionEmbedding[LAST * D + d];
      q[d] = pq.token[last * D + d] + pq.position[LAST * D + d];
      context[d] = 0;
    }
    for (let h = 0; h < H; h += 1) {
      let max = -Infinity;
      for (let t = 0; t < TOKENS; t += 1) {
        let dot = 0;
        const [kw, kt] = [words[t] * D, t * D];
        for (let d = h * hd; d < (h + 1) * hd; d += 1) dot += q[d] * (pk.token[kw + d] + pk.position[kt + d]);
        scores[t] = dot * scale;
        max = Math.max(max, scores[t]);
      }
      let sum = 0;
      for (let t = 0; t < TOKENS; t += 1) sum += scores[t] = Math.exp(scores[t] - max);
      for (let t = 0; t < TOKENS; t += 1) {
        const p = scores[t] / sum;
        const [vw, vt] = [words[t] * D, t * D];
        for (let d = h * hd; d < (h + 1) * hd; d += 1) context[d] += p * (pv.token[vw + d] + pv.position[vt + d]);
      }
    }
    affine(context, w.wOut, w.bOut, D, h1);
    for (let d = 0; d < D; d += 1) h1[d] += xq[d];
    affine(h1, w.w1, w.b1, M, hidden);
    for (let m = 0; m < M; m += 1) hidden[m] = Math.max(hidden[m], 0);
    affine(hidden, w.w2, w.b2, D, h2);
    for (let d = 0; d < D; d += 1) h2[d] += h1[d];
    affine(h2, w.wReadout, w.bReadout, K, logits);
    let best = 0;
    for (let c = 1; c < K; c += 1) if (logits[c] > logits[best]) best = c;
    const target = targets[s];
    verbs += variant === 'verb' ? best === target : Math.floor(best / 8) === Math.floor(target / 8);
    nouns += variant !== 'verb' && best % 8 === target % 8;
    both += best === target;
  }
  return { n: Math.max(0, Math.min(to, evalSize) - from), verbs, nouns, both };
}
