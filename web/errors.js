/** A configuration or call the core refused, or a module that has stopped; the message says why. */
export class HeadwiseError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'HeadwiseError';
  }
}
