// Every call into the raw module goes through here. After an abort (or a wasm trap) the module's
// memory is in an unknown state, so from then on every call is refused with the reason, instead
// of quietly computing garbage.
//
// A JS exception thrown inside a wasm call (a stack overflow when the caller is deep in
// recursion) unwinds past the C++ epilogues that would have put the module's stack pointer back,
// and may leave C++ code half-way (perhaps inside malloc). So the stack pointer is restored, and
// if the exception left from inside the module, the module is marked stopped with the reason.
// (Probing the JS stack for headroom before each call would avoid the stop, but costs 2-20 us per
// call, more than a whole forward pass of a small layer.)
import { HeadwiseError } from './errors.js';

export class GuardedCore {
  #raw;
  #trap = null;
  // Stack pointer and name of a call that has not returned yet: still set if an exception left
  // it and even the handler could not run (no stack left), so the next use finishes the job.
  #openStack = null;
  #openName = '';
  #interruptedBy = null; // the exception that left a call from inside the module

  constructor(raw) {
    this.#raw = raw;
  }

  /** Why the module stopped, or null while it works. */
  get stoppedReason() {
    if (this.#openStack !== null) this.#close(null);
    if (this.#interruptedBy !== null && this.#trap === null) {
      const error = this.#interruptedBy;
      const what = error === true ? 'an exception' : `${error?.name ?? 'an exception'}: ${error?.message ?? error}`;
      this.#trap = `${this.#openName} was interrupted inside the module by ${what}`;
    }
    return this.#raw.headwiseAbortReason ?? this.#trap;
  }

  call(name, ...args) {
    const stopped = this.stoppedReason;
    if (stopped !== null) {
      throw new HeadwiseError(
        `the WebAssembly module has stopped (${stopped}) and cannot be used any more; ` +
          'load a fresh one with loadHeadwise()',
      );
    }
    const raw = this.#raw;
    this.#openStack = raw.stackSave();
    this.#openName = name;
    let result;
    try {
      result = raw[name](...args);
    } catch (error) {
      this.#close(error);
      if (error instanceof WebAssembly.RuntimeError) {
        this.#trap = error.message;
        throw new HeadwiseError(`the WebAssembly module stopped: ${error.message}`, { cause: error });
      }
      const reason = this.stoppedReason;
      if (reason !== null) throw new HeadwiseError(`the WebAssembly module stopped: ${reason}`, { cause: error });
      throw error;
    }
    this.#openStack = null;
    return result;
  }

  // Ends a call that left by an exception (error null: one whose handler never ran). Each step is
  // ordered so that a new stack overflow part-way leaves enough behind for the next use to redo it.
  #close(error) {
    const raw = this.#raw;
    const stack = this.#openStack;
    if (raw.stackSave() !== stack && !(error instanceof WebAssembly.RuntimeError)) {
      this.#interruptedBy ??= error ?? true;
    }
    raw.stackRestore(stack);
    this.#openStack = null;
  }
}
