// The page's (or Node process's) trainer workers, bounded: at most workerSlotLimit() of them at once
// for every createWorkerTrainer() caller together. The bound is the shared pool's default size (the
// machine's cores, capped at DEFAULT_SIZE_CAP), but at least 2, so the Learn panel's two models
// train side by side. Once the bound is reached a new trainer joins the worker that holds the
// fewest trainers: a worker hosts any number of trainers and serves their requests in turn, so many
// elements training at once share the same workers, each more slowly, and nobody waits for a worker
// (a paused run holds memory in its worker, never a worker). Only a trainer asking for another kind
// of worker (another worker URL) while the bound is reached waits, until one of the others ends.
// A worker ends when its last trainer is disposed, or when its channel breaks (it died, missed a
// deadline, sent what was not asked for): each of its trainers then fails with the reason and the
// next trainer starts a fresh worker.
import { DEFAULT_SIZE_CAP } from './pool.js';
import { hardwareThreads } from './spawn.js';

const MIN_SLOTS = 2;
let limit = null; // a promise of the bound
const hosts = []; // { key, opened: Promise<{ channel, where, kind, why }>, trainers, nextTrainer, turn }
const waiters = []; // callers at the bound with no worker of their kind, first come first served
let started = 0;
let peak = 0;

/** How many trainer workers may run at once here. */
export function workerSlotLimit() {
  limit ??= hardwareThreads(DEFAULT_SIZE_CAP).then((n) => Math.max(MIN_SLOTS, n));
  return limit;
}

/**
 * For tests: { limit, workers (running or starting), trainers (on them), waiting (for a worker of
 * their kind), started (ever), peak }.
 */
export async function workerSlotStats() {
  return {
    limit: await workerSlotLimit(),
    workers: hosts.length,
    waiting: waiters.length,
    trainers: hosts.reduce((n, h) => n + h.trainers, 0),
    started,
    peak,
  };
}

function close(host) {
  const at = hosts.indexOf(host);
  if (at < 0) return;
  hosts.splice(at, 1);
  wakeAll();
}

// Waiters look again, in the order they came (each finds room, a worker of its kind, or waits again).
const wakeAll = () => waiters.splice(0).forEach((wake) => wake());

/**
 * A place for one more trainer: a worker of `key` (the kinds and worker URL asked for) with room, or
 * a new one opened by open() while fewer than the bound run. Returns the host with one trainer
 * counted on it; leaveHost(host) takes it off again. `signal` (an AbortSignal) ends a wait.
 */
export async function joinHost(key, open, signal) {
  const bound = await workerSlotLimit();
  for (;;) {
    signal?.throwIfAborted();
    if (hosts.length < bound) {
      const host = { key, trainers: 1, nextTrainer: 1, turn: Promise.resolve(), opened: null };
      host.opened = open(() => close(host));
      host.opened.catch(() => close(host));
      hosts.push(host);
      started += 1;
      peak = Math.max(peak, hosts.length);
      if (waiters.length) queueMicrotask(wakeAll); // one may wait for a worker of this kind
      return host;
    }
    const same = hosts.filter((h) => h.key === key);
    if (same.length) {
      const host = same.reduce((a, b) => (b.trainers < a.trainers ? b : a));
      host.trainers += 1;
      return host;
    }
    // Every worker is of another kind (another worker URL): wait until one ends, first come first served.
    await new Promise((resolve, reject) => {
      const abort = () => {
        const at = waiters.indexOf(wake);
        if (at >= 0) waiters.splice(at, 1);
        reject(signal.reason);
      };
      const wake = () => {
        signal?.removeEventListener('abort', abort);
        resolve();
      };
      waiters.push(wake);
      signal?.addEventListener('abort', abort, { once: true });
    });
  }
}

/** One trainer fewer on `host`; true when it was the last (the caller ends the worker). */
export function leaveHost(host) {
  host.trainers -= 1;
  if (host.trainers > 0) return false;
  close(host);
  return true;
}
