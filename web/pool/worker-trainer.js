// One trainer in a Worker of its own (the pool's worker, serve.js: a Node worker_threads Worker, a
// module Worker from a same-origin file, or a classic one from a Blob URL, e.g. on file://), so
// the calling thread never waits for a step; where no worker starts, the same ops run on this
// thread, one request per task (then a step is a long task: `where` and `why` say so). The whole
// trainer lives in the worker: a request of n steps costs the caller one message.
import { Channel } from './channel.js';
import { serve } from './serve.js';
import { spawnWorker, workerKinds } from './spawn.js';

const TIMEOUT_MS = 300_000;
const TRAINER = 1;

// The worker's ops on this thread (the same serve()), one request per task.
function pageEndpoint(hw) {
  let handler = () => {};
  const endpoint = { onMessage: () => {}, onFailure: () => {}, busy: () => {}, terminate: () => {} };
  serve(
    { post: (message) => setTimeout(() => endpoint.onMessage(message)), listen: (h) => (handler = h) },
    async () => hw,
  );
  endpoint.post = (message) => setTimeout(() => handler(message));
  return endpoint;
}

// A channel to a worker of the first kind that starts, else to this thread: { channel, where, why }.
async function openChannel(hw, name, kinds) {
  const tried = [];
  for (const kind of kinds) {
    let endpoint = null;
    try {
      endpoint = await spawnWorker(kind, { name });
      const channel = new Channel(endpoint, name);
      await channel.request('init', kind === 'blob' ? { wasmModule: hw.wasmModule } : {}, { timeoutMs: 60_000 });
      return { channel, where: 'worker', kind };
    } catch (error) {
      endpoint?.terminate();
      tried.push(`a ${kind} worker: ${error?.message ?? error}`);
    }
  }
  const channel = new Channel(pageEndpoint(hw), name);
  await channel.request('init', {}, { timeoutMs: TIMEOUT_MS });
  return { channel, where: 'page', why: tried.length ? `no worker started (${tried.join('; ')})` : 'no Worker here' };
}

export class WorkerTrainer {
  #channel;
  #disposed = false;

  constructor(opened) {
    this.#channel = opened.channel;
    /** 'worker', or 'page' where no worker started (why says why). */
    this.where = opened.where;
    this.why = opened.why ?? null;
  }

  get disposed() {
    return this.#disposed;
  }

  #ask(op, fields = {}) {
    if (this.#disposed) return Promise.reject(new Error('this worker trainer was disposed'));
    return this.#channel.request(op, { trainer: TRAINER, ...fields }, { timeoutMs: TIMEOUT_MS });
  }

  /** n steps (within the trainer's work limit per call): { step, loss } of the last. */
  step(n = 1) {
    return this.#ask('trainerStep', { steps: n });
  }

  /** { step, heldOut (evaluate()), roles (roleScores()) }. */
  measure() {
    return this.#ask('trainerMeasure');
  }

  /** Every layer's maps on one sequence of ids: per layer, per head, a Float32Array. */
  attention(ids) {
    return this.#ask('trainerAttention', { ids: Int32Array.from(ids) });
  }

  /** Frees the trainer and ends its worker. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.where === 'page') {
      this.#channel.request('trainerDispose', { trainer: TRAINER }, { timeoutMs: 5000 }).catch(() => {});
    } else this.#channel.break('stopped');
  }
}

/**
 * A trainer (createTrainer options) in a Worker of its own, from module `hw` (a loadHeadwise()
 * instance). kinds: the worker kinds to try, best first (default: what is usable here).
 */
export async function createWorkerTrainer(hw, options, { name = 'trainer', kinds = workerKinds() } = {}) {
  const opened = await openChannel(hw, name, kinds);
  const trainer = new WorkerTrainer(opened);
  try {
    await opened.channel.request('trainerCreate', { trainer: TRAINER, options }, { timeoutMs: TIMEOUT_MS });
  } catch (error) {
    trainer.dispose();
    throw error;
  }
  return trainer;
}

export { workerKinds };
