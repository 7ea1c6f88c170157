// onnxruntime-web (wasm backend) on the model of peers/onnx-model.mjs with a given thread count,
// for bench/pool.mjs and bench/pool-page.mjs. `ort` is the imported package (Node or browser
// build). numThreads is global to the package: one count per process or page.
import { attentionModel } from './peers/onnx-model.mjs';

export async function prepareOrt(ort, c, data, numThreads) {
  ort.env.wasm.numThreads = numThreads;
  ort.env.wasm.proxy = false;
  const session = await ort.InferenceSession.create(attentionModel(c, data), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const feeds = { x: new ort.Tensor('float32', data.x, [c.batch, c.tokens, c.dModel]) };
  let output;
  return {
    run: async () => {
      output = (await session.run(feeds)).y.data;
    },
    output: () => output,
    dispose: () => session.release(),
  };
}
