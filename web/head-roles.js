// Which job each head of a trained "latest verb and latest noun" model does, from its head shares
// (per head, the mean attention from "?" on the latest verb and on the latest noun over the held-out
// set). The one rule for the API's Trainer.specialisation() and the explorer's Learn verdict.
// Pure module: no DOM, no wasm.

/**
 * A head finds a word when it puts at least this share of its attention from "?" on it: then at
 * most 0.2 is left for the other word, so a 0.52 / 0.47 split is no role.
 */
export const ROLE_SHARE = 0.8;
/** Below this on both words, for every head: the shared compromise of one head (about 0.3 / 0.3). */
export const MIXED_SHARE = 0.5;

const checkThreshold = (threshold) => {
  if (typeof threshold !== 'number' || !(threshold > 0 && threshold <= 1)) {
    throw new RangeError(`threshold must be a number in (0, 1], got ${String(threshold)}`);
  }
};

/**
 * shares: [{ verb, noun }] per head; variant 'verb-noun' or 'verb' (the control: only the verb is
 * asked for). Returns
 *   roles: per head 'verb', 'noun' or null (a head finds the word it puts >= threshold on);
 *   state: 'specialised' when one head finds the verb and another the noun ('verb': a head finds
 *     the verb), 'mixed' when no head puts even MIXED_SHARE on either word, else 'partial';
 *   verbHead, nounHead, verb, noun: the best pairing of two different heads (the largest smaller
 *     share; nounHead and noun are null for 'verb', and the same head with 1 head).
 */
export function headRoles(shares, { variant = 'verb-noun', threshold = ROLE_SHARE } = {}) {
  checkThreshold(threshold);
  if (!Array.isArray(shares) || shares.length === 0) throw new TypeError('shares must be a non-empty array');
  const roles = shares.map(({ verb, noun }) => {
    if (verb >= threshold && verb >= noun) return 'verb';
    if (variant !== 'verb' && noun >= threshold) return 'noun';
    return null;
  });
  let best = null;
  if (variant === 'verb') {
    shares.forEach(({ verb }, h) => {
      if (best === null || verb > best.verb) best = { verbHead: h, nounHead: null, verb, noun: null };
    });
  } else {
    for (let v = 0; v < shares.length; v += 1) {
      for (let n = 0; n < shares.length; n += 1) {
        if (v === n && shares.length > 1) continue;
        const score = Math.min(shares[v].verb, shares[n].noun);
        if (best === null || score > best.score) {
          best = { verbHead: v, nounHead: n, verb: shares[v].verb, noun: shares[n].noun, score };
        }
      }
    }
    delete best.score;
  }
  const found = variant === 'verb' ? roles.includes('verb') : roles.includes('verb') && roles.includes('noun');
  const mixed = shares.every(({ verb, noun }) => verb < MIXED_SHARE && noun < MIXED_SHARE);
  return { state: found ? 'specialised' : mixed ? 'mixed' : 'partial', roles, ...best };
}
