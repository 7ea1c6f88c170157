// The benchmark's shapes: the toy input, GPT-2 width at T = 128 to 8192, and the lecture's heads
// sweep (2 to 4000 heads of 3 on width 6). Every case is causal, without biases.
const gpt2 = (tokens) => ({ name: `gpt2-T${tokens}`, batch: 1, tokens, dModel: 768, heads: 12 });
const toyHeads = (heads) => ({ name: `heads-${heads}`, batch: 2, tokens: 6, dModel: 6, heads, headDim: 3 });

export const CASES = [
  { name: 'toy', batch: 2, tokens: 6, dModel: 6, heads: 2 },
  gpt2(128),
  gpt2(512),
  gpt2(1024),
  gpt2(4096),
  gpt2(8192),
  toyHeads(2),
  toyHeads(16),
  toyHeads(128),
  toyHeads(1000),
  toyHeads(4000),
].map((c) => ({ ...c, headDim: c.headDim ?? c.dModel / c.heads, causal: true }));

// Multiply-adds x 2 of the projections, the causal half of QK^T and PV, and W_out.
export function flopsOf({ batch: B, tokens: T, dModel: D, heads: H, headDim: hd }) {
  const C = H * hd;
  return 2 * B * T * D * C * 3 + (2 * 2 * B * H * hd * (T * (T + 1))) / 2 + 2 * B * T * C * D;
}

// The case as a headwise configuration.
export const layerConfig = ({ batch, tokens, dModel, heads, headDim, causal }) => ({
  batch,
  tokens,
  dModel,
  heads,
  headDim,
  causal,
});
