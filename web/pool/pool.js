// A pool of module instances in Workers, for an async forward split across them by heads. The
// pool keeps one instance on the calling thread too: it generates and holds every layer's full
// weights, runs the shapes too small to be worth the hand-off, and is what is left when workers
// cannot start or keep failing (pool.fallbackReason then says why).
import { loadHeadwise } from '../loaded-module.js';
import { describe, floatArrayArgument, optionsArgument } from '../arguments.js';
import { HeadwiseError } from '../errors.js';
import { Channel, WorkerFailure } from './channel.js';
import { hardwareThreads, spawnWorker, workerKinds } from './spawn.js';
import { flopsOf, headRanges, partConfig, partWeights, sumParts } from './split.js';
import { PooledTrainer } from './data-parallel.js';
import { SLOWEST_MULTIPLY_ADDS_PER_MS } from './protocol.js';

/** Most workers a pool starts by default (more cores than this are left to the page). */
export const DEFAULT_SIZE_CAP = 8;
/**
 * Below this many FLOPs a forward stays on the calling thread: the hand-off (copy x to each worker,
 * copy the outputs back, sum) costs more than the split saves. Between GPT-2 width T = 64 (0.31
 * GFLOP, never faster split in any run) and T = 128 (0.63 GFLOP); see docs/benchmarks-pool.md.
 */
export const SPLIT_MIN_FLOPS = 5e8;
const DEFAULT_TIMEOUT_MS = 30_000;
const POOL_OPTIONS = ['size', 'timeoutMs', 'workerUrl', 'module'];
const FORWARD_OPTIONS = ['parallel'];
const PARALLEL = ['auto', 'always', 'never'];

function sizeOption(size) {
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 64) {
    throw new RangeError(`size must be a whole number from 1 to 64, got ${String(size)}`);
  }
  return size;
}

// A Headwise (loadHeadwise()): refused at once when it is not one, not at its first use.
function moduleOption(module) {
  const needs = ['createAttention', 'createTrainer', 'memoryStats'];
  if (module === null || typeof module !== 'object' || needs.some((name) => typeof module[name] !== 'function')) {
    throw new TypeError(`module must be a Headwise instance (from loadHeadwise()), got ${describe(module)}`);
  }
  return module;
}

function timeoutOption(ms) {
  if (typeof ms !== 'number' || !(ms >= 1 && ms <= 3_600_000)) {
    throw new RangeError(`timeoutMs must be a number of milliseconds from 1 to 3600000, got ${String(ms)}`);
  }
  return ms;
}

/** One worker slot: its channel, and which layers (at which weights version) it holds. */
class Slot {
  constructor(index, generation, kind, channel) {
    Object.assign(this, { index, generation, kind, channel });
    this.layers = new Map(); // layer id -> weights version sent
    this.trainers = new Map(); // trainer id -> weights version it holds (-1: created, none yet)
    this.replacing = null;
    this.queuedMs = 0; // the work of the requests sent and not answered yet, at the slowest rate
  }

  /**
   * Sends `op` with its deadline: the pool's fixed part, plus the work (multiply-adds at the slowest
   * rate, protocol.js) of this request and of every one queued before it here (the worker answers
   * in arrival order), so an honest busy worker is never taken for a dead one.
   */
  send(op, fields, fixedMs, { multiplyAdds = 0, ...rest } = {}) {
    const workMs = multiplyAdds / SLOWEST_MULTIPLY_ADDS_PER_MS;
    this.queuedMs += workMs;
    const answer = this.channel.request(op, fields, { ...rest, timeoutMs: fixedMs + this.queuedMs });
    const done = () => (this.queuedMs -= workMs);
    answer.then(done, done);
    return answer;
  }
}

export class Pool {
  #hw;
  #requestedSize;
  #timeoutMs;
  #workerUrl;
  #slots = [];
  #layers = new Set();
  #nextLayerId = 1;
  #trainers = new Set();
  #nextTrainerId = 1;
  #fallbackReason = null;
  #disposed = false;
  #replacements = 0;
  #rows = null; // the core's tensor rows by name (how to cut a weight into parts)

  /** @internal use createPool() */
  constructor(hw, size, timeoutMs, workerUrl) {
    this.#hw = hw;
    this.#requestedSize = size;
    this.#timeoutMs = timeoutMs;
    this.#workerUrl = workerUrl;
  }

  /** Module instances doing forwards: the workers, or 1 (the calling thread's) without them. */
  get size() {
    return Math.max(1, this.#slots.length);
  }

  /** Why the pool runs on the calling thread alone although more was asked for, or null. */
  get fallbackReason() {
    return this.#fallbackReason;
  }

  /** How many workers were replaced after failing. */
  get replacements() {
    return this.#replacements;
  }

  get disposed() {
    return this.#disposed;
  }

  /** The calling thread's module (the Headwise the pool was made with). */
  get module() {
    return this.#hw;
  }

  /** @internal */
  async start() {
    if (this.#requestedSize === 1) return this;
    const kinds = workerKinds({ workerUrl: this.#workerUrl });
    if (kinds.length === 0) return this.#fallBack('Worker is not available here');
    const reasons = [];
    for (const kind of kinds) {
      const started = await Promise.allSettled(
        Array.from({ length: this.#requestedSize }, (_, i) => this.#startSlot(i, 0, kind)),
      );
      const failed = started.find((s) => s.status === 'rejected');
      if (!failed) {
        this.#slots = started.map((s) => s.value);
        if (this.#disposed) this.#stopAll('the pool was disposed');
        return this;
      }
      for (const s of started) if (s.status === 'fulfilled') s.value.channel.break('the pool could not start');
      reasons.push(`${kind} workers: ${failed.reason?.reason ?? failed.reason?.message ?? failed.reason}`);
    }
    return this.#fallBack(`no worker could start (${reasons.join('; ')})`);
  }

  async #startSlot(index, generation, kind) {
    const name = `headwise-pool-${index}.${generation}`;
    const endpoint = await spawnWorker(kind, { name, workerUrl: this.#workerUrl });
    const channel = new Channel(endpoint, `worker ${index}.${generation}`);
    // A Blob worker has no wasm of its own: it gets this thread's compiled module.
    const init = kind === 'blob' ? { wasmModule: this.#hw.wasmModule } : {};
    await channel.request('init', init, { timeoutMs: this.#timeoutMs });
    return new Slot(index, generation, kind, channel);
  }

  #fallBack(reason) {
    this.#fallbackReason ??= reason;
    this.#stopAll(`the pool fell back to one instance: ${reason}`);
    return this;
  }

  #stopAll(reason) {
    for (const slot of this.#slots) slot.channel.break(reason);
    this.#slots = [];
  }

  #live() {
    if (this.#disposed) throw new HeadwiseError('this pool was disposed');
  }

  /** Creates a layer (its weights from config.seed, as Headwise.createAttention) whose forward is async. */
  createAttention(config = {}) {
    this.#live();
    if (config?.attention === 'mla')
      throw new RangeError(
        'the pool splits multi-head attention by heads: make attention "mla" with Headwise.createAttention',
      );
    const layer = new PooledAttention(this, this.#nextLayerId++, this.#hw.createAttention(config));
    this.#layers.add(layer);
    return layer;
  }

  /**
   * A trainer (options as Headwise.createTrainer) whose steps are split across the workers by
   * batch rows: data-parallel.js. workers: how many of the pool's workers share a step (default
   * all; 1 = one worker takes the whole batch, the page only sums and applies Adam).
   */
  createTrainer(options = {}, { workers } = {}) {
    this.#live();
    const count = workers === undefined ? DEFAULT_SIZE_CAP * 8 : sizeOption(workers);
    const trainer = new PooledTrainer(this, this.#nextTrainerId++, this.#hw.createTrainer(options), count);
    this.#trainers.add(trainer);
    return trainer;
  }

  /** @internal the first `count` workers (none when the pool runs on the calling thread). */
  trainerSlots(count) {
    return this.#slots.slice(0, count);
  }

  /** @internal `op` for `trainer` on `slot`, creating the worker's trainer first if it has none. */
  trainerRequest(slot, trainer, op, fields, { transfer = [], expectedLength, expect, multiplyAdds = 0 } = {}) {
    const sends = [];
    if (!slot.trainers.has(trainer.id)) {
      const options = { ...trainer.options };
      sends.push(slot.send('trainerCreate', { trainer: trainer.id, options }, this.#timeoutMs));
      slot.trainers.set(trainer.id, -1);
    }
    const rest = { transfer, expectedLength, expect, multiplyAdds };
    sends.push(slot.send(op, { trainer: trainer.id, ...fields }, this.#timeoutMs, rest));
    return Promise.all(sends).then((answers) => answers.at(-1));
  }

  /**
   * @internal after requests to `slots` failed: replaces the broken workers and answers true (ask
   * again), or falls back to the calling thread with the reason and answers false.
   */
  async recover(slots, failures, last) {
    const refusal = failures.find((error) => !(error instanceof WorkerFailure));
    if (refusal) {
      this.#fallBack(`a worker refused a request: ${refusal.message}`);
      return false;
    }
    const broken = slots.filter((slot) => slot.channel.broken);
    if (last || !(await this.#replaceAll(broken))) {
      this.#fallBack(`a worker failed again after being replaced: ${failures[0].reason}`);
      return false;
    }
    return !this.#disposed;
  }

  /** @internal */
  forgetTrainer(trainer) {
    this.#trainers.delete(trainer);
    for (const slot of this.#slots) {
      if (!slot.trainers.delete(trainer.id)) continue;
      slot.send('trainerDispose', { trainer: trainer.id }, this.#timeoutMs).catch(() => {});
    }
  }

  /** Per worker: { name, liveLayers, wasmMemoryBytes, heapInUseBytes }; for leak checks. */
  async workerStats() {
    this.#live();
    return Promise.all(
      this.#slots.map(async (slot) => ({
        name: slot.channel.name,
        ...(await slot.send('stats', {}, this.#timeoutMs)),
      })),
    );
  }

  /** Frees every layer and stops every worker. Calling it twice is harmless. */
  dispose() {
    if (this.#disposed) return;
    for (const layer of [...this.#layers]) layer.dispose();
    for (const trainer of [...this.#trainers]) trainer.dispose();
    this.#disposed = true;
    this.#stopAll('the pool was disposed');
  }

  /** @internal the forward of `layer` split across the workers, or null when it must run here. */
  async splitForward(layer, x) {
    for (let attempt = 0; attempt < 2 && this.#slots.length > 1; attempt += 1) {
      const slots = this.#slots;
      const ranges = headRanges(layer.config.heads, slots.length, layer.config.kvHeads);
      // Every part settles before anything is judged, so all the workers that failed are known.
      const parts = await Promise.allSettled(ranges.map((range, p) => this.#forwardOn(slots[p], layer, range, x, p)));
      const failures = parts.filter((part) => part.status === 'rejected').map((part) => part.reason);
      // Each part's buffer came back holding its output: kept for the next forward.
      parts.forEach((part, p) => part.status === 'fulfilled' && layer.keepPartBuffer(p, part.value));
      if (failures.length === 0)
        return sumParts(
          parts.map((part) => part.value),
          layer.biasOut(),
        );
      const refusal = failures.find((error) => !(error instanceof WorkerFailure));
      if (refusal) {
        this.#fallBack(`a worker refused a forward: ${refusal.message}`);
        break;
      }
      const broken = slots.filter((slot) => slot.channel.broken);
      if (attempt === 1 || !(await this.#replaceAll(broken))) {
        this.#fallBack(`a worker failed again after being replaced: ${failures[0].reason}`);
      }
    }
    return null;
  }

  async #forwardOn(slot, layer, range, x, p) {
    const timeoutMs = this.#timeoutMs;
    const sends = [];
    if (!slot.layers.has(layer.id)) {
      sends.push(slot.send('create', { layer: layer.id, config: partConfig(layer.config, range) }, timeoutMs));
      slot.layers.set(layer.id, -1);
    }
    if (slot.layers.get(layer.id) !== layer.version) {
      this.#rows ??= new Map(this.#hw.tensorTable().tensors.map((row) => [row.name, row]));
      const weights = partWeights(layer.weightsForParts(), this.#rows, layer.config, range);
      const transfer = Object.values(weights).map((w) => w.buffer);
      sends.push(slot.send('weights', { layer: layer.id, weights }, timeoutMs, { transfer }));
      slot.layers.set(layer.id, layer.version);
    }
    const expectedLength = x.length;
    const multiplyAdds = flopsOf(partConfig(layer.config, range)) / 2;
    // x goes in the part's own buffer, transferred (not cloned) and sent back with the output.
    const part = layer.takePartBuffer(p);
    part.set(x);
    const transfer = [part.buffer];
    const forward = slot.send('forward', { layer: layer.id, x: part }, timeoutMs, {
      multiplyAdds,
      expectedLength,
      transfer,
    });
    return (await Promise.all([...sends, forward])).at(-1);
  }

  // Each broken slot gets a fresh worker (of the same kind); false when one cannot start.
  async #replaceAll(broken) {
    const results = await Promise.all(broken.map((slot) => this.#replace(slot)));
    return results.every(Boolean);
  }

  #replace(slot) {
    slot.replacing ??= this.#startSlot(slot.index, slot.generation + 1, slot.kind).then(
      (fresh) => {
        if (this.#disposed || !this.#slots.includes(slot)) {
          fresh.channel.break('the pool no longer needs it');
          return this.#slots.length > 1;
        }
        this.#slots = this.#slots.map((s) => (s === slot ? fresh : s));
        this.#replacements += 1;
        return true;
      },
      () => false,
    );
    return slot.replacing;
  }

  /** @internal */
  forget(layer) {
    this.#layers.delete(layer);
    for (const slot of this.#slots) {
      if (!slot.layers.delete(layer.id)) continue;
      slot.send('dispose', { layer: layer.id }, this.#timeoutMs).catch(() => {});
    }
  }

  /** @internal whether a forward of this size is worth splitting now. */
  splits(config) {
    return this.#slots.length > 1 && flopsOf(config) >= SPLIT_MIN_FLOPS;
  }

  /** @internal */
  get workerCount() {
    return this.#slots.length;
  }
}

/** A layer of a pool: the same as MultiHeadAttention's forward, asynchronous and split by heads. */
export class PooledAttention {
  #pool;
  #main;
  #version = 0;
  #weights = null;
  // Kept between split forwards (a fresh multi-megabyte array is slow to touch, docs/pool-chromium.md):
  // x checked into #staging, copied into each part's buffer, which goes to its worker and comes back.
  #staging = null;
  #partBuffers = [];
  #splitting = 0;

  /** @internal use pool.createAttention */
  constructor(pool, id, main) {
    this.#pool = pool;
    this.#main = main;
    this.id = id;
    this.config = main.config;
    this.shapes = main.shapes;
  }

  get disposed() {
    return this.#main.disposed;
  }

  /** @internal bumped by every setWeights: workers holding an older version get the new one. */
  get version() {
    return this.#version;
  }

  /** Whether forward(x) (parallel 'auto') splits across the pool right now. */
  get willSplit() {
    return !this.disposed && this.#pool.splits(this.config);
  }

  /**
   * x (B, T, d_model) -> (B, T, d_model). parallel: 'auto' (split when the pool has workers and the
   * shape is large enough to gain, see SPLIT_MIN_FLOPS), 'always' (split whenever there are
   * workers), 'never' (the calling thread's instance, as MultiHeadAttention.forward).
   */
  async forward(x, options) {
    const { parallel = 'auto' } = optionsArgument('forward', options, FORWARD_OPTIONS);
    if (!PARALLEL.includes(parallel)) {
      throw new RangeError(`parallel must be ${PARALLEL.map((p) => `"${p}"`).join(', ')}, got ${String(parallel)}`);
    }
    if (this.disposed) throw new HeadwiseError('this attention layer was disposed');
    const shape = this.shapes.input;
    const length = shape[0] * shape[1] * shape[2];
    const split =
      parallel === 'always' ? this.#pool.workerCount > 1 : parallel === 'auto' && this.#pool.splits(this.config);
    // A forward that starts while another split is under way gets its own copy (a retry re-reads x).
    const reuse = split && this.#splitting === 0;
    if (reuse) this.#staging ??= new Float32Array(length);
    const copy = floatArrayArgument('x', x, length, shape, reuse ? this.#staging : null);
    if (split) {
      this.#splitting += 1;
      const output = await this.#pool.splitForward(this, copy).finally(() => (this.#splitting -= 1));
      if (output) return output;
      if (this.disposed) throw new HeadwiseError('this attention layer was disposed');
    }
    return this.#main.forward(copy);
  }

  /** Copies of the weights (as MultiHeadAttention.getWeights). */
  getWeights() {
    return this.#main.getWeights();
  }

  /** Replaces any of the weights (checked as MultiHeadAttention.setWeights); workers get them at the next split. */
  setWeights(weights) {
    this.#main.setWeights(weights);
    this.#weights = null;
    this.#version += 1;
  }

  /** @internal the whole layer's weights, read from the calling thread's instance once per version. */
  weightsForParts() {
    this.#weights ??= this.#main.getWeights();
    return this.#weights;
  }

  /** @internal part p's buffer for x (kept from the last split forward, or new); it leaves with x. */
  takePartBuffer(p) {
    const kept = this.#partBuffers[p];
    this.#partBuffers[p] = null;
    return kept ?? new Float32Array(this.shapes.input.reduce((a, b) => a * b, 1));
  }

  /** @internal part p's buffer back from its worker (holding that part's output), for the next forward. */
  keepPartBuffer(p, buffer) {
    if (!this.disposed && buffer.length === this.shapes.input.reduce((a, b) => a * b, 1)) this.#partBuffers[p] = buffer;
  }

  /** @internal b_out when the layer has biases (added once, after the parts are summed). */
  biasOut() {
    return this.config.bias ? this.weightsForParts().bOut : null;
  }

  /** Frees the layer here and in every worker. Calling it twice is harmless. */
  dispose() {
    if (this.disposed) return;
    this.#main.dispose();
    this.#weights = null;
    this.#staging = null;
    this.#partBuffers = [];
    this.#pool.forget(this);
  }
}

/**
 * A pool of `size` module instances in Workers (default: the machine's cores, at most
 * DEFAULT_SIZE_CAP; 1 = no workers, everything on the calling thread).
 * @param {import('../headwise.d.ts').PoolOptions} [options] size, timeoutMs, workerUrl, module
 */
export async function createPool(options) {
  const given = optionsArgument('createPool', options, POOL_OPTIONS);
  const size = given.size === undefined ? await hardwareThreads(DEFAULT_SIZE_CAP) : sizeOption(given.size);
  const timeoutMs = given.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : timeoutOption(given.timeoutMs);
  if (given.module !== undefined) moduleOption(given.module);
  const hw = given.module ?? (await loadHeadwise());
  return new Pool(hw, size, timeoutMs, given.workerUrl).start();
}
