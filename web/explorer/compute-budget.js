// The largest layer the page computes. Each call into the module is one task the page cannot
// split: creating a layer draws its 4 x d_model^2 seeded weights, and a forward pass is four
// (T x d_model) by (d_model x d_model) products. Above these limits one call keeps the page from
// answering for more than about 100 ms (in Chromium on a 2-core machine, width 4096 takes 250-600 ms
// to create and 85 ms per forward pass), so the page shows the shapes and says why instead.
// The module's own memory budget (which refuses GPT-3) still applies below them.

/** The widest layer the page computes (at a head_dim of width / heads). */
export const PAGE_MAX_WIDTH = 1024;

export const PAGE_BUDGET = Object.freeze({
  /** Weights of one layer: 4 x 1024^2, the layer of width PAGE_MAX_WIDTH. */
  weights: 4 * PAGE_MAX_WIDTH ** 2,
  /** Multiply-adds of one forward pass: about 64 tokens at width 1024, or 118 at GPT-2's 768. */
  multiplyAdds: 300_000_000,
  /** Attention weights (batch x heads x T x T), copied out and drawn: 2 heads of 512 tokens. */
  attentionCells: 2 * 512 * 512,
});

const count = (n) => n.toLocaleString('en-US');

/** Weights of a layer: W_q, W_k, W_v (d_model x H*hd) and W_out (H*hd x d_model). */
export const layerWeights = ({ dModel, concatWidth }) => 4 * dModel * concatWidth;

/** Multiply-adds of one forward pass: the four products, then q k^T and attention @ v per head. */
export function forwardMultiplyAdds({ batch, tokens, dModel, concatWidth }) {
  return batch * (4 * tokens * dModel * concatWidth + 2 * tokens * tokens * concatWidth);
}

/** Attention weights of one forward pass: a T x T map per sentence and head. */
export const attentionCells = ({ batch, heads, tokens }) => batch * heads * tokens * tokens;

const withinWork = (c) =>
  forwardMultiplyAdds(c) <= PAGE_BUDGET.multiplyAdds && attentionCells(c) <= PAGE_BUDGET.attentionCells;

// The most tokens whose forward pass fits the budget for this width and these heads (0 if none).
function tokensWithin(config) {
  let tokens = 0;
  while (withinWork({ ...config, tokens: tokens + 1 })) tokens += 1;
  return tokens;
}

/**
 * null if the page computes this configuration, else why not, naming the limit. config: { batch,
 * tokens, dModel, heads, headDim? } as the module takes it (already valid for the module).
 */
export function pageBudgetProblem(config) {
  const headDim = config.headDim ?? config.dModel / config.heads;
  const c = { ...config, concatWidth: config.heads * headDim };
  const weights = layerWeights(c);
  if (weights > PAGE_BUDGET.weights) {
    return (
      `width ${c.dModel} has ${count(weights)} weights; this page computes layers of up to ` +
      `${count(PAGE_BUDGET.weights)} (width ${PAGE_MAX_WIDTH}), since a larger one freezes it for a quarter ` +
      `of a second or more; the npm API (createAttention) computes it`
    );
  }
  if (withinWork(c)) return null;
  const fit = `at this size it computes up to ${tokensWithin(c)} tokens (shorten the sentence)`;
  const work = forwardMultiplyAdds(c);
  if (work > PAGE_BUDGET.multiplyAdds) {
    return (
      `a forward pass of ${c.tokens} tokens at width ${c.dModel} is ${count(work)} multiply-adds, more than the ` +
      `${count(PAGE_BUDGET.multiplyAdds)} this page computes in one go; ${fit}`
    );
  }
  const batch = c.batch > 1 ? { count: `${c.batch} sentences x `, shape: 'sentences x ' } : { count: '', shape: '' };
  const heads = `${c.heads} head${c.heads === 1 ? '' : 's'}`;
  return (
    `${batch.count}${heads} over ${c.tokens} tokens make ${count(attentionCells(c))} attention weights ` +
    `(${batch.shape}heads x T x T), more than the ${count(PAGE_BUDGET.attentionCells)} (2 heads of 512 tokens) ` +
    `this page computes and draws in one go; ${fit}`
  );
}
