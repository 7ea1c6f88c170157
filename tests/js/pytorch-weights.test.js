// weightsFromPyTorch and its runnable example: PyTorch's (out x in) nn.MultiheadAttention weights
// give the double reference's output (the reference reads the PyTorch layout through its own
// transposition) and PyTorch's own printed numbers, within 1e-5 + 1e-5 |ref|.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { loadHeadwise, weightsFromPyTorch } from '../../web/headwise.js';
import { E, H, PYTORCH_OUTPUT, T, pytorch, run, x } from '../../examples/pytorch-weights.mjs';
import { referenceMha } from './reference.js';
import './matchers.js';

// (rows x cols) row-major -> its transpose, in doubles.
function transposed(m, rows, cols, rowOffset = 0) {
  const t = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = m[(rowOffset + r) * cols + c];
  return t;
}

test('the example computes what the double reference computes from the PyTorch layout', async () => {
  const w = {
    wq: transposed(pytorch.inProjWeight, E, E, 0),
    wk: transposed(pytorch.inProjWeight, E, E, E),
    wv: transposed(pytorch.inProjWeight, E, E, 2 * E),
    wOut: transposed(pytorch.outProjWeight, E, E),
    bq: pytorch.inProjBias.slice(0, E),
    bk: pytorch.inProjBias.slice(E, 2 * E),
    bv: pytorch.inProjBias.slice(2 * E),
    bOut: pytorch.outProjBias,
  };
  const config = { batch: 1, tokens: T, dModel: E, heads: H, headDim: E / H, causal: true };
  const output = await run();
  expect(output).toBeCloseToReference(referenceMha(config, w, x).output);
  expect(output).toBeCloseToReference(PYTORCH_OUTPUT);
});

test('the example runs with node and reports a difference below 1e-5', () => {
  const script = fileURLToPath(new URL('../../examples/pytorch-weights.mjs', import.meta.url));
  const printed = execFileSync('node', [script], { encoding: 'utf8' });
  const worst = Number(/largest difference from PyTorch's nn.MultiheadAttention: (\S+)/.exec(printed)[1]);
  expect(worst).toBeLessThan(1e-5);
});

test('weightsFromPyTorch checks what it is given', async () => {
  const hw = await loadHeadwise();
  const layer = hw.createAttention({ tokens: 2, dModel: 4, heads: 2 });
  const ok = { inProjWeight: new Float32Array(48), outProjWeight: new Float32Array(16) };
  expect(Object.keys(weightsFromPyTorch(ok, 4))).toEqual(['wq', 'wk', 'wv', 'wOut']);
  expect(() => weightsFromPyTorch({ ...ok, inProjWeight: new Float32Array(47) }, 4)).toThrow(
    new RangeError('inProjWeight must have 48 values ((12, 4)), got 47'),
  );
  expect(() => weightsFromPyTorch({ ...ok, in_proj_weight: 1 }, 4)).toThrow(TypeError);
  expect(() => weightsFromPyTorch(ok, 4.5)).toThrow(RangeError);
  // Biases need a layer with bias: true.
  const withBias = weightsFromPyTorch({ ...ok, inProjBias: new Float32Array(12) }, 4);
  expect(() => layer.setWeights(withBias)).toThrow(/unknown weight "bq"/);
  layer.setWeights(weightsFromPyTorch(ok, 4));
  layer.dispose();
});
