// Starting one pool worker, whatever runs us: a Node worker_threads Worker, a browser module
// Worker from a same-origin file, or (where no module worker file can be loaded: file://, a bundle
// that left worker.js behind) a classic Worker holding the whole module's JS, which takes its wasm
// from its init message (kind 'blob'). Each comes back as the same small endpoint: post,
// terminate, and onMessage / onFailure callbacks.

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

// The module worker beside this file (a classic-script bundle has none: its build makes this undefined).
const defaultUrl = () => new URL('./worker.js', import.meta.url);

/** The kinds of worker worth trying here, best first. */
export function workerKinds({ workerUrl } = {}) {
  if (isNode) return ['node'];
  if (typeof Worker !== 'function') return [];
  const fromDisk = typeof location === 'object' && location.protocol === 'file:';
  if (workerUrl) return ['module'];
  return fromDisk || !defaultUrl() ? ['blob'] : ['module', 'blob'];
}

// Where the classic worker comes from. By default its source text, from the build
// (build/pool/worker-source.js), started from a Blob URL. A classic-script bundle sets its own
// (setClassicWorker): a same-origin file, which a CSP that refuses blob: workers allows, and its
// source text for where a file cannot be a worker (file://).
let classic = { url: null, source: async () => (await import('../build/pool/worker-source.js')).default };
let blobUrl = null;

/**
 * Sets where classic workers come from: url, a classic worker script of this page's origin (tried
 * first), and source(), a promise of that script's text (for a Blob URL where the url is refused).
 * @param {{ url?: string | URL | null, source: () => Promise<string> }} from
 */
export function setClassicWorker({ url = null, source }) {
  classic = { url, source };
  blobUrl = null;
}

async function classicWorker(name) {
  if (classic.url) {
    try {
      return new Worker(classic.url, { name });
    } catch {
      // A page from file:// may not start a worker from a file: its text goes in a Blob instead.
    }
  }
  blobUrl ??= classic.source().then((text) => URL.createObjectURL(new Blob([text], { type: 'text/javascript' })));
  try {
    return new Worker(await blobUrl, { name });
  } catch (error) {
    blobUrl = null;
    throw error;
  }
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
  const worker =
    kind === 'blob' ? await classicWorker(name) : new Worker(workerUrl ?? defaultUrl(), { type: 'module', name });
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
