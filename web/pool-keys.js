// Keys of the methods only the pool calls (web/pool/serve.js, web/pool/data-parallel.js): registered
// symbols, the same in every copy of the module a worker may load, so they are no public members of
// MultiHeadAttention or Trainer and the .d.ts need not declare them.
/** A layer's forward with x read from a kept buffer and the output written back into it. */
export const FORWARD_IN_PLACE = Symbol.for('headwise.forwardInPlace');
/** A trainer's parameterBuffer() written into a kept Float32Array. */
export const PARAMETER_BUFFER_INTO = Symbol.for('headwise.parameterBufferInto');
