// The same forward without the JS API: input written once, then only the module's runStep call
// (an Embind call into Model::run). The difference to peers/ours.mjs is the wrapper's cost.
// Uses the private core (web/core-loader.js) on purpose: this is a measurement, not an API.
import { loadCore } from '../../web/core-loader.js';

const FORWARD_FUSED = 5,
  INPUT = 8,
  OUTPUT = 19,
  WQ = 0,
  WK = 1,
  WV = 2,
  WOUT = 3;

export async function prepare(c, data) {
  const core = await loadCore();
  const handle = core.createModel(c.batch, c.tokens, c.dModel, c.heads, c.headDim, c.causal, false, 0, 0);
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
