// Word order's numbers: the same words in two orders through one layer, at a width and an input
// scale at which the four words' outputs clearly differ from one another (at the toy width 6 with
// vectors in +-1 the attention is nearly uniform and every output is nearly the same average: 1.4%
// of the outputs' scale apart; here about 25%), and for each position kind what the core computed
// where it enters. The panel's own options (order-mask, order-positions) choose the run.
import { tokenize } from '../../lecture/tokenizer.js';
import { embedTokens, tokenKey } from '../../lecture/token-embeddings.js';
import { largestAbs, maxAbsDiff, rowOf } from '../../arrays.js';

export const ORDER_SENTENCES = Object.freeze(['All dogs are animals', 'All animals are dogs']);
export const ORDER_WIDTH = 16;
export const ORDER_HEADS = 2;
export const ORDER_INPUT_SCALE = 4;
// Positions shown beyond the sentence: PE(i) . PE(j) against |i - j| over this many, and the
// shift of RoPE's offset check.
export const ORDER_TABLE_TOKENS = 24;
export const ORDER_ROPE_SHIFT = 5;

// A kind as the core describes it ({ name, label, entersAt, learnedTable, about }); an unknown name
// enters nowhere (the layer has refused it already).
const kindOf = (hw, name) =>
  hw.positionKinds().find((kind) => kind.name === name) ?? { name, label: name, entersAt: 'nowhere', about: '' };

// The same words in two orders, through one layer; row i of each comparison is word a[i]. With
// the mask and positions off, the claim's numbers; for each kind, what the core computed where
// it enters (the rows added to x, RoPE's scores at two offsets, ALiBi's bias).
export function orderNumbers({ hw, withLayer }, { seed, causal, positions }) {
  const [a, b] = ORDER_SENTENCES.map((s) => tokenize(s).tokens);
  const T = a.length;
  const dModel = ORDER_WIDTH;
  const heads = ORDER_HEADS;
  const input = (tokens) => embedTokens(hw, tokens, dModel).map((v) => v * ORDER_INPUT_SCALE);
  const config = { batch: 1, tokens: T, dModel, heads, causal, seed, positions };
  const pair = (c) =>
    withLayer(c, (layer) => [a, b].map((tokens) => layer.forward(input(tokens), { intermediates: true })));
  const [runA, runB] = pair(config);
  const compare = (outA, outB) => {
    const keysB = b.map(tokenKey);
    return a.map((word, i) => {
      const j = keysB.indexOf(tokenKey(word));
      return { word, inA: i, inB: j, maxDiff: maxAbsDiff(rowOf(outA, i, dModel), rowOf(outB, j, dModel)) };
    });
  };
  const perWord = compare(runA.output, runB.output);
  const positionKind = kindOf(hw, positions);
  const maxDiff = Math.max(...perWord.map((w) => w.maxDiff));
  // The claim, always: no mask, no positions.
  const plain = causal || positions !== 'none' ? pair({ ...config, causal: false, positions: 'none' }) : [runA, runB];
  const claimWords = compare(plain[0].output, plain[1].output);
  let wordGap = Infinity; // the closest two different words' outputs (first sentence)
  for (let i = 0; i < T; i += 1)
    for (let j = i + 1; j < T; j += 1)
      wordGap = Math.min(wordGap, maxAbsDiff(rowOf(plain[0].output, i, dModel), rowOf(plain[0].output, j, dModel)));
  const claim = {
    maxDiff: Math.max(...claimWords.map((w) => w.maxDiff)),
    scale: Math.max(largestAbs(plain[0].output), largestAbs(plain[1].output)),
    wordGap,
  };
  return {
    sentences: [...ORDER_SENTENCES],
    tokens: { a, b },
    config,
    positions,
    inputScale: ORDER_INPUT_SCALE,
    outputA: runA.output,
    outputB: runB.output,
    perWord,
    maxDiff,
    claim,
    entersAt: positionKind.entersAt,
    positionKind,
    kind: kindView({ withLayer }, positionKind.entersAt, config, runA, input(a)),
    kinds: hw.positionKinds(),
  };
}

// What the page draws for one kind, as the core computed it.
function kindView({ withLayer }, entersAt, config, run, x) {
  const { tokens: T, heads: H, dModel } = config;
  if (entersAt === 'input') {
    const n = ORDER_TABLE_TOKENS;
    const table = withLayer(
      { ...config, tokens: n },
      (layer) => layer.forward(new Float32Array(n * dModel), { intermediates: true }).positions,
    );
    const dots = new Float32Array(n * n);
    for (let i = 0; i < n; i += 1)
      for (let j = 0; j < n; j += 1) {
        let s = 0;
        for (let d = 0; d < dModel; d += 1) s += table[i * dModel + d] * table[j * dModel + d];
        dots[i * n + j] = s;
      }
    return { positions: run.positions, table, tableTokens: n, dots };
  }
  if (entersAt === 'queries and keys') {
    // The sentence at positions 0..T-1 and again after ORDER_ROPE_SHIFT zero vectors.
    const shift = ORDER_ROPE_SHIFT;
    const shifted = new Float32Array((T + shift) * dModel);
    shifted.set(x, shift * dModel);
    const moved = withLayer(
      { ...config, tokens: T + shift },
      (layer) => layer.forward(shifted, { intermediates: true }).scores,
    );
    const n = T + shift;
    const scoresShifted = new Float32Array(H * T * T);
    for (let h = 0; h < H; h += 1)
      for (let i = 0; i < T; i += 1)
        for (let j = 0; j < T; j += 1) scoresShifted[(h * T + i) * T + j] = moved[(h * n + shift + i) * n + shift + j];
    let maxShiftDiff = 0; // over the entries the mask leaves (masked ones are -Infinity in both)
    run.scores.forEach((v, k) => {
      if (Number.isFinite(v)) maxShiftDiff = Math.max(maxShiftDiff, Math.abs(v - scoresShifted[k]));
    });
    return { shift, scores: run.scores, scoresShifted, maxShiftDiff };
  }
  if (entersAt === 'scores') {
    const slopes = Array.from({ length: H }, (_, h) => -run.scoreBias[h * T * T + 1]); // bias of distance 1
    return { scoreBias: run.scoreBias, slopes };
  }
  return {};
}
