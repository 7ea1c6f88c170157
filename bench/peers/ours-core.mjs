// The same forward without the JS API: input written once, then only the module's runStep call
// (an Embind call into Model::run). The difference to peers/ours.mjs is the wrapper's cost.
// Uses the private core (web/core-loader.js) on purpose: this is a measurement, not an API.
import { loadCore } from '../../web/core-loader.js';

export async function prepare(c, data) {
  const core = await loadCore();
  // Ids by name from the core's own table.
  const { tensors, steps } = core.tensorTable();
  const id = (rows, name) => rows.find((row) => row.name === name).id;
  const [INPUT, OUTPUT, WQ, WK, WV, WOUT] = ['input', 'output', 'wq', 'wk', 'wv', 'wOut'].map((n) => id(tensors, n));
  const FORWARD_FUSED = id(steps, 'forwardFused');
  const options = { batch: c.batch, tokens: c.tokens, dModel: c.dModel, heads: c.heads, headDim: c.headDim ?? 0 };
  const defaults = Object.fromEntries(core.attentionOptionTable().map((row) => [row.name, row.default]));
  const handle = core.createModel({ ...defaults, ...options, causal: c.causal });
  if (handle === 0) throw new Error(core.lastError());
  for (const [id, array] of [
    [WQ, data.wq],
    [WK, data.wk],
    [WV, data.wv],
    [WOUT, data.wOut],
    [INPUT, data.x],
  ])
    core.tensorView(handle, id).set(array);
  return {
    run() {
      core.runStep(handle, FORWARD_FUSED);
    },
    output: () => core.tensorView(handle, OUTPUT).slice(),
  };
}
