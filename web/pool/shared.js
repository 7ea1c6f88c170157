// One pool per page (or Node process) for everyone who asks: each caller gets a lease of it, with
// its own layers; disposing a lease frees that lease's layers, and the last lease stops the workers.
import { HeadwiseError } from '../errors.js';
import { createPool } from './pool.js';

let shared = null; // { pool: Promise<Pool>, leases: number }

class PoolLease {
  #pool;
  #entry;
  #layers = new Set();
  #disposed = false;

  constructor(pool, entry) {
    this.#pool = pool;
    this.#entry = entry;
  }

  get size() {
    return this.#pool.size;
  }
  get fallbackReason() {
    return this.#pool.fallbackReason;
  }
  get replacements() {
    return this.#pool.replacements;
  }
  get disposed() {
    return this.#disposed;
  }
  get module() {
    return this.#pool.module;
  }

  createAttention(config) {
    if (this.#disposed) throw new HeadwiseError('this pool lease was disposed');
    for (const old of this.#layers) if (old.disposed) this.#layers.delete(old);
    const layer = this.#pool.createAttention(config);
    this.#layers.add(layer);
    return layer;
  }

  /** A data-parallel trainer of the shared pool (as Pool.createTrainer), freed with this lease. */
  createTrainer(options, split) {
    if (this.#disposed) throw new HeadwiseError('this pool lease was disposed');
    for (const old of this.#layers) if (old.disposed) this.#layers.delete(old);
    const trainer = this.#pool.createTrainer(options, split);
    this.#layers.add(trainer);
    return trainer;
  }

  workerStats() {
    return this.#pool.workerStats();
  }

  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const layer of this.#layers) layer.dispose();
    this.#layers.clear();
    this.#entry.leases -= 1;
    if (this.#entry.leases === 0) {
      this.#pool.dispose();
      if (shared === this.#entry) shared = null;
    }
  }
}

/**
 * A lease of the shared pool, started on first use with `options` (as createPool; later callers'
 * options are ignored while it lives). A pool that failed to start is retried by the next caller.
 */
export async function sharedPool(options) {
  if (!shared) {
    const entry = { pool: createPool(options), leases: 0 };
    shared = entry;
    entry.pool.catch(() => {
      if (shared === entry) shared = null;
    });
  }
  const entry = shared;
  entry.leases += 1;
  try {
    return new PoolLease(await entry.pool, entry);
  } catch (error) {
    entry.leases -= 1;
    throw error;
  }
}
