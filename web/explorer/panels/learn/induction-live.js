// "Train live" of the Learn panel's "1 layer vs 2 layers": the two shipped models trained again from
// scratch (the checkpoints' options and seed, so the same batches), each in a worker
// (createWorkerTrainer of the public API: a module Worker from a same-origin file, or a classic one
// from a same-origin file or, on file://, a Blob URL), so the page never waits for a step. The
// page's trainer workers are bounded: where more panels train at once than that, they share the
// workers and each trains more slowly (`shared`). Every MEASURE_EVERY steps, like the checkpoints'
// curves, each model is measured on LIVE_EVAL_SIZE held-out sequences (the first of the checkpoints'
// 512: the training is the same, the held-out numbers a little noisier), and its maps on the shown
// sequence are read every MAPS_EVERY steps. Where no worker can start (no Worker here, or none
// loads), it trains on the page, one step per task: then a step (30-100 ms) and each measurement are
// long tasks, and the status says so.
//
// split: 'data' instead trains each model data-parallel across the page's shared pool
// (web/pool/data-parallel.js): every worker takes a slice of each batch, the page sums the
// gradients in worker order and takes the Adam step; both models share the pool's workers.
//
// ablate: at the end each run is evaluated whole and with each head zeroed alone
// (evaluate({ zeroHeads }), on the LIVE_EVAL_SIZE held-out sequences): run.evaluation and
// run.ablation, as the story checkpoints hold them (the story experiment, story-view.js).
import { createWorkerTrainer, sharedPool, workerKinds } from '../../../headwise.js';

export const MEASURE_EVERY = 50;
export const MAPS_EVERY = 250;
export const LIVE_EVAL_SIZE = 128;
const WORKER_CHUNK = 10; // steps per request to a worker (about 0.3-1 s of work)
const SPLITS = ['model', 'data'];
/** How "Train live" trains unless told: see docs/induction.md for what each measured here. */
export const DEFAULT_SPLIT = 'model';

const nextFrame = () =>
  new Promise((resolve) =>
    globalThis.requestAnimationFrame ? requestAnimationFrame(() => resolve()) : setTimeout(resolve),
  );

export class InductionLive {
  #hw;
  #kinds;
  #trainers = []; // split 'model': the runs' worker trainers
  #lease = null; // split 'data': a promise of the shared pool's lease (its trainers go with it)
  #resume = null; // resolves the wait of a paused run
  #disposed = false;
  #abort = new AbortController(); // dispose() abandons trainers still being created

  /**
   * models: [{ name, layers, options, steps }] (from the checkpoints); sequence: the shown one
   * ({ ids }); onChange(): called after every new number (the panel redraws on its next frame);
   * kinds: the worker kinds to try, best first (default: what spawn.js finds usable here).
   * split: 'model' (one worker per model) or 'data' (each model's batches split across the
   * shared pool's workers). ablate: measure each head zeroed at the end (see the top of this file).
   */
  constructor(
    hw,
    { models, sequence, onChange = () => {}, kinds = workerKinds(), split = DEFAULT_SPLIT, ablate = false },
  ) {
    if (!SPLITS.includes(split)) throw new RangeError(`split must be "model" or "data", got ${String(split)}`);
    this.#hw = hw;
    this.#kinds = kinds;
    /** 'model' or 'data' (see the top of this file). */
    this.split = split;
    /** split 'data': how many workers share each step (1 on the page). */
    this.instances = null;
    this.sequence = sequence;
    this.onChange = onChange;
    this.ablate = ablate;
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

  /** Whether its workers also train other runs' models now (other panels training at once). */
  get shared() {
    return this.#trainers.some((t) => !t.disposed && t.sharing > 0);
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
    this.#abort.abort();
    this.#resume?.();
    this.#close();
  }

  #close() {
    this.#lease?.then((lease) => lease.dispose()).catch(() => {});
    this.#lease = null;
    for (const trainer of this.#trainers) trainer.dispose();
    this.#trainers = [];
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
    const trainer = this.split === 'data' ? await this.#pooledTrainer(run) : await this.#workerTrainer(run);
    if (trainer) await this.#train(run, i, trainer);
  }

  // split 'model': the model's trainer in one of the page's trainer workers (or on the page).
  async #workerTrainer(run) {
    const settings = { kinds: this.#kinds, signal: this.#abort.signal };
    const trainer = await createWorkerTrainer(this.#hw, run.options, settings);
    if (this.#disposed) return trainer.dispose();
    this.#trainers.push(trainer);
    Object.assign(run, { where: trainer.where, why: trainer.why });
    return {
      step: (n) => trainer.step(Math.min(n, trainer.maxStepsPerCall)),
      measure: () => trainer.measure(),
      maps: async () => (await trainer.attention(this.sequence.ids)).layers.map((layer) => layer.heads),
      evaluate: (options) => trainer.evaluate(options),
      stopped: () => false,
      stepped: () => {},
    };
  }

  // split 'data': the model's trainer on the shared pool (its steps split across the workers).
  async #pooledTrainer(run) {
    this.#lease ??= sharedPool({ module: this.#hw });
    const lease = await this.#lease;
    if (this.#disposed || lease.disposed) return null;
    const trainer = lease.createTrainer(run.options);
    const onPage = trainer.instances === 1 && lease.size === 1;
    this.instances = trainer.instances;
    Object.assign(run, {
      where: onPage ? 'page' : 'worker',
      why: onPage ? (lease.fallbackReason ?? 'no worker here') : null,
    });
    return {
      step: (n) => trainer.step(Math.min(n, trainer.maxStepsPerCall)),
      measure: () => trainer.measure(),
      maps: async () => (await trainer.attention(this.sequence.ids)).layers.map((layer) => layer.heads),
      evaluate: (options) => trainer.evaluate(options),
      stopped: () => trainer.disposed,
      // Its workers kept failing: the pool trains on this thread from now on.
      stepped: () => {
        if (trainer.instances === 1 && run.where === 'worker' && trainer.fallbackReason) {
          Object.assign(run, { where: 'page', why: trainer.fallbackReason });
        }
      },
    };
  }

  // One run's loop, whichever trainer: { step(n), measure(), maps(), stopped(), stepped() }.
  async #train(run, i, trainer) {
    run.maps = await trainer.maps();
    run.version += 1;
    if (this.state === 'starting' && this.runs.every((r) => r.maps)) this.state = 'training';
    this.onChange();
    const chunk = run.where === 'page' ? 1 : WORKER_CHUNK;
    while (run.step < run.steps) {
      if (!(await this.#go()) || trainer.stopped()) return;
      const n = Math.min(chunk, MEASURE_EVERY - (run.step % MEASURE_EVERY), run.steps - run.step);
      const { step, loss } = await trainer.step(n);
      Object.assign(run, { step, loss });
      trainer.stepped();
      if (step % MEASURE_EVERY === 0 || step === run.steps) {
        if (run.where === 'page') await nextFrame();
        const { heldOut, roles } = await trainer.measure();
        this.#tick();
        run.curve.push({ step, ms: this.elapsedMs, heldOut, roles });
        run.roles = roles;
        if (step % MAPS_EVERY === 0 || step === run.steps) run.maps = await trainer.maps();
        run.version += 1;
      }
      this.#tick();
      this.onChange(i);
      if (run.where === 'page') await nextFrame();
    }
    if (this.ablate && !this.#disposed && !trainer.stopped()) await this.#ablate(run, i, trainer);
  }

  // The run's evaluation whole and with each head zeroed alone (a task each on the page).
  async #ablate(run, i, trainer) {
    run.evaluation = await trainer.evaluate();
    const ablation = [];
    for (let layer = 0; layer < run.layers; layer += 1) {
      for (let head = 0; head < run.options.heads; head += 1) {
        if (!(await this.#go()) || trainer.stopped()) return;
        if (run.where === 'page') await nextFrame();
        ablation.push({ layer, head, evaluation: await trainer.evaluate({ zeroHeads: [{ layer, head }] }) });
      }
    }
    run.ablation = ablation;
    run.version += 1;
    this.#tick();
    this.onChange(i);
  }
}
