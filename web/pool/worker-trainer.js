// One trainer off the calling thread, in one of the page's trainer workers (the pool's worker,
// serve.js: a Node worker_threads Worker, a module Worker from a same-origin file, or a classic one
// from a Blob URL, e.g. on file://). How many such workers run is bounded page-wide, and trainers
// share them past the bound (worker-slots.js). Where no worker starts, the same ops run on this
// thread, one request per task (then a step is a long task: `where` and `why` say so). The whole
// trainer lives in the worker: a request of n steps costs the caller one message.
//
// Its members and checks are every trainer's (web/trainer-contract.js).
//
// Deadlines: this thread sends a worker one request at a time (the trainers sharing it take
// turns), so nothing is queued before a request in the worker; every request may take timeoutMs
// (default 15 s) plus its work (steps x the trainer's multiply-adds per step, which the worker
// reports at creation) at a rate 50 times below this machine's, counted from when it is sent; a
// worker that misses one is terminated, and the trainer (and every trainer sharing that worker)
// fails with the reason. A disposed trainer's requests still waiting for their turn are dropped.
import { Channel } from './channel.js';
import {
  attentionOf,
  DescribedTrainer,
  disposedError,
  sequenceIdsOf,
  stepCount,
  weightsArgument,
  zeroHeadsArgument,
} from '../trainer-contract.js';
import { MAX_TRAIN_STEPS, REQUEST_WORK_LIMIT, SLOWEST_MULTIPLY_ADDS_PER_MS } from './protocol.js';
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

/** A trainer in a trainer worker, with the members and checks of every trainer (trainer-contract.js). */
export class WorkerTrainer extends DescribedTrainer {
  #host;
  #channel;
  #id;
  #timeoutMs;
  #info = null;
  #rows = null;
  #disposed = false;
  #divergedSteps = 0;

  /** @internal use createWorkerTrainer() */
  constructor(host, opened, id, timeoutMs) {
    // options, task, parameters, stepMultiplyAdds: as the worker's trainer reported them.
    super(() => this.#info);
    this.#host = host;
    this.#channel = opened.channel;
    this.#id = id;
    this.#timeoutMs = timeoutMs;
    /** 'worker', or 'page' where no worker started (why says why). */
    this.where = opened.where;
    this.why = opened.why ?? null;
    /** Steps taken (as the worker's trainer last reported). */
    this.steps = 0;
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

  /**
   * The most steps one step(n) may ask for: in a worker, one request's work limit (at most
   * MAX_TRAIN_STEPS); on the page (no worker), one call's limit, as a Trainer's.
   */
  get maxStepsPerCall() {
    const inWorker = Math.min(MAX_TRAIN_STEPS, Math.floor(REQUEST_WORK_LIMIT / this.#info.stepMultiplyAdds));
    return Math.max(1, this.where === 'page' ? Math.min(inWorker, this.#info.maxStepsPerCall) : inWorker);
  }

  // Sends one request in its turn: a worker gets one request at a time from this thread (its host's
  // queue), so its deadline (the fixed part and its work at the slowest rate) runs from when it is
  // sent, with nothing queued before it; a request of a trainer disposed meanwhile is dropped unsent.
  #ask(op, fields, { multiplyAdds = 0, extraMs = 0, expect, transfer } = {}) {
    if (this.#disposed) return Promise.reject(disposedError());
    const timeoutMs = this.#timeoutMs + extraMs + multiplyAdds / SLOWEST_MULTIPLY_ADDS_PER_MS;
    return inTurn(this.#host, () => {
      if (this.#disposed) throw disposedError();
      return this.#channel.request(op, { trainer: this.#id, ...fields }, { timeoutMs, expect, transfer });
    });
  }

  async [CREATE](options) {
    // Its work is not known before it answers (building the rows, drawing the held-out set).
    const info = await this.#ask('trainerCreate', { options }, { extraMs: CREATE_MS });
    const task = Object.freeze({ ...info.task, words: Object.freeze(info.task.words) });
    const parameters = Object.freeze(
      info.parameters.map((p) => Object.freeze({ ...p, shape: Object.freeze(p.shape) })),
    );
    this.#info = Object.freeze({ ...info, options: Object.freeze(info.options), task, parameters });
    this.#rows = new Map(parameters.map((p) => [p.name, { shape: p.shape, size: p.shape.reduce((a, b) => a * b, 1) }]));
  }

  /** n steps (1 to maxStepsPerCall): the mean loss and accuracy of the n batches, as Trainer.step(n). */
  async step(n = 1) {
    if (this.#disposed) throw disposedError();
    stepCount(n, this);
    const multiplyAdds = n * this.#info.stepMultiplyAdds;
    const expect = { divergedSteps: this.#divergedSteps };
    const result = await this.#ask('trainerStep', { steps: n }, { multiplyAdds, expect });
    this.steps = result.step;
    this.#divergedSteps = result.divergedSteps;
    return result;
  }

  // The held-out batches run forward only (a third of a step each), the role probes about a batch more.
  #measureWork() {
    const { evalSize, batch, stepMultiplyAdds } = this.#info;
    return (Math.ceil(evalSize / batch) + 1) * stepMultiplyAdds;
  }

  /** Loss and accuracy on the held-out set, as Trainer.evaluate({ zeroHeads }). */
  async evaluate(options) {
    if (this.#disposed) throw disposedError();
    const zeroHeads = zeroHeadsArgument(options, this.#info.options);
    return this.#ask('trainerEvaluate', { zeroHeads }, { multiplyAdds: this.#measureWork() });
  }

  /**
   * { step, heldOut (evaluate()), roles (roleScores()) }: one request to a worker; on the page two,
   * so that no task does more than one call's work.
   */
  async measure() {
    const multiplyAdds = this.#measureWork();
    if (this.where !== 'page') return this.#ask('trainerMeasure', {}, { multiplyAdds, expect: this.#info });
    const heldOut = await this.#ask('trainerEvaluate', {}, { multiplyAdds });
    const roles = await this.#ask('trainerRoles', {}, { multiplyAdds, expect: this.#info });
    return { step: heldOut.step, heldOut, roles };
  }

  /** Token ids of one sequence of the task, as Trainer.sequenceIds(). */
  sequenceIds(sequence) {
    if (this.#disposed) throw disposedError();
    return sequenceIdsOf(this.#info.task, sequence);
  }

  /** Every block's attention on one sequence, as Trainer.attention(): { tokens, layers: [{ queries, heads }] }. */
  async attention(sequence) {
    const ids = Int32Array.from(this.sequenceIds(sequence));
    // One sequence forward: far less than a step of the batch, counted as one.
    const multiplyAdds = this.#info.stepMultiplyAdds;
    const maps = await this.#ask('trainerAttention', { ids }, { multiplyAdds, expect: this.#info });
    return attentionOf(this.#info.task, ids, maps);
  }

  /** The parameters as JSON-able arrays, with the format, the options and the step (as Trainer.getWeights). */
  getWeights() {
    return this.#ask('trainerGetWeights', {}, { expect: this.#info });
  }

  /** Replaces any of the parameters, checked here as Trainer.setWeights checks them before anything is sent. */
  async setWeights(weights) {
    if (this.#disposed) throw disposedError();
    const tensors = Object.fromEntries(weightsArgument(this.#rows, weights, this.#info.options.layers));
    await this.#ask('trainerSetWeights', { tensors }, { transfer: Object.values(tensors).map((t) => t.buffer) });
  }

  /** Frees the trainer (its queued requests are dropped unsent); its worker ends with the last trainer on it. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    const last = leaveHost(this.#host);
    if (last && this.where === 'worker') this.#channel.break('stopped');
    else if (!this.#channel.broken) {
      const request = () =>
        this.#channel.request('trainerDispose', { trainer: this.#id }, { timeoutMs: this.#timeoutMs });
      inTurn(this.#host, request).catch(() => {});
    }
  }
}

/**
 * @internal a place in one of the page's trainer workers (worker-slots.js: opened here, or shared
 * with the trainers already there); worker-timer.js times layers in them too.
 */
export function joinTrainerHost(hw, kinds, workerUrl, signal) {
  const key = JSON.stringify([kinds, workerUrl ? String(workerUrl) : null]);
  const open = (onBreak) => {
    workerNumber += 1;
    return openChannel(hw, `trainer worker ${workerNumber}`, kinds, workerUrl, onBreak);
  };
  return joinHost(key, open, signal);
}

/** @internal `send` runs when the host's previous request has settled; its promise is the answer. */
export function inTurn(host, send) {
  const answer = host.turn.then(send, send);
  host.turn = answer.catch(() => {});
  return answer;
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
 * signal (an AbortSignal: abandons the creation at any point, rejecting with its reason; a wait for
 * a worker ends, and the trainer's creation is dropped if not sent yet, or freed once it answers).
 */
export async function createWorkerTrainer(hw, options, settings = {}) {
  const { kinds: asked, workerUrl, timeoutMs, signal } = settingsOf(settings);
  const kinds = asked ?? workerKinds({ workerUrl });
  const host = await joinTrainerHost(hw, kinds, workerUrl, signal);
  let trainer;
  try {
    const opened = await untilAborted(host.opened, signal);
    trainer = new WorkerTrainer(host, opened, host.nextTrainer++, timeoutMs);
  } catch (error) {
    if (leaveHost(host)) host.opened.then(({ channel }) => channel.break('stopped')).catch(() => {});
    throw error;
  }
  try {
    await untilAborted(trainer[CREATE](options), signal);
  } catch (error) {
    trainer.dispose();
    throw error;
  }
  return trainer;
}

// `promise`, or a rejection with the signal's reason as soon as it aborts.
function untilAborted(promise, signal) {
  if (!signal) return promise;
  signal.throwIfAborted();
  let abort;
  const aborted = new Promise((_, reject) => {
    abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', abort));
}

export { workerKinds };
