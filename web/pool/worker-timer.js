// Layers timed off the calling thread, in one of the page's trainer workers (worker-slots.js: the
// same bounded workers "Train live" uses, shared with the trainers there, taking turns): the kv
// panel's "Time generation". The worker creates the layer (its weights from config.seed, as
// createAttention), decodes positions into its KV cache or runs its forward pass, and answers each
// call's milliseconds on its own clock (protocol.js decodeTime, forwardTime), so the page's thread
// does none of the work it times. Where no worker starts, nothing is timed: the ops would run on the
// page's thread, blocking it for seconds, so open() refuses in words instead.
import { SLOWEST_MULTIPLY_ADDS_PER_MS } from './protocol.js';
import { inTurn, joinTrainerHost } from './worker-trainer.js';
import { leaveHost } from './worker-slots.js';
import { workerKinds } from './spawn.js';
import { HeadwiseError } from '../errors.js';

const DEFAULT_TIMEOUT_MS = 15_000;

export class WorkerTimer {
  #host;
  #channel;
  #timeoutMs;
  #layers = new Set();
  #disposed = false;

  /** @internal use WorkerTimer.open() */
  constructor(host, channel, timeoutMs) {
    this.#host = host;
    this.#channel = channel;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * A place in a trainer worker of module `hw`. settings: kinds (worker kinds, best first),
   * workerUrl, timeoutMs (the fixed part of every deadline, default 15 s; the work's part is added
   * at the slowest rate), signal (an AbortSignal ending a wait for a worker).
   */
  static async open(hw, { kinds, workerUrl, timeoutMs = DEFAULT_TIMEOUT_MS, signal } = {}) {
    const host = await joinTrainerHost(hw, kinds ?? workerKinds({ workerUrl }), workerUrl, signal);
    let opened;
    try {
      opened = await host.opened;
    } catch (error) {
      leaveHost(host);
      throw error;
    }
    const timer = new WorkerTimer(host, opened.channel, timeoutMs);
    if (opened.where !== 'worker') {
      timer.dispose();
      throw new HeadwiseError(
        `no worker started here (${opened.why}): the timing is not run on the page's thread, which it would ` +
          'block for seconds',
      );
    }
    return timer;
  }

  get disposed() {
    return this.#disposed;
  }

  /** Why its worker broke (died, missed a deadline, sent a wrong reply), or null. */
  get failure() {
    return this.#channel.broken;
  }

  #ask(op, fields, { multiplyAdds = 0, expect, transfer } = {}) {
    if (this.#disposed) return Promise.reject(new HeadwiseError('this timer was disposed'));
    const timeoutMs = this.#timeoutMs + multiplyAdds / SLOWEST_MULTIPLY_ADDS_PER_MS;
    return inTurn(this.#host, () => {
      if (this.#disposed) throw new HeadwiseError('this timer was disposed');
      return this.#channel.request(op, fields, { timeoutMs, expect, transfer });
    });
  }

  /** A layer (createAttention's config, checked in the worker) there; resolves with its id. */
  async create(config) {
    this.#host.nextLayer = (this.#host.nextLayer ?? 0) + 1;
    const layer = this.#host.nextLayer;
    // Its weights are drawn from the seed there: about a multiply-add's work per weight.
    await this.#ask('create', { layer, config }, { multiplyAdds: 4 * (config.dModel ?? 64) ** 2 });
    this.#layers.add(layer);
    return layer;
  }

  /**
   * x (positions x batch x dModel, transferred) decoded one position a call into the layer's cache:
   * { length (the cache's positions after), ms (each call's) }. multiplyAdds: their work, for the deadline.
   */
  decodeTime(layer, x, { positions, multiplyAdds }) {
    return this.#ask('decodeTime', { layer, x }, { multiplyAdds, expect: positions, transfer: [x.buffer] });
  }

  /** forward(x) `repeats` times: { ms } (each call's). multiplyAdds: one call's work, for the deadline. */
  forwardTime(layer, x, { repeats, multiplyAdds }) {
    const work = multiplyAdds * repeats;
    return this.#ask(
      'forwardTime',
      { layer, x, repeats },
      { multiplyAdds: work, expect: repeats, transfer: [x.buffer] },
    );
  }

  /** Frees a layer in the worker. */
  disposeLayer(layer) {
    if (!this.#layers.delete(layer) || this.#channel.broken) return Promise.resolve();
    return this.#ask('dispose', { layer }).then(
      () => {},
      () => {},
    );
  }

  /** Frees its layers; the worker ends when nothing else uses it. Calling it twice is harmless. */
  dispose() {
    if (this.#disposed) return;
    const layers = [...this.#layers];
    this.#layers.clear();
    if (!leaveHost(this.#host)) {
      for (const layer of layers) {
        const send = () => this.#channel.request('dispose', { layer }, { timeoutMs: this.#timeoutMs });
        inTurn(this.#host, send).catch(() => {});
      }
    } else this.#channel.break('stopped');
    this.#disposed = true;
  }
}
