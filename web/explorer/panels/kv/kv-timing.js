// "Time generation" of the kv panel, run: the plan of kv-timing-numbers.js in one of the page's
// trainer workers (web/pool/worker-timer.js, the workers "Train live" uses), so the page's thread
// only sends requests and reads the worker's milliseconds. The page makes the input once (a
// deterministic pseudo-random sequence, a few ms) and sends each request its positions.
import { WorkerTimer } from '../../../headwise.js';
import {
  DECODES_TIMED,
  FORWARD_REPEATS,
  GENERATION_CONFIG,
  GENERATION_TOKENS,
  decodeCapacity,
  decodeWork,
  forwardWork,
  generationPlan,
  generationRows,
} from './kv-timing-numbers.js';

// Values in [-1, 1) from a 32-bit xorshift: the same input every time, made without the module.
function inputOf(positions, d) {
  const x = new Float32Array(positions * d);
  let s = 0x9e3779b9;
  for (let i = 0; i < x.length; i += 1) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    x[i] = (s >>> 0) / 2 ** 31 - 1;
  }
  return x;
}

export class GenerationTiming {
  #hw;
  #kinds;
  #timer = null;
  #disposed = false;

  /** tokens: the context lengths (ascending); kinds: the worker kinds to try (default the pool's). */
  constructor(hw, { tokens = GENERATION_TOKENS, kinds = null, onChange = () => {} } = {}) {
    this.#hw = hw;
    this.#kinds = kinds;
    this.tokens = [...tokens];
    this.onChange = onChange;
    this.plan = generationPlan(this.tokens);
    /** 'idle', 'starting' (a worker loading), 'running', 'done' or 'failed' (error says why). */
    this.state = 'idle';
    this.error = null;
    /** Requests answered, of plan.length; `doing`: the request under way, in words. */
    this.done = 0;
    this.doing = '';
    this.measured = []; // { T, decodeMs, forwardMs }, filled as they come
    this.rows = null; // generationRows(measured), once done
    this.elapsedMs = 0;
  }

  get disposed() {
    return this.#disposed;
  }

  /** Runs the plan; resolves when done, failed or disposed. A second call does nothing. */
  async start() {
    if (this.state !== 'idle') return;
    const started = performance.now();
    this.state = 'starting';
    this.doing = 'starting a worker';
    this.onChange();
    try {
      this.#timer = await WorkerTimer.open(this.#hw, this.#kinds ? { kinds: this.#kinds } : {});
      if (this.#disposed) return this.#timer.dispose();
      this.state = 'running';
      await this.#run();
      if (this.#disposed) return;
      this.rows = generationRows(this.measured);
      this.state = 'done';
    } catch (error) {
      if (this.#disposed) return;
      this.state = 'failed';
      this.error = error?.message ?? String(error);
    } finally {
      this.#timer?.dispose();
      this.#timer = null;
      this.elapsedMs = performance.now() - started;
    }
    this.onChange();
  }

  async #run() {
    const d = GENERATION_CONFIG.dModel;
    const x = inputOf(decodeCapacity(this.tokens), d);
    const timer = this.#timer;
    const decoder = await timer.create({ ...GENERATION_CONFIG, tokens: decodeCapacity(this.tokens) });
    const rowOf = (T) => {
      let row = this.measured.find((r) => r.T === T);
      if (!row) this.measured.push((row = { T, decodeMs: null, forwardMs: null }));
      return row;
    };
    for (const step of this.plan) {
      if (this.#disposed) return;
      this.doing =
        step.kind === 'fill'
          ? `filling the cache to ${step.T} positions (decode steps ${step.from + 1} to ${step.to})`
          : step.kind === 'decode'
            ? `timing ${DECODES_TIMED} decode steps after ${step.T} cached positions`
            : `timing ${FORWARD_REPEATS} forward passes over ${step.T} tokens`;
      this.onChange();
      if (step.kind === 'forward') {
        const layer = await timer.create({ ...GENERATION_CONFIG, tokens: step.T });
        const { ms } = await timer.forwardTime(layer, x.slice(0, step.T * d), {
          repeats: FORWARD_REPEATS,
          multiplyAdds: forwardWork(step.T),
        });
        await timer.disposeLayer(layer);
        rowOf(step.T).forwardMs = ms;
      } else {
        const positions = step.to - step.from;
        const { ms } = await timer.decodeTime(decoder, x.slice(step.from * d, step.to * d), {
          positions,
          multiplyAdds: decodeWork(step.from, step.to),
        });
        if (step.kind === 'decode') rowOf(step.T).decodeMs = ms;
      }
      this.done += 1;
    }
    this.doing = '';
  }

  /** Stops: the worker's layers are freed (the worker ends when nothing else uses it). */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#timer?.dispose();
    this.#timer = null;
  }
}

/** What the owner keeps for the kv panel (its entry's keeps): the timing run, one at a time. */
export class KvRuns {
  #hw;
  #settings;
  #timing = null;

  constructor(hw, settings) {
    this.#hw = hw;
    this.#settings = settings;
  }

  /** A new timing run (the previous one stopped). */
  generationTiming(options) {
    this.#timing?.dispose();
    const kinds = this.#settings?.workerKinds?.() ?? null;
    this.#timing = new GenerationTiming(this.#hw, { ...options, kinds });
    return this.#timing;
  }

  dispose() {
    this.#timing?.dispose();
    this.#timing = null;
  }
}
