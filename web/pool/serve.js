// The worker's side of the pool: one module instance, its layers by id, and the ops of
// protocol.js run through the public API only (createAttention, setWeights, forward, dispose).
// Requests run one after another in arrival order, so a pool may send create, weights and forward
// without waiting between them.
import { errorOf, requestProblem } from './protocol.js';

/**
 * @param {{ post(message: object, transfer?: Transferable[]): void, listen(handler: (data) => void): void }} port
 * @param {(given: { wasmBinary?: ArrayBuffer, wasmModule?: WebAssembly.Module }) => Promise<object>} load
 *   makes the worker's Headwise
 */
export function serve(port, load) {
  let hw = null;
  const layers = new Map();
  let queue = Promise.resolve();

  const layerOf = (id) => {
    const layer = layers.get(id);
    if (!layer) throw new RangeError(`no layer ${id} in this worker`);
    return layer;
  };
  const module = () => {
    if (!hw) throw new Error('init must come first');
    return hw;
  };

  const OPS = new Map([
    [
      'init',
      async ({ wasmBinary, wasmModule }) => {
        hw ??= await load({ wasmBinary, wasmModule });
        return { result: { simdArch: hw.simdArch } };
      },
    ],
    [
      'create',
      ({ layer, config }) => {
        if (layers.has(layer)) throw new RangeError(`layer ${layer} exists already`);
        layers.set(layer, module().createAttention(config));
        return { result: null };
      },
    ],
    [
      'weights',
      ({ layer, weights }) => {
        layerOf(layer).setWeights(weights);
        return { result: null };
      },
    ],
    [
      'forward',
      ({ layer, x }) => {
        const output = layerOf(layer).forward(x);
        return { result: output, transfer: [output.buffer] };
      },
    ],
    [
      'dispose',
      ({ layer }) => {
        layers.get(layer)?.dispose();
        layers.delete(layer);
        return { result: null };
      },
    ],
    [
      'stats',
      () => {
        const { wasmMemoryBytes, heapInUseBytes } = module().memoryStats();
        return { result: { liveLayers: module().liveLayers(), wasmMemoryBytes, heapInUseBytes } };
      },
    ],
  ]);

  async function handle(message) {
    const problem = requestProblem(message);
    const id = Number.isSafeInteger(message?.id) && message.id > 0 ? message.id : null;
    if (problem) return port.post({ id, ok: false, error: { name: 'TypeError', message: problem } });
    try {
      const { result, transfer = [] } = await OPS.get(message.op)(message);
      port.post({ id, ok: true, result }, transfer);
    } catch (error) {
      port.post({ id, ok: false, error: errorOf(error) });
    }
  }

  port.listen((data) => {
    queue = queue.then(() => handle(data));
  });
}
