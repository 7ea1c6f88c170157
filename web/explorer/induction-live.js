// "Train live" of the Learn panel's "1 layer vs 2 layers": the two shipped models trained again from
// scratch (the checkpoints' options and seed, so the same batches), each in a Worker of its own (the
// pool's worker, web/pool/serve.js: a module Worker from a same-origin file, or a classic one from a
// Blob URL, e.g. on file://), so the page never waits for a step. Every MEASURE_EVERY steps, like
// the checkpoints' curves, each model is measured on LIVE_EVAL_SIZE held-out sequences (the first
// of the checkpoints' 512: the training is the same, the held-out numbers a little noisier), and its
// maps on the shown sequence are read every MAPS_EVERY steps. Where no worker can start (the classic
// bundle under a CSP without blob: workers), it trains on the page, one step per task: then a step
// (30-100 ms) and each measurement are long tasks, and the status says so.
import { Channel } from '../pool/channel.js';
import { serve } from '../pool/serve.js';
import { spawnWorker, workerKinds } from '../pool/spawn.js';

export const MEASURE_EVERY = 50;
export const MAPS_EVERY = 250;
export const LIVE_EVAL_SIZE = 128;
const WORKER_CHUNK = 10; // steps per request to a worker (about 0.3-1 s of work)
const TIMEOUT_MS = 300_000;
const TRAINER = 1;

// The worker's ops on this thread (the same serve()), one request per task.
function pageEndpoint(hw) {
  let handler = () => {};
  const endpoint = { onMessage: () => {}, onFailure: () => {}, busy: () => {}, terminate: () => {} };
  serve(
    { post: (message) => setTimeout(() => endpoint.onMessage(message)), listen: (h) => (handler = h) },
    async () => hw,
  );
  endpoint.post = (message) => setTimeout(() => handler(message));
  return endpoint;
}

// A channel to a worker of the first kind that starts, else to this thread: { channel, where, why }.
async function openChannel(hw, name, kinds) {
  const tried = [];
  for (const kind of kinds) {
    let endpoint = null;
    try {
      endpoint = await spawnWorker(kind, { name });
      const channel = new Channel(endpoint, name);
      await channel.request('init', kind === 'blob' ? { wasmModule: hw.wasmModule } : {}, { timeoutMs: 60_000 });
      return { channel, where: 'worker', kind };
    } catch (error) {
      endpoint?.terminate();
      tried.push(`a ${kind} worker: ${error?.message ?? error}`);
    }
  }
  const channel = new Channel(pageEndpoint(hw), name);
  await channel.request('init', {}, { timeoutMs: TIMEOUT_MS });
  return { channel, where: 'page', why: tried.length ? `no worker started (${tried.join('; ')})` : 'no Worker here' };
}

const nextFrame = () =>
  new Promise((resolve) =>
    globalThis.requestAnimationFrame ? requestAnimationFrame(() => resolve()) : setTimeout(resolve),
  );

export class InductionLive {
  #hw;
  #kinds;
  #channels = [];
  #resume = null; // resolves the wait of a paused run
  #disposed = false;

  /**
   * models: [{ name, layers, options, steps }] (from the checkpoints); sequence: the shown one
   * ({ ids }); onChange(): called after every new number (the panel redraws on its next frame);
   * kinds: the worker kinds to try, best first (default: what spawn.js finds usable here).
   */
  constructor(hw, { models, sequence, onChange = () => {}, kinds = workerKinds() }) {
    this.#hw = hw;
    this.#kinds = kinds;
    this.sequence = sequence;
    this.onChange = onChange;
    /** 'idle', 'starting', 'training', 'paused', 'done' or 'failed' (error says why). */
    this.state = 'idle';
    this.error = null;
    this.startedAt = 0;
    this.elapsedMs = 0;
    this.runs = models.map((m) => ({
      name: m.name,
      layers: m.layers,
      options: { ...m.options, evalSize: LIVE_EVAL_SIZE },
      steps: m.steps,
      step: 0,
      loss: null,
      curve: [], // { step, ms, heldOut, roles } every MEASURE_EVERY steps
      roles: null, // the latest measurement's, with the core's names
      maps: null, // per layer, per head: T x T on the shown sequence
      where: null,
      why: null,
      version: 0, // counts the new curve points and maps (what the figures draw)
    }));
  }

  get disposed() {
    return this.#disposed;
  }

  /** Where the runs train: 'worker', 'page' or null before they start. */
  get where() {
    const places = this.runs.map((r) => r.where).filter(Boolean);
    return places.length ? (places.includes('page') ? 'page' : 'worker') : null;
  }

  get step() {
    return Math.min(...this.runs.map((r) => r.step));
  }

  /** Starts both runs; resolves when they are done (or failed, or disposed). */
  async start() {
    if (this.state !== 'idle') return;
    this.state = 'starting';
    this.startedAt = performance.now();
    this.onChange();
    try {
      await Promise.all(this.runs.map((run, i) => this.#run(run, i)));
      if (this.#disposed) return;
      this.state = 'done';
    } catch (error) {
      if (this.#disposed) return;
      this.state = 'failed';
      this.error = error?.message ?? String(error);
      this.#close();
    }
    this.#tick();
    this.onChange();
  }

  pause() {
    if (this.state !== 'training' && this.state !== 'starting') return;
    this.state = 'paused';
    this.onChange();
  }

  resume() {
    if (this.state !== 'paused') return;
    this.state = 'training';
    this.#resume?.();
    this.#resume = null;
    this.onChange();
  }

  /** Stops the runs and frees the workers (or the page's trainers). */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#resume?.();
    this.#close();
  }

  #close() {
    for (const { channel, where } of this.#channels) {
      if (where === 'page')
        channel.request('trainerDispose', { trainer: TRAINER }, { timeoutMs: 5000 }).catch(() => {});
      else channel.break('stopped');
    }
    this.#channels = [];
  }

  #tick() {
    this.elapsedMs = performance.now() - this.startedAt;
  }

  // Waits while paused; false once disposed.
  async #go() {
    while (this.state === 'paused' && !this.#disposed) await new Promise((resolve) => (this.#resume = resolve));
    return !this.#disposed;
  }

  async #run(run, i) {
    const opened = await openChannel(this.#hw, `learn ${run.name}`, this.#kinds);
    if (this.#disposed) {
      if (opened.where === 'worker') opened.channel.break('stopped');
      return;
    }
    this.#channels.push(opened);
    Object.assign(run, { where: opened.where, why: opened.why ?? null });
    const { channel } = opened;
    const ask = (op, fields = {}) => channel.request(op, { trainer: TRAINER, ...fields }, { timeoutMs: TIMEOUT_MS });
    const ids = Int32Array.from(this.sequence.ids);
    await ask('trainerCreate', { options: run.options });
    run.maps = await ask('trainerAttention', { ids });
    run.version += 1;
    if (this.state === 'starting' && this.runs.every((r) => r.maps)) this.state = 'training';
    this.onChange();
    const chunk = opened.where === 'page' ? 1 : WORKER_CHUNK;
    while (run.step < run.steps) {
      if (!(await this.#go())) return;
      const n = Math.min(chunk, MEASURE_EVERY - (run.step % MEASURE_EVERY), run.steps - run.step);
      const { step, loss } = await ask('trainerStep', { steps: n });
      Object.assign(run, { step, loss });
      if (step % MEASURE_EVERY === 0 || step === run.steps) {
        if (opened.where === 'page') await nextFrame();
        const { heldOut, roles } = await ask('trainerMeasure');
        this.#tick();
        run.curve.push({ step, ms: this.elapsedMs, heldOut, roles });
        run.roles = roles;
        if (step % MAPS_EVERY === 0 || step === run.steps) run.maps = await ask('trainerAttention', { ids });
        run.version += 1;
      }
      this.#tick();
      this.onChange(i);
      if (opened.where === 'page') await nextFrame();
    }
  }
}
