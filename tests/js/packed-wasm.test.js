// The wasm as the classic bundle carries it: packed by the build (deflate-raw, base64), unpacked on
// the page by DecompressionStream (web/explorer/packed-wasm.js) into the very bytes of the module,
// at the size the bundle's budget counts on (about the wasm's own gzipped size).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect, test } from 'vitest';
import { inlineWasm, packWasm } from '../../scripts/explorer-bundle.config.js';
import { unpackWasm } from '../../web/explorer/packed-wasm.js';
import { loadHeadwise } from '../../web/headwise.js';

const wasm = readFileSync(new URL('../../web/build/headwise-core.wasm', import.meta.url));

test("the bundle's packed wasm unpacks to the module's bytes, and the module runs from them", async () => {
  const code = inlineWasm.load('\0virtual:headwise-wasm-packed');
  const packed = JSON.parse(code.replace(/^export default /, '').replace(/;$/, ''));
  const bytes = await unpackWasm(packed);
  expect(bytes.length).toBe(wasm.length);
  expect(Buffer.from(bytes).equals(wasm)).toBe(true);
  const hw = await loadHeadwise({ wasmBinary: bytes });
  const mha = hw.createAttention({ batch: 1, tokens: 4, dModel: 6, heads: 2, seed: 1 });
  expect(mha.forward(hw.randomInput(mha.config, 1))).toHaveLength(24);
  mha.dispose();
});

test('packed, the wasm is within 1% of its gzipped size once the page is gzipped (base64 of raw bytes: +33%)', () => {
  const gz = (text) => gzipSync(Buffer.from(text), { level: 9 }).length;
  const wasmGz = gzipSync(wasm, { level: 9 }).length;
  const [packed, base64] = [gz(packWasm(wasm)), gz(wasm.toString('base64'))];
  console.log(`wasm ${wasm.length} B, gzipped ${wasmGz}; packed ${packed} gzipped; base64 of it ${base64}`);
  expect(packed).toBeLessThan(wasmGz * 1.01);
});
