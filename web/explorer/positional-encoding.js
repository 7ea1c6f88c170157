// The sinusoidal positions of "Attention is all you need": PE[t, 2i] = sin(t / 10000^(2i/d)),
// PE[t, 2i+1] = cos(t / 10000^(2i/d)). Added to the token vectors, they make order visible.

export function sinusoidalPositions(tokens, dModel) {
  const pe = new Float32Array(tokens * dModel);
  for (let t = 0; t < tokens; t += 1) {
    for (let j = 0; j < dModel; j += 1) {
      const angle = t / 10000 ** ((2 * Math.floor(j / 2)) / dModel);
      pe[t * dModel + j] = j % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
    }
  }
  return pe;
}

/** x + PE, as a new array. */
export function withPositions(x, tokens, dModel) {
  const pe = sinusoidalPositions(tokens, dModel);
  return x.map((value, i) => value + pe[i]);
}
