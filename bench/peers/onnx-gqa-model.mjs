// The grouped-query layer as an ONNX model around onnxruntime's contrib operator
// com.microsoft.GroupQueryAttention (causal by definition; no past K/V: the whole prompt at once):
// x -> MatMul Wq, Wk, Wv -> GroupQueryAttention(num_heads H, kv_num_heads Hkv) -> MatMul W_out.
// Its K/V weights are (D, Hkv*hd): query head h reads K/V head h / (H / Hkv), as ours does.
import { bytesField, concat, FLOAT, intField, node, tensor, valueInfo } from './onnx-model.mjs';

const INT32 = 6;

export function groupQueryModel(c, { wq, wk, wv, wOut }) {
  const { batch: B, tokens: T, dModel: D, heads: H, kvHeads: Hkv, headDim: hd } = c;
  const inits = [
    tensor('wq', [D, H * hd], FLOAT, wq),
    tensor('wk', [D, Hkv * hd], FLOAT, wk),
    tensor('wv', [D, Hkv * hd], FLOAT, wv),
    tensor('wout', [H * hd, D], FLOAT, wOut),
    // Per sequence its length less one, and the total length: the prompt of T tokens, no past.
    tensor('seqlens_k', [B], INT32, new Int32Array(B).fill(T - 1)),
    tensor('total_length', [], INT32, Int32Array.of(T)),
  ];
  const nodes = [
    node('MatMul', ['x', 'wq'], ['q']),
    node('MatMul', ['x', 'wk'], ['k']),
    node('MatMul', ['x', 'wv'], ['v']),
    node(
      'GroupQueryAttention',
      ['q', 'k', 'v', '', '', 'seqlens_k', 'total_length'],
      ['context', 'present_key', 'present_value'],
      { num_heads: H, kv_num_heads: Hkv },
      'com.microsoft',
    ),
    node('MatMul', ['context', 'wout'], ['y']),
  ];
  const graph = concat([
    ...nodes.map((n) => bytesField(1, n)),
    bytesField(2, 'gqa'),
    ...inits.map((t) => bytesField(5, t)),
    bytesField(11, valueInfo('x', [B, T, D])),
    bytesField(12, valueInfo('y', [B, T, D])),
  ]);
  const opset = (domain, version) => bytesField(8, concat([bytesField(1, domain), intField(2, version)]));
  return concat([
    intField(1, 8),
    bytesField(2, 'headwise-bench'),
    bytesField(7, graph),
    opset('', 17),
    opset('com.microsoft', 1),
  ]);
}
