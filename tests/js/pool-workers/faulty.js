// A real pool worker (web/pool/serve.js) with one fault added, for the pool's tests in Node and in
// Chromium. fault({ data, generation, exit, port }) returns true when it took the message over.
// The generation is the last part of the worker's name (headwise-pool-<slot>.<generation>): 0 for
// the first worker of a slot, 1 for its replacement.
import { loadHeadwise } from '../../../web/headwise.js';
import { serve } from '../../../web/pool/serve.js';
import { browserPort, inBrowserWorker, nodePort } from '../../../web/pool/worker-port.js';

function start(port, name, fault, exit) {
  const generation = Number(String(name).split('.').pop());
  serve(
    {
      post: (message, transfer) => port.post(message, transfer),
      listen: (handler) => port.listen((data) => fault({ data, generation, exit, port }) || handler(data)),
    },
    () => loadHeadwise(),
  );
}

export function faultyWorker(fault) {
  if (inBrowserWorker()) start(browserPort(), globalThis.name, fault, () => globalThis.close());
  else {
    Promise.all([nodePort(), import('node:worker_threads')]).then(([port, { workerData }]) =>
      start(port, workerData.name, fault, () => process.exit(3)),
    );
  }
}

export const isForward = (data) => data?.op === 'forward';
