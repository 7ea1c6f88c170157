// forward(x) runs the fast attention kernels (short heads across SIMD lanes for T <= 16 and
// head_dim <= 8, else the tiled online-softmax kernel with 128-key tiles); forward(x,
// { intermediates: true }) and attend(..., { intermediates: true }) run the kernel that writes out
// full score rows. They may differ in the last bits; this holds them together, and to an
// independent double reference, within 1e-5 + 1e-5 |ref| on both sides of every kernel boundary.
import { beforeAll, describe, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { referenceMha } from './reference.js';
import './matchers.js';

const ATOL = 1e-5;
const RTOL = 1e-5;

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

const cases = [
  // [tokens, heads, headDim, kernel of the fast path]
  [16, 4, 8, 'lanes (short heads)'],
  [17, 4, 8, 'tiled'],
  [16, 4, 9, 'tiled'],
  [1, 3, 8, 'lanes (short heads)'],
  [127, 2, 64, 'tiled, one partial key tile'],
  [128, 2, 64, 'tiled, one whole key tile'],
  [129, 2, 64, 'tiled, a second tile of one key'],
  [256, 2, 16, 'tiled, two tiles'],
  [257, 2, 16, 'tiled, a third tile'],
  [200, 1, 3, 'tiled, narrow head'],
];

describe.each([true, false])('causal %s', (causal) => {
  test.each(cases)('T=%i, H=%i, hd=%i (%s): fast path == intermediates path == reference', (tokens, heads, headDim) => {
    const config = { batch: 2, tokens, dModel: heads * headDim, heads, causal, bias: true, seed: tokens };
    const layer = hw.createAttention(config);
    const x = hw.randomInput(layer.config, tokens + 1);
    const ref = referenceMha(layer.config, layer.getWeights(), x);
    const fast = layer.forward(x);
    const full = layer.forward(x, { intermediates: true });
    expect(fast).toBeCloseToReference(full.output, ATOL, RTOL);
    expect(fast).toBeCloseToReference(ref.output, ATOL, RTOL);
    expect(full.output).toBeCloseToReference(ref.output, ATOL, RTOL);
    // The attention step alone: the fast kernel's context against the score-row kernel's.
    const split = layer.split(layer.project(x));
    const fastContext = layer.attend(split).context;
    const fullContext = layer.attend(split, { intermediates: true }).context;
    expect(fastContext).toBeCloseToReference(fullContext, ATOL, RTOL);
    expect(fastContext).toBeCloseToReference(ref.context, ATOL, RTOL);
    expect(fullContext).toBeCloseToReference(full.context, 0, 0);
    layer.dispose();
  });
});
