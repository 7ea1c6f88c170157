// Gaussian elimination with partial pivoting for the small systems the teaching weights need.

/** Solves A x = b for a square A given as an array of rows; returns null if A is singular. */
export function solve(A, b) {
  const n = A.length;
  const m = A.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col += 1) {
    let pivot = col;
    for (let r = col + 1; r < n; r += 1) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    if (Math.abs(m[pivot][col]) < 1e-12) return null;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = 0; r < n; r += 1) {
      if (r === col) continue;
      const f = m[r][col] / m[col][col];
      for (let c = col; c <= n; c += 1) m[r][c] -= f * m[col][c];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** The least-squares w of X w = y (X: rows of length d), by the normal equations. */
export function leastSquares(X, y) {
  const d = X[0].length;
  const XtX = Array.from({ length: d }, (_, i) =>
    Array.from({ length: d }, (_, j) => X.reduce((s, row) => s + row[i] * row[j], 0)),
  );
  const Xty = Array.from({ length: d }, (_, i) => X.reduce((s, row, r) => s + row[i] * y[r], 0));
  return solve(XtX, Xty);
}
