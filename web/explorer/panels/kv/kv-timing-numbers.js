// "Time generation" of the kv panel, its numbers: what is timed (the plan), the work of each request
// (for the worker's deadline), and the measured milliseconds turned into the figure's rows and the
// panel's words. Pure module (no DOM, no module, no worker): kv-timing.js runs the plan in a worker.
/** GPT-2 small's attention width, one layer, batch 1, causal (its weights drawn from the seed). */
export const GENERATION_CONFIG = Object.freeze({ batch: 1, dModel: 768, heads: 12, causal: true, seed: 1 });
/** The context lengths timed, up to GPT-2's 1,024. */
export const GENERATION_TOKENS = Object.freeze([128, 256, 512, 1024]);
/** Decode steps timed at each T (positions T .. T + DECODES_TIMED - 1): their median is the figure's. */
export const DECODES_TIMED = 16;
/** Forward passes over T tokens timed at each T: their median is the figure's. */
export const FORWARD_REPEATS = 3;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * The requests, in order, for context lengths `tokens` (ascending): one layer's cache is filled by
 * decode steps up to each T ('fill', untimed in the figure), the next DECODES_TIMED steps timed
 * ('decode'), and a layer of T tokens runs its forward pass FORWARD_REPEATS times ('forward').
 */
export function generationPlan(tokens = GENERATION_TOKENS) {
  const plan = [];
  let at = 0;
  for (const T of tokens) {
    if (T > at) plan.push({ kind: 'fill', T, from: at, to: T });
    plan.push({ kind: 'decode', T, from: T, to: T + DECODES_TIMED });
    plan.push({ kind: 'forward', T });
    at = T + DECODES_TIMED;
  }
  return plan;
}

/** The positions the decoding layer must hold for `tokens`. */
export const decodeCapacity = (tokens = GENERATION_TOKENS) => Math.max(...tokens) + DECODES_TIMED;

/**
 * Multiply-adds, for deadlines: decode steps at positions [from, to) (four d x d products and a
 * row of scores and of weighted values over the position's keys), or one causal forward over T.
 */
export function decodeWork(from, to, d = GENERATION_CONFIG.dModel) {
  let work = 0;
  for (let p = from; p < to; p += 1) work += 4 * d * d + 2 * (p + 1) * d;
  return work;
}
export const forwardWork = (T, d = GENERATION_CONFIG.dModel) => 4 * T * d * d + T * T * d;

/**
 * measured: [{ T, decodeMs: [DECODES_TIMED], forwardMs: [FORWARD_REPEATS] }] -> per T { T,
 * cachedMs, forwardMs (medians), cachedPerSecond, forwardPerSecond (tokens a second, 1000 / ms),
 * ratio (forwardMs / cachedMs) }.
 */
export function generationRows(measured) {
  return measured.map(({ T, decodeMs, forwardMs }) => {
    const cached = median(decodeMs);
    const forward = median(forwardMs);
    return {
      T,
      cachedMs: cached,
      forwardMs: forward,
      cachedPerSecond: 1000 / cached,
      forwardPerSecond: 1000 / forward,
      ratio: forward / cached,
    };
  });
}

/** How many times faster, as said: "84x" (3 significant digits below 10: "4.27x"). */
export const ratioText = (ratio) => `${ratio >= 10 ? Math.round(ratio) : Number(ratio.toPrecision(3))}x`;
/** Milliseconds, as said: 2.07, 176, 1040. */
export const msText = (ms) => (ms >= 100 ? String(Math.round(ms)) : String(Number(ms.toPrecision(3))));
/** Tokens a second, as said: 482, 5.68. */
export const rateText = (perSecond) =>
  perSecond >= 100 ? String(Math.round(perSecond)) : String(Number(perSecond.toPrecision(3)));

/** The panel's words for rows (generationRows), with the caveat; cores: the machine's, when known. */
export function generationSentence(rows, { cores } = {}) {
  const last = rows.at(-1);
  const first = rows[0];
  const at = (r) =>
    `at T ${r.T} the next token takes ${msText(r.cachedMs)} ms with the KV cache ` +
    `(${rateText(r.cachedPerSecond)} tokens/s) and ${msText(r.forwardMs)} ms without it, a forward pass ` +
    `over all ${r.T} tokens (${rateText(r.forwardPerSecond)} tokens/s): ${ratioText(r.ratio)} faster with the cache`;
  const more = rows.length > 1 ? `; at T ${first.T}, ${ratioText(first.ratio)}` : '';
  const machine = cores ? ` (${cores} logical cores here)` : '';
  return (
    `At GPT-2 width (dModel ${GENERATION_CONFIG.dModel}, ${GENERATION_CONFIG.heads} heads, one layer, batch 1), ` +
    `${at(last)}${more}. Measured just now in a worker of this tab, wall-clock ms on its clock: the cache filled ` +
    `to T by decode steps, then the median of the next ${DECODES_TIMED}; the median of ${FORWARD_REPEATS} forward ` +
    `passes over T tokens. Whatever else this machine runs${machine} ` +
    'slows both sides: compare the two, not the numbers with another machine.'
  );
}
