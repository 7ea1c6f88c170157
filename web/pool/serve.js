// The worker's side of the pool: one module instance, its layers (and trainers) by id, and the ops of
// protocol.js run through the public API only (createAttention, setWeights, forward, dispose;
// createTrainer, step, evaluate, roleScores, attention for the Learn panel's live replay).
// Requests run one after another in arrival order, so a pool may send create, weights and forward
// without waiting between them.
import { meanOfSteps, zeroHeadsOf } from '../trainer-contract.js';
import { FORWARD_IN_PLACE } from '../pool-keys.js';
import { errorOf, MAX_TIMED_DECODES, REQUEST_WORK_LIMIT, requestProblem } from './protocol.js';

/**
 * @param {{ post(message: object, transfer?: Transferable[]): void, listen(handler: (data) => void): void }} port
 * @param {(given: { wasmBinary?: ArrayBuffer, wasmModule?: WebAssembly.Module }) => Promise<object>} load
 *   makes the worker's Headwise
 */
export function serve(port, load) {
  let hw = null;
  const layers = new Map();
  const trainers = new Map();
  let queue = Promise.resolve();

  const layerOf = (id) => {
    const layer = layers.get(id);
    if (!layer) throw new RangeError(`no layer ${id} in this worker`);
    return layer;
  };
  const trainerOf = (id) => {
    const trainer = trainers.get(id);
    if (!trainer) throw new RangeError(`no trainer ${id} in this worker`);
    return trainer;
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
        // x (transferred by the pool) comes back holding this part's output: no array is allocated.
        const output = layerOf(layer)[FORWARD_IN_PLACE](x);
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
    // Timed here, on this worker's clock (the kv panel's "Time generation"): each call's wall ms.
    [
      'decodeTime',
      ({ layer, x }) => {
        const l = layerOf(layer);
        const width = l.config.batch * l.config.dModel;
        const positions = x.length / width;
        if (!Number.isInteger(positions) || positions < 1 || positions > MAX_TIMED_DECODES) {
          throw new RangeError(
            `decodeTime: x must hold 1 to ${MAX_TIMED_DECODES} positions of batch x dModel = ${width} values, ` +
              `got ${x.length} values`,
          );
        }
        const ms = [];
        for (let p = 0; p < positions; p += 1) {
          const token = x.subarray(p * width, (p + 1) * width);
          const start = performance.now();
          l.decode(token);
          ms.push(performance.now() - start);
        }
        return { result: { length: l.cache.length, ms } };
      },
    ],
    [
      'forwardTime',
      ({ layer, x, repeats }) => {
        const l = layerOf(layer);
        const ms = [];
        for (let r = 0; r < repeats; r += 1) {
          const start = performance.now();
          l.forward(x);
          ms.push(performance.now() - start);
        }
        return { result: { ms } };
      },
    ],
    [
      'stats',
      () => {
        const { wasmMemoryBytes, heapInUseBytes } = module().memoryStats();
        return {
          result: {
            liveLayers: module().liveLayers(),
            liveTrainers: module().liveTrainers(),
            wasmMemoryBytes,
            heapInUseBytes,
          },
        };
      },
    ],
    // A trainer that trains here, off the page's thread (the Learn panel's live replay).
    [
      'trainerCreate',
      ({ trainer, options }) => {
        if (trainers.has(trainer)) throw new RangeError(`trainer ${trainer} exists already`);
        const t = module().createTrainer(options);
        trainers.set(trainer, t);
        // Its sizes: the caller bounds its requests' work and checks their replies with them.
        const { layers, heads, evalSize, batch } = t.options;
        const info = { stepMultiplyAdds: Math.ceil(t.stepMultiplyAdds), layers, heads, tokens: t.task.tokens };
        const { name, words, tokens, readout, groups, probes } = t.task;
        const task = { name, words: [...words], tokens, readout, groups: [...groups], probes: [...probes] };
        const parameters = t.parameters.map((p) => ({ name: p.name, shape: [...p.shape] }));
        const more = { maxStepsPerCall: t.maxStepsPerCall, options: { ...t.options }, task, parameters };
        return { result: { ...info, vocabulary: words.length, evalSize, batch, ...more } };
      },
    ],
    [
      'trainerStep',
      ({ trainer, steps }) => {
        // One step a call: within one call's work limit, and the module's code tiers up between calls.
        const t = trainerOf(trainer);
        if (steps * t.stepMultiplyAdds > REQUEST_WORK_LIMIT) {
          const most = Math.max(1, Math.floor(REQUEST_WORK_LIMIT / t.stepMultiplyAdds));
          throw new RangeError(
            `steps ${steps} is more work than one request may ask: at most ${most} for this trainer`,
          );
        }
        const results = Array.from({ length: steps }, () => t.step(1));
        return { result: meanOfSteps(results, results.at(-1)) };
      },
    ],
    [
      'trainerMeasure',
      ({ trainer }) => {
        const t = trainerOf(trainer);
        return { result: { step: t.steps, heldOut: t.evaluate(), roles: t.roleScores() } };
      },
    ],
    [
      'trainerAttention',
      ({ trainer, ids }) => {
        const maps = trainerOf(trainer)
          .attention(Array.from(ids))
          .layers.map((layer) => layer.heads);
        return { result: maps, transfer: maps.flat().map((m) => m.buffer) };
      },
    ],
    // The data-parallel trainer's slice (data-parallel.js): this worker's trainer takes the
    // caller's parameters and batch state, draws the batch and returns the gradient of its rows.
    [
      'trainerGradients',
      ({ trainer, parameters, batchState, from, to }) => {
        const t = trainerOf(trainer);
        t.setParameterBuffer(parameters);
        t.batchState = batchState;
        // The gradient goes back in the parameters' buffer (transferred here): nothing allocated.
        const result = t.sliceGradients(from, to, parameters);
        return { result, transfer: [result.gradient.buffer] };
      },
    ],
    [
      'trainerSetParameters',
      ({ trainer, parameters }) => {
        trainerOf(trainer).setParameterBuffer(parameters);
        return { result: null };
      },
    ],
    [
      'trainerEvaluate',
      ({ trainer, zeroHeads }) => ({
        result: trainerOf(trainer).evaluate({ zeroHeads: zeroHeads ? zeroHeadsOf(zeroHeads) : [] }),
      }),
    ],
    ['trainerGetWeights', ({ trainer }) => ({ result: trainerOf(trainer).getWeights() })],
    ['trainerRoles', ({ trainer }) => ({ result: trainerOf(trainer).roleScores() })],
    [
      'trainerSetWeights',
      ({ trainer, tensors }) => {
        trainerOf(trainer).setWeights(tensors);
        return { result: null };
      },
    ],
    [
      'trainerDispose',
      ({ trainer }) => {
        trainers.get(trainer)?.dispose();
        trainers.delete(trainer);
        return { result: null };
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
