// Times loop against fused for 2..4000 heads of head_dim 3 on the lecture's width 6. Runs in
// slices (one measurement per task) so the page keeps drawing and answering; workers are not an
// option because browsers refuse them from file://. V8 swaps in optimised wasm only at a
// function's next call, so everything is warmed up before it is timed. Between measurements it
// waits while the page is out of view (whenActive), so a hidden explorer does no work.
// Both versions are timed as npm users run them: forward(x) and forward(x, { variant: 'loop' }),
// without intermediates, so the fast attention kernels run (keeping the (B, H, T, T) scores
// selects the slower kernel that writes them).

export const SWEEP_HEADS = Object.freeze([2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 2000, 4000]);
// Browsers round performance.now() to 0.1 ms here (no cross-origin isolation): each sample
// repeats the call until it lasts about this long.
const SAMPLE_MS = 8;
const LOOP = Object.freeze({ variant: 'loop' });

const nextSlice = () => new Promise((resolve) => setTimeout(resolve, 0));
const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function timeCalls(run, reps) {
  const t0 = performance.now();
  for (let i = 0; i < reps; i += 1) run();
  return (performance.now() - t0) / reps;
}

/**
 * @param hw the loaded module
 * @param {{ tokens: number, seed?: number, heads?: number[], runs?: number,
 *   onProgress?: (done: number, total: number, point?: object) => void, isCancelled?: () => boolean,
 *   whenActive?: () => Promise<void> }} o
 * @returns {Promise<{ points: { heads: number, fusedMs: number, loopMs: number, maxDiff: number }[],
 *   cancelled: boolean }>}
 */
export async function runHeadsSweep(
  hw,
  {
    tokens,
    seed = 1,
    heads = SWEEP_HEADS,
    runs = 5,
    onProgress = () => {},
    isCancelled = () => false,
    whenActive = async () => {},
  },
) {
  const nextTask = async () => {
    await nextSlice();
    await whenActive();
  };
  const config = (H) => ({ batch: 1, tokens, dModel: 6, heads: H, headDim: 3, causal: true, seed });
  const x = hw.randomInput(config(2), seed);
  // Warm-up: enough calls at a middle size for every kernel to be tiered up.
  const warm = hw.createAttention(config(64));
  try {
    for (let i = 0; i < 4; i += 1) {
      timeCalls(() => warm.forward(x), 10);
      timeCalls(() => warm.forward(x, LOOP), 10);
      await nextTask();
    }
  } finally {
    warm.dispose();
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
      const single = Math.max(timeCalls(fused, 1), timeCalls(loop, 1), 0.005);
      const reps = Math.max(1, Math.min(2000, Math.ceil(SAMPLE_MS / single)));
      timeCalls(fused, reps);
      timeCalls(loop, reps);
      await nextTask();
      const fusedSamples = [];
      const loopSamples = [];
      for (let r = 0; r < runs; r += 1) {
        fusedSamples.push(timeCalls(fused, reps));
        await nextTask();
        loopSamples.push(timeCalls(loop, reps));
        await nextTask();
        if (isCancelled()) return { points, cancelled: true };
      }
      const point = { heads: H, fusedMs: median(fusedSamples), loopMs: median(loopSamples), maxDiff, reps, runs };
      points.push(point);
      onProgress(index + 1, heads.length, point);
    } finally {
      layer.dispose();
    }
  }
  return { points, cancelled: false };
}
