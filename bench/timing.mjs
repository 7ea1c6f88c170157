// One timing protocol for every peer (bench/native_bench.cpp and bench/torch_bench.py follow the
// same rules): warm up (V8 swaps in optimised code only on a later call, compiled in the
// background: on this loaded 2-core machine that once took over half a second) for >= 3 calls and
// >= 1 s (or one call past 4 s), then time samples of `batch` calls each, a sample lasting
// >= 1 ms, until >= 7 samples and 1.5 s (or >= 3 samples past 8 s, or 300 samples).
class Plan {
  constructor() {
    this.calls = 0;
    this.start = performance.now();
    this.perCall = [];
  }
  warming() {
    const elapsed = performance.now() - this.start;
    if (!((this.calls >= 3 && elapsed >= 1000) || (this.calls >= 1 && elapsed >= 4000))) return true;
    this.batch = Math.max(1, Math.ceil(1 / this.fastestMs));
    this.sampleStart = performance.now();
    return false;
  }
  sampling() {
    const n = this.perCall.length,
      elapsed = performance.now() - this.sampleStart;
    return !((n >= 7 && elapsed >= 1500) || (n >= 3 && elapsed >= 8000) || n >= 300);
  }
  result() {
    const t = [...this.perCall].sort((a, b) => a - b);
    return { medianMs: t[t.length >> 1], minMs: t[0], maxMs: t.at(-1), samples: t.length, callsPerSample: this.batch };
  }
}

export function timeCalls(run) {
  const plan = new Plan();
  for (; plan.warming(); plan.calls += 1) {
    const t0 = performance.now();
    run();
    plan.fastestMs = Math.min(plan.fastestMs ?? Infinity, performance.now() - t0);
  }
  while (plan.sampling()) {
    const t0 = performance.now();
    for (let i = 0; i < plan.batch; ++i) run();
    plan.perCall.push((performance.now() - t0) / plan.batch);
  }
  return plan.result();
}

// The same for a forward that returns a promise (onnxruntime-web).
export async function timeCallsAsync(run) {
  const plan = new Plan();
  for (; plan.warming(); plan.calls += 1) {
    const t0 = performance.now();
    await run();
    plan.fastestMs = Math.min(plan.fastestMs ?? Infinity, performance.now() - t0);
  }
  while (plan.sampling()) {
    const t0 = performance.now();
    for (let i = 0; i < plan.batch; ++i) await run();
    plan.perCall.push((performance.now() - t0) / plan.batch);
  }
  return plan.result();
}
