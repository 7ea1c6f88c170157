// Small helpers over typed arrays that the owner and the panels' numbers share.

/** The largest |a[i] - b[i]|. */
export const maxAbsDiff = (a, b) => {
  let m = 0;
  for (let i = 0; i < a.length; i += 1) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

/** The largest |v|. */
export function largestAbs(values) {
  let m = 0;
  for (const v of values) m = Math.max(m, Math.abs(v));
  return m;
}

/** Row i of a row-major matrix of rows `width` long (a view, not a copy). */
export const rowOf = (values, i, width) => values.subarray(i * width, (i + 1) * width);
