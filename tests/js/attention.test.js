// The module, through the public JS API, against a double-precision reference written here.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { referenceMha } from './reference.js';
import './matchers.js';

const CASES = [
  ['lecture (2,6,6), 2 heads', { batch: 2, tokens: 6, dModel: 6, heads: 2 }],
  ['lecture without the mask', { batch: 2, tokens: 6, dModel: 6, heads: 2, causal: false }],
  ['lecture with biases', { batch: 2, tokens: 6, dModel: 6, heads: 2, bias: true }],
  ['GPT-2 width, T=1', { tokens: 1, dModel: 768, heads: 12 }],
  ['GPT-2 width, T=17, biases', { tokens: 17, dModel: 768, heads: 12, bias: true }],
  ['GPT-2 width, T=48', { tokens: 48, dModel: 768, heads: 12 }],
  ['T=1', { batch: 3, tokens: 1, dModel: 8, heads: 2 }],
  ['H=1', { batch: 2, tokens: 9, dModel: 10, heads: 1 }],
  ['head_dim 1', { batch: 2, tokens: 5, dModel: 7, heads: 7 }],
  ['head_dim 3, 40 heads on width 6', { batch: 2, tokens: 6, dModel: 6, heads: 40, headDim: 3 }],
  ['head_dim 5, no mask, biases', { batch: 3, tokens: 11, dModel: 15, heads: 3, causal: false, bias: true }],
  ['head_dim 17', { batch: 2, tokens: 13, dModel: 34, heads: 2 }],
  ['head_dim 17 on width 9', { batch: 2, tokens: 19, dModel: 9, heads: 3, headDim: 17, causal: false }],
  ['B=4, odd sizes', { batch: 4, tokens: 33, dModel: 21, heads: 7, bias: true }],
];

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});
afterAll(() => expect(hw.liveLayers()).toBe(0));

function withLayer(config, body) {
  const layer = hw.createAttention({ seed: 7, ...config });
  try {
    return body(layer);
  } finally {
    layer.dispose();
  }
}

describe.each(CASES)('%s', (_, config) => {
  test('fused and loop match the reference, intermediates included', () =>
    withLayer(config, (layer) => {
      const x = hw.randomInput(layer.config, 1);
      const ref = referenceMha(layer.config, layer.getWeights(), x);
      const fused = layer.forward(x, { intermediates: true });
      for (const name of ['q', 'k', 'v', 'scores', 'attention', 'context', 'concat', 'output']) {
        expect(fused[name], name).toBeCloseToReference(ref[name]);
      }
      const loop = layer.forwardLoop(x, { intermediates: true });
      for (const name of ['q', 'k', 'v', 'scores', 'attention', 'context', 'concat', 'output']) {
        expect(loop[name], `loop ${name}`).toBeCloseToReference(ref[name]);
      }
      expect(layer.forwardLoop(x)).toBeCloseToReference(layer.forward(x));
    }));

  test('the five steps called one by one give the whole pass', () =>
    withLayer(config, (layer) => {
      const x = hw.randomInput(layer.config, 2);
      const projected = layer.project(x);
      const heads = layer.split(projected);
      const { context } = layer.attend(heads);
      const concat = layer.merge(context);
      const output = layer.outProject(concat);
      expect(Array.from(output)).toEqual(Array.from(layer.forward(x)));
      expect(projected.q.length).toBe(layer.shapes.projected.reduce((a, b) => a * b));
      expect(context.length).toBe(layer.shapes.heads.reduce((a, b) => a * b));
    }));
});

test('weights set by the caller are the ones used', () =>
  withLayer({ batch: 1, tokens: 3, dModel: 4, heads: 2 }, (layer) => {
    const x = hw.randomInput(layer.config, 5);
    const eye = new Float32Array(16).map((_, i) => (i % 5 === 0 ? 1 : 0));
    layer.setWeights({ wq: eye, wk: eye, wv: eye, wOut: eye });
    const w = layer.getWeights();
    expect(Array.from(w.wq)).toEqual(Array.from(eye));
    const out = layer.forward(x);
    expect(out).toBeCloseToReference(referenceMha(layer.config, w, x).output);
    // With identity weights and the causal mask, the first token attends only to itself: y0 = x0.
    expect(out.subarray(0, 4)).toBeCloseToReference(x.subarray(0, 4));
  }));

test('results are copies, not views into wasm memory', () =>
  withLayer({ tokens: 4 }, (layer) => {
    const x = hw.randomInput(layer.config, 3);
    const first = layer.forward(x);
    const kept = first.slice();
    layer.forward(hw.randomInput(layer.config, 4));
    const big = hw.createAttention({ tokens: 512, dModel: 256, heads: 4 }); // grows wasm memory
    big.dispose();
    expect(first.buffer).not.toBe(layer.forward(x).buffer);
    expect(Array.from(first)).toEqual(Array.from(kept));
  }));

test('the same seed gives the same weights and outputs; another seed does not', () => {
  const a = hw.createAttention({ seed: 42 }),
    b = hw.createAttention({ seed: 42 }),
    c = hw.createAttention({ seed: 43 });
  const x = hw.randomInput(a.config, 9);
  expect(Array.from(a.forward(x))).toEqual(Array.from(b.forward(x)));
  expect(Array.from(a.forward(x))).not.toEqual(Array.from(c.forward(x)));
  [a, b, c].forEach((layer) => layer.dispose());
});
