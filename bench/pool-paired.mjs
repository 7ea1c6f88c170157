// The paired protocol of the pool benchmark, the same in Node and in a browser page: every side
// runs in one process, taking turns sample by sample (the order rotates each round), so a slow
// phase of a shared machine hits every side of a ratio. Warm-up as bench/timing.mjs (>= 3 calls
// and >= 1 s per side, V8 tiers up on later calls); a sample is enough calls to last >= 20 ms.

const now = () => performance.now();

async function warm(side) {
  const start = now();
  let fastest = Infinity;
  for (let calls = 0; !((calls >= 3 && now() - start >= 1000) || (calls >= 1 && now() - start >= 4000)); calls += 1) {
    const t0 = now();
    await side.run();
    fastest = Math.min(fastest, now() - t0);
  }
  // A page that is not cross-origin isolated rounds performance.now() to 0.1 ms: a call may read 0.
  return Math.min(100_000, Math.max(1, Math.ceil(20 / Math.max(fastest, 0.001))));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  return n % 2 ? sorted[n >> 1] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
};

/**
 * sides: [{ name, run: async () => void }]. Rounds until >= minRounds and >= minMs, or maxRounds,
 * or past maxMs (with >= 3 rounds). Returns per side { medianMs, minMs, maxMs, samples, calls }
 * and, for each side against the first, the median of the per-round ratios.
 */
export async function paired(sides, { minRounds = 9, maxRounds = 25, minMs = 4000, maxMs = 30000 } = {}) {
  const calls = [];
  for (const side of sides) calls.push(await warm(side));
  const times = sides.map(() => []);
  const start = now();
  for (let round = 0; round < maxRounds; round += 1) {
    const elapsed = now() - start;
    if ((round >= minRounds && elapsed >= minMs) || (round >= 3 && elapsed >= maxMs)) break;
    for (let k = 0; k < sides.length; k += 1) {
      const i = (round + k) % sides.length;
      const t0 = now();
      for (let c = 0; c < calls[i]; c += 1) await sides[i].run();
      times[i].push((now() - t0) / calls[i]);
    }
  }
  return sides.map((side, i) => ({
    name: side.name,
    medianMs: median(times[i]),
    minMs: Math.min(...times[i]),
    maxMs: Math.max(...times[i]),
    samples: times[i].length,
    calls: calls[i],
    // time of this side / time of the first side, round by round
    pairedRatio: median(times[i].map((t, r) => t / times[0][r])),
  }));
}

export function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i += 1) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}
