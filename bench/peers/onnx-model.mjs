// The layer as an ONNX model of standard ops (opset 17), written as protobuf bytes here: the
// few ModelProto fields it needs are encoded below (field numbers from onnx/onnx.proto).
// Graph: MatMul x3 -> Reshape -> Transpose -> MatMul(q, k^T) -> Mul(1/sqrt(hd)) -> Add(causal
// mask) -> Softmax -> MatMul(., v) -> Transpose -> Reshape -> MatMul(W_out).
export const FLOAT = 1,
  INT64 = 7,
  ATTR_INT = 2,
  ATTR_INTS = 7;

export function varint(n) {
  const out = [];
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n; // int64 as two's complement
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
export const intField = (field, n) => [...key(field, 0), ...varint(n)];
export function bytesField(field, bytes) {
  const b =
    bytes instanceof Uint8Array
      ? bytes
      : typeof bytes === 'string'
        ? new TextEncoder().encode(bytes)
        : Uint8Array.from(bytes);
  return concat([Uint8Array.from([...key(field, 2), ...varint(b.length)]), b]);
}
export function concat(parts) {
  const arrays = parts.map((p) => (p instanceof Uint8Array ? p : Uint8Array.from(p)));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) (out.set(a, at), (at += a.length));
  return out;
}

export function tensor(name, dims, type, data) {
  // TensorProto: dims 1, data_type 2, name 8, raw_data 9
  const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return concat([...dims.map((d) => intField(1, d)), intField(2, type), bytesField(8, name), bytesField(9, raw)]);
}
function attribute(name, value) {
  // AttributeProto: name 1, i 3, ints 8, type 20
  if (Array.isArray(value))
    return concat([bytesField(1, name), ...value.map((v) => intField(8, v)), intField(20, ATTR_INTS)]);
  return concat([bytesField(1, name), intField(3, value), intField(20, ATTR_INT)]);
}
export function node(op, inputs, outputs, attrs = {}, domain = '') {
  // NodeProto: input 1, output 2, op_type 4, attribute 5, domain 7 (an empty input: left out)
  return concat([
    ...inputs.map((i) => bytesField(1, i)),
    ...outputs.map((o) => bytesField(2, o)),
    bytesField(4, op),
    ...Object.entries(attrs).map(([n, v]) => bytesField(5, attribute(n, v))),
    ...(domain ? [bytesField(7, domain)] : []),
  ]);
}
export function valueInfo(name, dims) {
  // ValueInfoProto{name 1, type 2{tensor_type 1{elem_type 1, shape 2{dim 1{dim_value 1}}}}}
  const shape = concat(dims.map((d) => bytesField(1, intField(1, d))));
  return concat([
    bytesField(1, name),
    bytesField(2, bytesField(1, concat([intField(1, FLOAT), bytesField(2, shape)]))),
  ]);
}

export function attentionModel(c, { wq, wk, wv, wOut }) {
  const { batch: B, tokens: T, dModel: D, heads: H, headDim: hd } = c;
  const C = H * hd;
  const mask = new Float32Array(T * T);
  if (c.causal) for (let i = 0; i < T; ++i) mask.fill(-Infinity, i * T + i + 1, (i + 1) * T);
  const inits = [
    tensor('wq', [D, C], FLOAT, wq),
    tensor('wk', [D, C], FLOAT, wk),
    tensor('wv', [D, C], FLOAT, wv),
    tensor('wout', [C, D], FLOAT, wOut),
    tensor('mask', [T, T], FLOAT, mask),
    tensor('scale', [], FLOAT, Float32Array.of(1 / Math.sqrt(hd))),
    tensor('heads_shape', [4], INT64, BigInt64Array.from([B, T, H, hd].map(BigInt))),
    tensor('concat_shape', [3], INT64, BigInt64Array.from([B, T, C].map(BigInt))),
  ];
  const nodes = [];
  for (const n of ['q', 'k', 'v']) {
    nodes.push(node('MatMul', ['x', `w${n}`], [`${n}_proj`]));
    nodes.push(node('Reshape', [`${n}_proj`, 'heads_shape'], [`${n}_4d`]));
    nodes.push(node('Transpose', [`${n}_4d`], [`${n}_heads`], { perm: n === 'k' ? [0, 2, 3, 1] : [0, 2, 1, 3] }));
  }
  nodes.push(node('MatMul', ['q_heads', 'k_heads'], ['scores_raw']));
  nodes.push(node('Mul', ['scores_raw', 'scale'], ['scores_scaled']));
  nodes.push(node('Add', ['scores_scaled', 'mask'], ['scores']));
  nodes.push(node('Softmax', ['scores'], ['attention'], { axis: -1 }));
  nodes.push(node('MatMul', ['attention', 'v_heads'], ['context']));
  nodes.push(node('Transpose', ['context'], ['context_t'], { perm: [0, 2, 1, 3] }));
  nodes.push(node('Reshape', ['context_t', 'concat_shape'], ['concat']));
  nodes.push(node('MatMul', ['concat', 'wout'], ['y']));
  // GraphProto: node 1, name 2, initializer 5, input 11, output 12
  const graph = concat([
    ...nodes.map((n) => bytesField(1, n)),
    bytesField(2, 'mha'),
    ...inits.map((t) => bytesField(5, t)),
    bytesField(11, valueInfo('x', [B, T, D])),
    bytesField(12, valueInfo('y', [B, T, D])),
  ]);
  // ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8 {domain 1, version 2}
  return concat([
    intField(1, 8),
    bytesField(2, 'headwise-bench'),
    bytesField(7, graph),
    bytesField(8, concat([bytesField(1, ''), intField(2, 17)])),
  ]);
}
