import { expect } from 'vitest';
import { compare } from './reference.js';

expect.extend({
  toBeCloseToReference(actual, expected, atol = 1e-5, rtol = 1e-5) {
    const { maxDiff, failure } = compare(actual, expected, atol, rtol);
    return {
      pass: failure === null,
      message: () =>
        failure === null
          ? `expected a difference beyond atol ${atol} + rtol ${rtol}, max |diff| was ${maxDiff}`
          : `not within atol ${atol} + rtol ${rtol}: ${failure}; max |diff| ${maxDiff}`,
    };
  },
});
