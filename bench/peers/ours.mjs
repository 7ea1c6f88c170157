// headwise through its public JS API (copies in and out included), fused or loop.
import { loadHeadwise } from '../../web/headwise.js';

export async function prepare(c, data, variant) {
  const hw = await loadHeadwise();
  const layer = hw.createAttention({
    batch: c.batch,
    tokens: c.tokens,
    dModel: c.dModel,
    heads: c.heads,
    headDim: c.headDim,
    causal: c.causal,
  });
  layer.setWeights({ wq: data.wq, wk: data.wk, wv: data.wv, wOut: data.wOut });
  let output;
  return {
    run() {
      output = layer.forward(data.x, { variant });
    },
    output: () => output,
    extra: () => ({ wasmMemoryBytes: hw.memoryStats().wasmMemoryBytes }),
  };
}
