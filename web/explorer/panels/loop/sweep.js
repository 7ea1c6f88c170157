// Times loop against fused for 2..4000 heads of head_dim 3 on the lecture's batch of two
// six-token sentences of width 6 (the shapes `npm run bench` times as heads-N, so the two can be
// compared). Runs in slices (one timed run per task) so the page keeps drawing and answering;
// workers are not an option because browsers refuse them from file://. V8 swaps in optimised wasm
// only at a function's next call, so every size is warmed up before it is timed. Between
// measurements it waits while the page is out of view (whenActive), so a hidden explorer does no
// work. Both versions are timed as npm users run them: forward(x) and forward(x, { variant:
// 'loop' }), without intermediates, so the fast attention kernels run.

export const SWEEP_HEADS = Object.freeze([2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 2000, 4000]);
export const SWEEP_CONFIG = Object.freeze({ batch: 2, tokens: 6, dModel: 6, headDim: 3, causal: true });
// Browsers round performance.now() to 0.1 ms in a page that is not cross-origin isolated: each
// sample repeats the call until it lasts at least this long, so the rounding is at most 1% of it.
export const SAMPLE_MS = 10;
const MAX_REPS = 20000;
const LOOP = Object.freeze({ variant: 'loop' });

const nextSlice = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Median, minimum and maximum of a list of numbers. */
export function spread(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return { median: s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2, min: s[0], max: s.at(-1) };
}

/** How many calls make one sample last at least SAMPLE_MS, given one call's time in ms. */
export const repsFor = (singleMs) => Math.max(1, Math.min(MAX_REPS, Math.ceil(SAMPLE_MS / Math.max(singleMs, 1e-4))));

function timeCalls(run, reps) {
  const t0 = performance.now();
  for (let i = 0; i < reps; i += 1) run();
  return (performance.now() - t0) / reps;
}

// One sample: the time per call over reps[key] calls. A sample that ran shorter than SAMPLE_MS
// (the calls got faster since the count was set) is taken again with a larger count. Every timed
// run is a task of its own (about SAMPLE_MS long): `pause` yields to the page between them.
async function sample(run, reps, key, pause) {
  let perCall = timeCalls(run, reps[key]);
  for (let i = 0; i < 3 && perCall * reps[key] < SAMPLE_MS && reps[key] < MAX_REPS; i += 1) {
    reps[key] = perCall > 0 ? repsFor(perCall) : Math.min(MAX_REPS, reps[key] * 10);
    await pause();
    perCall = timeCalls(run, reps[key]);
  }
  return perCall;
}

// The count of calls per sample, from the fastest of four runs of growing length: the first runs
// are also the warm-up at this size and can be several times slower than later ones. A run the
// clock reads as 0 ms says only that the call is faster than a tick: it grows the count.
async function calibrate(run, pause) {
  let reps = 1;
  let best = Infinity;
  for (let i = 0; i < 4; i += 1) {
    if (i > 0) await pause();
    const perCall = timeCalls(run, reps);
    if (perCall > 0) best = Math.min(best, perCall);
    reps = best === Infinity ? Math.min(MAX_REPS, reps * 100) : repsFor(best);
  }
  return reps;
}

/**
 * @param hw the loaded module
 * @param {{ tokens?: number, batch?: number, seed?: number, heads?: number[], runs?: number,
 *   onProgress?: (done: number, total: number, point?: object) => void, isCancelled?: () => boolean,
 *   whenActive?: () => Promise<void> }} o
 * @returns {Promise<{ points: { heads: number, fused: object, loop: object, fusedMs: number, loopMs: number,
 *   maxDiff: number, reps: { fused: number, loop: number }, runs: number }[], cancelled: boolean }>}
 */
export async function runHeadsSweep(
  hw,
  {
    tokens = SWEEP_CONFIG.tokens,
    batch = SWEEP_CONFIG.batch,
    seed = 1,
    heads = SWEEP_HEADS,
    runs = 7,
    onProgress = () => {},
    isCancelled = () => false,
    whenActive = async () => {},
  },
) {
  const nextTask = async () => {
    await nextSlice();
    await whenActive();
  };
  const config = (H) => ({ ...SWEEP_CONFIG, batch, tokens, heads: H, seed });
  const x = hw.randomInput(config(2), seed);
  // Warm-up at the smallest, a middle and the largest size: the short-head, lanes and GEMM paths
  // each reach V8's optimised tier before anything is timed (a first sweep warmed at one size
  // showed fused slower at 2 heads than at 4).
  for (const H of [heads[0], 64, heads.at(-1)]) {
    const warm = hw.createAttention(config(H));
    try {
      for (const run of [() => warm.forward(x), () => warm.forward(x, LOOP)]) {
        await calibrate(run, nextTask);
        await nextTask();
        if (isCancelled()) return { points: [], cancelled: true };
      }
    } finally {
      warm.dispose();
    }
  }
  const points = [];
  for (const [index, H] of heads.entries()) {
    if (isCancelled()) return { points, cancelled: true };
    const layer = hw.createAttention(config(H));
    try {
      const fused = () => layer.forward(x);
      const loop = () => layer.forward(x, LOOP);
      let maxDiff = 0;
      const a = fused();
      const b = loop();
      for (let i = 0; i < a.length; i += 1) maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
      await nextTask();
      const reps = { fused: await calibrate(fused, nextTask) };
      await nextTask();
      reps.loop = await calibrate(loop, nextTask);
      await nextTask();
      const fusedSamples = [];
      const loopSamples = [];
      for (let r = 0; r < runs; r += 1) {
        // Alternate which goes first, so a slow phase of the machine does not favour one.
        const order = r % 2 ? [loop, fused] : [fused, loop];
        for (const run of order) {
          const key = run === fused ? 'fused' : 'loop';
          (key === 'fused' ? fusedSamples : loopSamples).push(await sample(run, reps, key, nextTask));
          await nextTask();
        }
        if (isCancelled()) return { points, cancelled: true };
      }
      const f = spread(fusedSamples);
      const l = spread(loopSamples);
      const point = { heads: H, fused: f, loop: l, fusedMs: f.median, loopMs: l.median, maxDiff, reps, runs };
      points.push(point);
      onProgress(index + 1, heads.length, point);
    } finally {
      layer.dispose();
    }
  }
  return { points, cancelled: false };
}
