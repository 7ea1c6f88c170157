// Each case's input and weights as one raw float32 file, so every peer (Node, native, Python)
// computes from the same numbers: x (B,T,D), wq, wk, wv (D, H*hd), wOut (H*hd, D), in that order.
import { readFileSync, writeFileSync } from 'node:fs';

export function tensorsOf(c) {
  const C = c.heads * c.headDim;
  return [
    ['x', c.batch * c.tokens * c.dModel],
    ['wq', c.dModel * C],
    ['wk', c.dModel * C],
    ['wv', c.dModel * C],
    ['wOut', C * c.dModel],
  ];
}

export function writeCaseData(path, c, arrays) {
  const parts = tensorsOf(c).map(([name]) =>
    Buffer.from(arrays[name].buffer, arrays[name].byteOffset, arrays[name].byteLength),
  );
  writeFileSync(path, Buffer.concat(parts));
}

export function readCaseData(path, c) {
  const bytes = readFileSync(path);
  const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const out = {};
  let at = 0;
  for (const [name, n] of tensorsOf(c)) out[name] = all.slice(at, (at += n));
  return out;
}

export function readFloats(path) {
  const bytes = readFileSync(path);
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
