// One trainer off the calling thread, in one of the page's trainer workers (the pool's worker,
// serve.js: a Node worker_threads Worker, a module Worker from a same-origin file, or a classic one
// from a Blob URL, e.g. on file://). How many such workers run is bounded page-wide, and trainers
// share them past the bound (worker-slots.js). Where no worker starts, the same ops run on this
// thread, one request per task (then a step is a long task: `where` and `why` say so). The whole
// trainer lives in the worker: a request of n steps costs the caller one message.
//
// Deadlines: every request may take timeoutMs (default 15 s) plus its work (steps x the trainer's
// multiply-adds per step, which the worker reports at creation) at a rate 50 times below this
// machine's, plus what is queued before it in the same worker; a worker that misses one is
// terminated, and the trainer (and every trainer sharing that worker) fails with the reason.
import { Channel } from './channel.js';
import { MAX_IDS, MAX_TRAIN_STEPS, REQUEST_WORK_LIMIT, SLOWEST_MULTIPLY_ADDS_PER_MS } from './protocol.js';
import { serve } from './serve.js';
import { spawnWorker, workerKinds } from './spawn.js';
import { joinHost, leaveHost } from './worker-slots.js';

const INIT_MS = 60_000; // loading and compiling the module in the worker
const DEFAULT_TIMEOUT_MS = 15_000;
const CREATE_MS = 5000;
const SETTINGS = ['kinds', 'workerUrl', 'timeoutMs', 'signal'];

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
async function openChannel(hw, name, kinds, workerUrl, onBreak) {
  const tried = [];
  for (const kind of kinds) {
    let endpoint = null;
    try {
      endpoint = await spawnWorker(kind, { name, workerUrl });
      const channel = new Channel(endpoint, name);
      const init = kind === 'blob' ? { wasmModule: hw.wasmModule } : {};
      await channel.request('init', init, { timeoutMs: INIT_MS });
      channel.onBreak = onBreak;
      return { channel, where: 'worker', kind };
    } catch (error) {
      endpoint?.terminate();
      tried.push(`a ${kind} worker: ${error?.message ?? error}`);
    }
  }
  const channel = new Channel(pageEndpoint(hw), name);
  channel.onBreak = onBreak;
  await channel.request('init', {}, { timeoutMs: INIT_MS });
  return { channel, where: 'page', why: tried.length ? `no worker started (${tried.join('; ')})` : 'no Worker here' };
}

let workerNumber = 0;
const CREATE = Symbol('create'); // the trainer's first request, made by createWorkerTrainer only

export class WorkerTrainer {
  #host;
  #channel;
  #id;
  #timeoutMs;
  #info = null;
  #disposed = false;

  /** @internal use createWorkerTrainer() */
  constructor(host, opened, id, timeoutMs) {
    this.#host = host;
    this.#channel = opened.channel;
    this.#id = id;
    this.#timeoutMs = timeoutMs;
    /** 'worker', or 'page' where no worker started (why says why). */
    this.where = opened.where;
    this.why = opened.why ?? null;
  }

  get disposed() {
    return this.#disposed;
  }

  /** Why its worker broke (died, missed a deadline, sent a wrong reply), or null. */
  get failure() {
    return this.#disposed ? null : this.#channel.broken;
  }

  /** How many other trainers share its worker now (they take turns). */
  get sharing() {
    return Math.max(0, this.#host.trainers - 1);
  }

  /** The trainer's sizes as its worker reported them: { stepMultiplyAdds, layers, heads, tokens, ... }. */
  get info() {
    return this.#info;
  }

  /** The most steps one step(n) may ask for. */
  get maxStepsPerRequest() {
    return Math.max(1, Math.min(MAX_TRAIN_STEPS, Math.floor(REQUEST_WORK_LIMIT / this.#info.stepMultiplyAdds)));
  }

  // Sends one request with its deadline: the fixed part, its work at the slowest rate, and the
  // work queued before it in this worker (serve.js answers in arrival order).
  async #ask(op, fields, { multiplyAdds = 0, extraMs = 0, expect } = {}) {
    if (this.#disposed) throw new Error('this worker trainer was disposed');
    const budget = this.#timeoutMs + extraMs + multiplyAdds / SLOWEST_MULTIPLY_ADDS_PER_MS;
    const host = this.#host;
    host.queuedMs += budget;
    try {
      return await this.#channel.request(op, { trainer: this.#id, ...fields }, { timeoutMs: host.queuedMs, expect });
    } finally {
      host.queuedMs -= budget;
    }
  }

  async [CREATE](options) {
    // Its work is not known before it answers (building the rows, drawing the held-out set).
    this.#info = Object.freeze(await this.#ask('trainerCreate', { options }, { extraMs: CREATE_MS }));
  }

  /** n steps (1 to maxStepsPerRequest): { step, loss } (the loss is the mean over the n). */
  step(n = 1) {
    if (typeof n !== 'number') return Promise.reject(new TypeError(`n must be a number, got ${typeof n}`));
    const most = this.maxStepsPerRequest;
    if (!Number.isInteger(n) || n < 1 || n > most) {
      return Promise.reject(new RangeError(`n must be a whole number from 1 to ${most}, got ${String(n)}`));
    }
    return this.#ask('trainerStep', { steps: n }, { multiplyAdds: n * this.#info.stepMultiplyAdds });
  }

  /** { step, heldOut (evaluate()), roles (roleScores()) }. */
  measure() {
    // The held-out batches run forward only (a third of a step each), the role probes about a batch more.
    const { evalSize, batch, stepMultiplyAdds } = this.#info;
    const multiplyAdds = (Math.ceil(evalSize / batch) + 1) * stepMultiplyAdds;
    return this.#ask('trainerMeasure', {}, { multiplyAdds, expect: this.#info });
  }

  /** Every layer's maps on one sequence of ids: per layer, per head, a Float32Array. */
  attention(ids) {
    let copy;
    try {
      copy = this.#idsArgument(ids);
    } catch (error) {
      return Promise.reject(error);
    }
    // One sequence forward: far less than a step of the batch, counted as one.
    const multiplyAdds = this.#info.stepMultiplyAdds;
    return this.#ask('trainerAttention', { ids: copy }, { multiplyAdds, expect: this.#info });
  }

  // The length first: a huge or hostile array is refused before any element is read.
  #idsArgument(ids) {
    const { tokens, vocabulary } = this.#info;
    if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) {
      throw new TypeError(`ids must be an array or a typed array of token ids, got ${typeof ids}`);
    }
    const length = ids.length;
    if (typeof length !== 'number' || length < 1 || length > Math.min(tokens, MAX_IDS)) {
      throw new RangeError(`ids must hold 1 to ${tokens} token ids, got ${String(length)}`);
    }
    const copy = new Int32Array(length);
    for (let i = 0; i < length; i += 1) {
      const id = ids[i];
      if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= vocabulary) {
        throw new RangeError(`ids[${i}] must be a token id from 0 to ${vocabulary - 1}, got ${String(id)}`);
      }
      copy[i] = id;
    }
    return copy;
  }

  /** Frees the trainer; its worker ends with the last trainer on it. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    const last = leaveHost(this.#host);
    if (last && this.where === 'worker') this.#channel.break('stopped');
    else if (!this.#channel.broken) {
      const timeoutMs = this.#host.queuedMs + this.#timeoutMs;
      this.#channel.request('trainerDispose', { trainer: this.#id }, { timeoutMs }).catch(() => {});
    }
  }
}

function settingsOf(given) {
  if (given === null || typeof given !== 'object') throw new TypeError('settings must be an object');
  for (const key of Object.keys(given)) {
    if (!SETTINGS.includes(key)) throw new TypeError(`unknown setting "${key}" (known: ${SETTINGS.join(', ')})`);
  }
  const { timeoutMs = DEFAULT_TIMEOUT_MS, signal } = given;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError('signal must be an AbortSignal');
  if (typeof timeoutMs !== 'number' || !(timeoutMs >= 1 && timeoutMs <= 3_600_000)) {
    throw new RangeError(`timeoutMs must be a number of milliseconds from 1 to 3600000, got ${String(timeoutMs)}`);
  }
  return { ...given, timeoutMs };
}

/**
 * A trainer (createTrainer options) off the calling thread, from module `hw` (a loadHeadwise()
 * instance). settings: kinds (the worker kinds to try, best first; default: what is usable here);
 * workerUrl (the worker's script); timeoutMs (the fixed part of every deadline, default 15 s);
 * signal (an AbortSignal: ends the wait of a trainer that needs another kind of worker at the bound).
 */
export async function createWorkerTrainer(hw, options, settings = {}) {
  const { kinds: asked, workerUrl, timeoutMs, signal } = settingsOf(settings);
  const kinds = asked ?? workerKinds({ workerUrl });
  const key = JSON.stringify([kinds, workerUrl ? String(workerUrl) : null]);
  const host = await joinHost(
    key,
    (onBreak) => {
      workerNumber += 1;
      return openChannel(hw, `trainer worker ${workerNumber}`, kinds, workerUrl, onBreak);
    },
    signal,
  );
  let trainer;
  try {
    const opened = await host.opened;
    trainer = new WorkerTrainer(host, opened, host.nextTrainer++, timeoutMs);
  } catch (error) {
    leaveHost(host);
    throw error;
  }
  try {
    await trainer[CREATE](options);
  } catch (error) {
    trainer.dispose();
    throw error;
  }
  return trainer;
}

export { workerKinds };
