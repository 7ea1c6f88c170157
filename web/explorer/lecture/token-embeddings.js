// One deterministic vector per distinct token, whatever its position: the lecture's lookup table.
// The values come from the module's own seeded generator (hw.randomInput), seeded by a hash of the
// lower-cased token, so "The" and "the" share a vector and every browser gets the same numbers.

/** FNV-1a over the UTF-16 code units: a stable 32-bit seed for a token. */
export function tokenSeed(token) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < token.length; i += 1) {
    hash ^= token.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export const tokenKey = (token) => token.toLowerCase();

/** The vector of one token, length dModel. */
export function tokenVector(hw, token, dModel) {
  return hw.randomInput({ batch: 1, tokens: 1, dModel }, tokenSeed(tokenKey(token)));
}

/** The (T, dModel) input for a list of tokens, row t being token t's vector. */
export function embedTokens(hw, tokens, dModel) {
  const x = new Float32Array(tokens.length * dModel);
  const cache = new Map();
  tokens.forEach((token, t) => {
    const key = tokenKey(token);
    if (!cache.has(key)) cache.set(key, tokenVector(hw, token, dModel));
    x.set(cache.get(key), t * dModel);
  });
  return x;
}
