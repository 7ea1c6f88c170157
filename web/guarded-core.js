// Every call into the raw module goes through here. After an abort (or a wasm trap) the module's
// memory is in an unknown state, so from then on every call is refused with the reason, instead
// of quietly computing garbage.
import { HeadwiseError } from './errors.js';

export class GuardedCore {
  #raw;
  #trap = null;

  constructor(raw) { this.#raw = raw; }

  /** Why the module stopped, or null while it works. */
  get stoppedReason() { return this.#raw.headwiseAbortReason ?? this.#trap; }

  call(name, ...args) {
    const stopped = this.stoppedReason;
    if (stopped !== null) {
      throw new HeadwiseError(`the WebAssembly module has stopped (${stopped}) and cannot be used any more; `
        + 'load a fresh one with loadHeadwise()');
    }
    try {
      return this.#raw[name](...args);
    } catch (error) {
      if (!(error instanceof WebAssembly.RuntimeError)) throw error;
      this.#trap = error.message;
      throw new HeadwiseError(`the WebAssembly module stopped: ${error.message}`, { cause: error });
    }
  }
}
