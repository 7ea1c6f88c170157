// One worker as the pool sees it: numbered requests, each answered once within its deadline, every
// reply checked against protocol.js. The first thing that goes wrong (the worker dies, misses a
// deadline, sends what was not asked for) breaks the channel: the worker is terminated and every
// waiting request fails with a WorkerFailure that says why.
import { replyProblem } from './protocol.js';
import { HeadwiseError } from '../errors.js';

/** A worker that is no longer usable; `reason` in words. */
export class WorkerFailure extends HeadwiseError {
  constructor(reason) {
    super(reason);
    this.reason = reason;
  }
}

const ERRORS = { TypeError, RangeError, HeadwiseError, Error };

export class Channel {
  #endpoint;
  #name;
  #pending = new Map();
  #nextId = 1;
  #broken = null;
  /** Called once with the reason when the channel breaks (the worker is gone). */
  onBreak = () => {};

  constructor(endpoint, name) {
    this.#endpoint = endpoint;
    this.#name = name;
    endpoint.onMessage = (data) => this.#receive(data);
    endpoint.onFailure = (what) => this.break(`${name} ${what}`);
  }

  get name() {
    return this.#name;
  }

  /** Why the channel broke, or null while it works. */
  get broken() {
    return this.#broken;
  }

  /**
   * Sends { op, ...fields } and resolves with the result. timeoutMs: how long the answer may take.
   * expectedLength: the forward's output length; expect: what else the reply is checked against
   * (protocol.js). A worker's own error reply rejects with that error.
   */
  request(op, fields, { transfer = [], timeoutMs, expectedLength, expect } = {}) {
    if (this.#broken) return Promise.reject(new WorkerFailure(this.#broken));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      // A deadline is judged once this thread has read its messages: a reply that came while this
      // thread was busy (sending a burst of requests, say) is in time.
      const late = () => {
        if (this.#pending.has(id)) this.break(`${this.#name} did not answer ${op} within ${Math.round(timeoutMs)} ms`);
      };
      const timer = setTimeout(() => setTimeout(late), timeoutMs);
      this.#pending.set(id, { id, op, expected: expectedLength ?? expect, resolve, reject, timer });
      this.#endpoint.busy(true);
      try {
        this.#endpoint.post({ id, op, ...fields }, transfer);
      } catch (error) {
        this.break(`${this.#name} could not be sent ${op}: ${error?.message ?? error}`);
      }
    });
  }

  /** Terminates the worker; waiting requests fail with the reason. Later calls keep the first reason. */
  break(reason) {
    if (this.#broken) return;
    this.#broken = reason;
    this.#endpoint.terminate();
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new WorkerFailure(reason));
    }
    this.#pending.clear();
    this.onBreak(reason);
  }

  #receive(data) {
    if (this.#broken) return;
    const pending = this.#pending.get(data?.id);
    const problem = replyProblem(data, pending);
    if (problem) {
      this.break(`${this.#name} sent an invalid message: ${problem}`);
      return;
    }
    this.#pending.delete(pending.id);
    clearTimeout(pending.timer);
    if (this.#pending.size === 0) this.#endpoint.busy(false);
    if (data.ok) pending.resolve(data.result);
    else pending.reject(new ERRORS[data.error.name](`${this.#name}: ${data.error.message}`));
  }
}
