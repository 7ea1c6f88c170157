// Starting one pool worker, whatever runs us: a Node worker_threads Worker, a browser module
// Worker from a same-origin file, or (where no worker file can be loaded: file://, a bundle that
// left worker.js behind) a classic Worker from a Blob URL holding the whole module. Each comes
// back as the same small endpoint: post, terminate, and onMessage / onFailure callbacks.

export const isNode =
  typeof process === 'object' && typeof process.versions?.node === 'string' && typeof window === 'undefined';

const nodeBuiltin = (name) => import(/* @vite-ignore */ `node:${name}`);

/** Cores to use by default: the machine's count, capped. */
export async function hardwareThreads(cap) {
  let n = 1;
  if (isNode) {
    const os = await nodeBuiltin('os');
    n = os.availableParallelism?.() ?? os.cpus().length;
  } else if (typeof navigator === 'object') n = navigator.hardwareConcurrency || 1;
  return Math.max(1, Math.min(cap, n));
}

/** The kinds of worker worth trying here, best first. */
export function workerKinds({ workerUrl } = {}) {
  if (isNode) return ['node'];
  if (typeof Worker !== 'function') return [];
  const fromDisk = typeof location === 'object' && location.protocol === 'file:';
  if (workerUrl) return ['module'];
  return fromDisk ? ['blob'] : ['module', 'blob'];
}

const defaultUrl = () => new URL('./worker.js', import.meta.url);

let blobUrl = null;
async function classicWorkerUrl() {
  if (!blobUrl) {
    const { default: source } = await import('../build/pool/worker-source.js');
    blobUrl = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  }
  return blobUrl;
}

/**
 * @param {'node' | 'module' | 'blob'} kind
 * @param {{ name: string, workerUrl?: string | URL }} options
 */
export async function spawnWorker(kind, { name, workerUrl }) {
  const endpoint = { onMessage: () => {}, onFailure: () => {} };
  const fail = (reason) => endpoint.onFailure(reason);
  if (kind === 'node') {
    const { Worker } = await nodeBuiltin('worker_threads');
    const worker = new Worker(workerUrl ? new URL(workerUrl) : defaultUrl(), { workerData: { name }, stdout: false });
    worker.on('message', (data) => endpoint.onMessage(data));
    worker.on('messageerror', () => fail('sent a message that could not be read'));
    worker.on('error', (error) => fail(`threw ${error?.name ?? 'an error'}: ${error?.message ?? error}`));
    worker.on('exit', (code) => fail(`exited (code ${code})`));
    worker.unref(); // an idle pool does not keep the process alive; busy() holds it while waiting
    return Object.assign(endpoint, {
      post: (message, transfer) => worker.postMessage(message, transfer),
      busy: (isBusy) => (isBusy ? worker.ref() : worker.unref()),
      terminate: () => {
        endpoint.onFailure = () => {};
        worker.terminate();
      },
    });
  }
  const url = kind === 'blob' ? await classicWorkerUrl() : (workerUrl ?? defaultUrl());
  const worker = new Worker(url, kind === 'module' ? { type: 'module', name } : { name });
  worker.addEventListener('message', (event) => endpoint.onMessage(event.data));
  worker.addEventListener('messageerror', () => fail('sent a message that could not be read'));
  worker.addEventListener('error', (event) => {
    event.preventDefault?.();
    fail(event.message ? `threw ${event.message}` : 'could not be loaded, or threw');
  });
  return Object.assign(endpoint, {
    post: (message, transfer) => worker.postMessage(message, transfer),
    busy: () => {},
    terminate: () => {
      endpoint.onFailure = () => {};
      worker.terminate();
    },
  });
}
