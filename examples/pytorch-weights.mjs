// Loading weights saved from PyTorch's nn.MultiheadAttention into headwise.
//   node examples/pytorch-weights.mjs        (after npm run build, or from the installed package)
// PyTorch keeps in_proj_weight (3E, E) and out_proj.weight (E, E) as (out x in) matrices;
// weightsFromPyTorch turns them into headwise's (in x out) wq, wk, wv, wOut and splits the biases.
// The expected numbers were printed by PyTorch 1.13 for the same weights and input
// (examples/pytorch-weights.py); the example prints the largest difference.
import { loadHeadwise, weightsFromPyTorch } from '../web/headwise.js';

export const E = 8;
export const H = 2;
export const T = 5;

// Small exact decimals, the same formula in the Python script.
export const pattern = (count, a, b) => Float32Array.from({ length: count }, (_, i) => (((i * a + b) % 17) - 8) / 16);

// In a real program these come from your model, e.g. mha.in_proj_weight.detach().numpy().ravel().
export const pytorch = {
  inProjWeight: pattern(3 * E * E, 7, 3),
  inProjBias: pattern(3 * E, 5, 1),
  outProjWeight: pattern(E * E, 11, 2),
  outProjBias: pattern(E, 3, 4),
};
export const x = pattern(T * E, 13, 5);

// mha(x, x, x, attn_mask=torch.triu(ones(T, T), 1).bool()) in PyTorch 1.13.1, batch_first, (1, T, E).
export const PYTORCH_OUTPUT = [
  -0.1416016, 0.2077637, -0.5053711, -0.1560059, 0.6166992, -0.2749023, -0.02514648, 0.942627, -0.2903591, 0.04049978,
  -0.6003309, -0.269472, 0.854745, -0.1498039, -0.1800727, 0.8895304, -0.3677205, -0.0529329, -0.5490879, -0.2343003,
  0.915741, -0.1149395, -0.2627912, 0.7316148, -0.3779353, -0.09520724, -0.4343276, -0.1515995, 0.8826997, -0.1255965,
  -0.2836926, 0.5440813, -0.3968505, -0.1241719, -0.3743414, -0.1016628, 0.9053465, -0.1757648, -0.3059576, 0.4345687,
];

export async function run() {
  const hw = await loadHeadwise();
  const layer = hw.createAttention({ batch: 1, tokens: T, dModel: E, heads: H, bias: true, causal: true });
  layer.setWeights(weightsFromPyTorch(pytorch, E));
  const output = layer.forward(x);
  layer.dispose();
  return output;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const output = await run();
  const worst = Math.max(...Array.from(output, (v, i) => Math.abs(v - PYTORCH_OUTPUT[i])));
  console.log(`headwise output (1, ${T}, ${E}):`, Array.from(output.slice(0, E), (v) => v.toFixed(6)).join(' '), '...');
  console.log(`largest difference from PyTorch's nn.MultiheadAttention: ${worst.toExponential(2)}`);
}
