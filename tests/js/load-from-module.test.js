// A second instance from the first one's compiled module (what a Blob worker is started with):
// no fetch, no compile, the same numbers, and its own memory.
import { expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';

test('loadHeadwise({ wasmModule }) makes an independent instance that computes the same', async () => {
  const first = await loadHeadwise({});
  expect(first.wasmModule).toBeInstanceOf(WebAssembly.Module);
  const second = await loadHeadwise({ wasmModule: first.wasmModule });
  expect(second.wasmModule).toBe(first.wasmModule);
  const config = { batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 4 };
  const a = first.createAttention(config);
  const b = second.createAttention(config);
  const x = first.randomInput(a.config, 4);
  expect(b.forward(x)).toEqual(a.forward(x));
  a.dispose();
  expect(second.liveLayers()).toBe(1); // separate memories
  expect(first.liveLayers()).toBe(0);
  b.dispose();
});
