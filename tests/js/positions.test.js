// createAttention({ positions }): each kind against its definition written here in plain double
// loops, entering where its paper puts it (x + PE before Wq, Wk, Wv; q and k rotated; a bias on
// the scores), and what makes each one work (RoPE's scores depend only on the offset; ALiBi's
// bias is linear in distance with a slope per head; PE(i) . PE(j) depends only on |i - j|).
import { beforeAll, expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import { referenceMha } from './reference.js';
import './matchers.js';

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});
// The kinds this file defines in plain loops below; every kind the core lists must be one of them.
const DEFINED = ['none', 'learned', 'sinusoidal', 'rope', 'alibi'];

// Vaswani et al. 2017: PE(t, 2i) = sin(t / 10000^(2i / D)), PE(t, 2i + 1) = cos(same angle).
function sinusoid(T, D) {
  const pe = new Float64Array(T * D);
  for (let t = 0; t < T; t++)
    for (let i = 0; 2 * i < D; i++) {
      const angle = t / 10000 ** ((2 * i) / D);
      pe[t * D + 2 * i] = Math.sin(angle);
      if (2 * i + 1 < D) pe[t * D + 2 * i + 1] = Math.cos(angle);
    }
  return pe;
}
// Su et al. 2021, as a complex rotation: (x_2i + i x_2i+1) * e^(i t theta_i), theta_i = 10000^(-2i / hd).
function ropeRotate(t, v) {
  const hd = v.length;
  for (let i = 0; 2 * i + 1 < hd; i++) {
    const angle = t * 10000 ** ((-2 * i) / hd);
    const [re, im] = [v[2 * i], v[2 * i + 1]];
    v[2 * i] = re * Math.cos(angle) - im * Math.sin(angle);
    v[2 * i + 1] = re * Math.sin(angle) + im * Math.cos(angle);
  }
}
// Press et al. 2022: head h (1-based) of H adds -2^(-8h/H) |i - j|.
const alibiBias = (H) => (h, i, j) => -(2 ** ((-8 * (h + 1)) / H)) * Math.abs(i - j);
const plus = (x, pe, T, D) => Float64Array.from(x, (v, k) => v + pe[k % (T * D)]);

const shapes = [
  { batch: 2, tokens: 6, dModel: 6, heads: 2 },
  { batch: 1, tokens: 9, dModel: 10, heads: 2, headDim: 5 }, // odd head_dim: last component unrotated
  { batch: 3, tokens: 20, dModel: 16, heads: 4 }, // past the short kernel
];

test.each(shapes.flatMap((s) => [true, false].map((causal) => ({ ...s, causal }))))(
  'every kind against its definition in plain loops: %j',
  (shape) => {
    for (const { name: positions } of hw.positionKinds()) {
      expect(DEFINED, `no plain-loop definition of position kind "${positions}" here`).toContain(positions);
      const layer = hw.createAttention({ ...shape, positions, seed: 5 });
      const { batch: B, tokens: T, dModel: D, heads: H } = layer.config;
      const x = hw.randomInput(layer.config, 2);
      const got = layer.forward(x, { intermediates: true });
      const w = layer.getWeights();
      let input = x;
      const hooks = {};
      if (positions === 'learned') {
        expect(w.positions).toHaveLength(T * D);
        expect(got.positions).toEqual(w.positions);
        input = plus(x, w.positions, T, D);
      } else if (positions === 'sinusoidal') {
        expect(got.positions).toBeCloseToReference(sinusoid(T, D), 1e-6, 1e-6);
        input = plus(x, sinusoid(T, D), T, D);
      } else expect(got.positions).toBeUndefined();
      if (positions === 'rope') hooks.rotate = ropeRotate;
      if (positions === 'alibi') hooks.bias = alibiBias(H);
      const ref = referenceMha(layer.config, w, input, hooks);
      for (const name of ['q', 'k', 'v', 'scores', 'attention', 'context', 'output'])
        expect(got[name], `${positions} ${name}`).toBeCloseToReference(ref[name], 2e-5, 2e-5);
      expect(layer.forward(x), positions).toBeCloseToReference(ref.output, 2e-5, 2e-5);
      if (positions === 'rope') {
        const plain = referenceMha(layer.config, w, x);
        expect(got.qUnrotated).toBeCloseToReference(plain.q);
        expect(got.kUnrotated).toBeCloseToReference(plain.k);
        expect(got.v).toBeCloseToReference(plain.v); // V untouched
      }
      if (positions === 'alibi') {
        const bias = Float64Array.from({ length: H * T * T }, (_, n) =>
          alibiBias(H)(Math.floor(n / (T * T)), Math.floor(n / T) % T, n % T),
        );
        expect(got.scoreBias).toBeCloseToReference(bias, 1e-7, 1e-6);
      }
      expect(B).toBe(shape.batch);
      layer.dispose();
    }
  },
);

test('RoPE: shift the sentence and the scores between its words stay (they depend only on m - n)', () => {
  const layer = hw.createAttention({ tokens: 12, dModel: 8, heads: 2, causal: false, positions: 'rope', seed: 1 });
  const { tokens: T, dModel: D, heads: H } = layer.config;
  const words = hw.randomInput({ batch: 1, tokens: 4, dModel: D }, 9);
  const filler = hw.randomInput(layer.config, 4);
  const placed = (shift) => {
    const x = filler.slice();
    x.set(words, shift * D);
    return layer.forward(x, { intermediates: true }).scores;
  };
  const at0 = placed(0);
  let largest = 0;
  for (const shift of [3, 8]) {
    const moved = placed(shift);
    for (let h = 0; h < H; h++)
      for (let i = 0; i < 4; i++)
        for (let j = 0; j < 4; j++) {
          const a = at0[(h * T + i) * T + j];
          const b = moved[(h * T + shift + i) * T + shift + j];
          expect(Math.abs(a - b)).toBeLessThan(1e-5 + 1e-5 * Math.abs(a));
          largest = Math.max(largest, Math.abs(a));
        }
  }
  expect(largest).toBeGreaterThan(0.05); // the scores compared are not all near zero
  // Learned positions, by contrast, change with the shift.
  const learned = hw.createAttention({ ...layer.config, positions: 'learned' });
  const x = filler.slice();
  x.set(words, 0);
  const a = learned.forward(x, { intermediates: true }).scores;
  x.set(filler.subarray(0, 4 * D), 0);
  x.set(words, 3 * D);
  const b = learned.forward(x, { intermediates: true }).scores;
  expect(Math.abs(a[1] - b[3 * T + 4])).toBeGreaterThan(1e-3);
  layer.dispose();
  learned.dispose();
});

test('sinusoidal: PE(i) . PE(j) depends only on |i - j|', () => {
  const layer = hw.createAttention({ tokens: 32, dModel: 16, heads: 2, positions: 'sinusoidal' });
  const pe = layer.forward(hw.randomInput(layer.config, 1), { intermediates: true }).positions;
  const D = 16;
  const dot = (i, j) => pe.subarray(i * D, (i + 1) * D).reduce((s, v, d) => s + v * pe[j * D + d], 0);
  for (const offset of [0, 1, 5, 12])
    for (const i of [0, 7, 19]) expect(dot(i, i + offset)).toBeCloseTo(dot(0, offset), 4);
  expect(dot(0, 0)).toBeCloseTo(D / 2, 4); // sin^2 + cos^2 = 1 per pair
  layer.dispose();
});

test('no positions, no mask: reordering the words reorders the outputs and changes nothing else', () => {
  const layer = hw.createAttention({ tokens: 4, dModel: 64, heads: 4, causal: false, seed: 2 });
  const D = 64;
  const x = hw.randomInput(layer.config, 3);
  const order = [0, 3, 2, 1]; // "All dogs are animals" -> "All animals are dogs"
  const swapped = new Float32Array(x.length);
  order.forEach((from, to) => swapped.set(x.subarray(from * D, (from + 1) * D), to * D));
  const a = layer.forward(x);
  const b = layer.forward(swapped);
  order.forEach((from, to) =>
    expect(b.subarray(to * D, (to + 1) * D)).toBeCloseToReference(a.subarray(from * D, (from + 1) * D), 1e-6, 1e-6),
  );
  layer.dispose();
});

test('bad position kinds are refused in words and the module keeps working', () => {
  const kinds = hw.positionKinds().map((k) => `"${k.name}"`);
  expect(kinds.slice(0, 5).join(', ')).toBe('"none", "learned", "sinusoidal", "rope", "alibi"');
  expect(() => hw.createAttention({ positions: 'fourier' })).toThrow(
    new RangeError(`positions must be one of ${kinds.join(', ')}, got "fourier"`),
  );
  expect(() => hw.createAttention({ positions: 3 })).toThrow(TypeError);
  expect(hw.check({ positions: 'fourier' })).toMatch(/positions must be one of/);
  const rope = hw.createAttention({ positions: 'rope' });
  expect(() => rope.forwardLoop(hw.randomInput(rope.config, 1))).toThrow(
    new HeadwiseError('the loop version has no rope positions: use the fused forward pass'),
  );
  expect(rope.forward(hw.randomInput(rope.config, 1))).toHaveLength(36);
  rope.dispose();
  const learned = hw.createAttention({ positions: 'learned' });
  expect(() => learned.setWeights({ positions: new Float32Array(5) })).toThrow(/positions must have 36 values/);
  learned.setWeights({ positions: new Float32Array(36) });
  const plain = hw.createAttention();
  const x = hw.randomInput(plain.config, 1);
  expect(learned.forward(x)).toEqual(plain.forward(x)); // a zero table is no positions at all
  expect(() => plain.setWeights({ positions: new Float32Array(36) })).toThrow(/unknown weight "positions"/);
  learned.dispose();
  plain.dispose();
});

test('the shape trace shows where each kind enters', () => {
  const names = (positions) => hw.shapeTrace({ positions }).map((e) => e.name);
  expect(names('none')).toHaveLength(10);
  expect(names('sinusoidal')[1]).toBe('x = x + positions[:T] (sinusoidal)');
  expect(names('rope')).toContain('q, k = rotate(q, k) by position (rope)');
  expect(names('alibi')).toContain('scores = scores + bias[h, i, j] (alibi)');
  expect(hw.createAttention({ positions: 'alibi' }).config.positions).toBe('alibi');
});

test("a part of a layer (headOffset, totalHeads) keeps ALiBi's slopes of its heads in the whole layer", () => {
  const T = 5;
  const whole = hw.createAttention({ tokens: T, dModel: 10, heads: 5, headDim: 2, positions: 'alibi' });
  const part = hw.createAttention({
    tokens: T,
    dModel: 10,
    heads: 2,
    headDim: 2,
    positions: 'alibi',
    headOffset: 3,
    totalHeads: 5,
  });
  const bias = part.forward(hw.randomInput(part.config, 1), { intermediates: true }).scoreBias;
  const expected = Float64Array.from({ length: 2 * T * T }, (_, n) =>
    alibiBias(5)(3 + Math.floor(n / (T * T)), Math.floor(n / T) % T, n % T),
  );
  expect(bias).toBeCloseToReference(expected, 1e-6, 1e-6);
  const wholeBias = whole.forward(hw.randomInput(whole.config, 1), { intermediates: true }).scoreBias;
  expect(bias).toEqual(wholeBias.slice(3 * T * T));
  expect(part.config).toMatchObject({ heads: 2, headOffset: 3, totalHeads: 5 });
  expect(() => hw.createAttention({ heads: 2, headOffset: 1 })).toThrow(
    new HeadwiseError('headOffset + heads (3) must be at most totalHeads (2, which is heads when left out)'),
  );
  expect(hw.check({ heads: 2, headOffset: 3, totalHeads: 4 })).toBe(
    'headOffset + heads (5) must be at most totalHeads (4)',
  );
  expect(() => hw.createAttention({ headOffset: -1 })).toThrow(RangeError);
  whole.dispose();
  part.dispose();
});
