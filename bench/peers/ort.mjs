// onnxruntime-web, wasm backend, one thread, on the model of peers/onnx-model.mjs.
import * as ort from 'onnxruntime-web';
import { attentionModel } from './onnx-model.mjs';

export const isAsync = true;

export async function prepare(c, data) {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  const session = await ort.InferenceSession.create(attentionModel(c, data), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const feeds = { x: new ort.Tensor('float32', data.x, [c.batch, c.tokens, c.dModel]) };
  let output;
  return {
    async run() {
      output = (await session.run(feeds)).y.data;
    },
    output: () => output,
  };
}
