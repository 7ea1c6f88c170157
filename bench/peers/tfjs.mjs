// TensorFlow.js with the wasm backend, one thread: the same ops as the ONNX model.
import * as tf from '@tensorflow/tfjs-core';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

export async function prepare(c, data) {
  const require = createRequire(import.meta.url);
  setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json'))}/dist/`);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  const { batch: B, tokens: T, dModel: D, heads: H, headDim: hd } = c;
  const C = H * hd;
  const w = {
    q: tf.tensor2d(data.wq, [D, C]),
    k: tf.tensor2d(data.wk, [D, C]),
    v: tf.tensor2d(data.wv, [D, C]),
    out: tf.tensor2d(data.wOut, [C, D]),
  };
  const x = tf.tensor2d(data.x, [B * T, D]);
  const mask = tf.tidy(() => tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([T, T]), -1, 0)), -1e30));
  const heads = (m) => tf.transpose(tf.reshape(tf.matMul(x, m), [B, T, H, hd]), [0, 2, 1, 3]);
  let output;
  return {
    run() {
      const y = tf.tidy(() => {
        const scores = tf.add(tf.mul(tf.matMul(heads(w.q), heads(w.k), false, true), 1 / Math.sqrt(hd)), mask);
        const context = tf.matMul(tf.softmax(scores), heads(w.v));
        const concat = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [B * T, C]);
        return tf.matMul(concat, w.out);
      });
      output = y.dataSync();
      y.dispose();
    },
    output: () => output,
  };
}
