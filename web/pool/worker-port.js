// The worker's end of its channel to the pool, the same shape in a browser Worker and in a Node
// worker_threads Worker: post(message, transfer) and listen(handler).

/** In a browser Worker; listen() must be called before the script's first await (messages that
 * arrive while nothing listens are dropped). */
export const browserPort = () => ({
  post: (message, transfer) => globalThis.postMessage(message, transfer),
  listen: (handler) => globalThis.addEventListener('message', (event) => handler(event.data)),
});

export const inBrowserWorker = () =>
  typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope;

/** In a Node worker_threads Worker (its port queues messages until something listens). */
export async function nodePort() {
  const { parentPort } = await import(/* @vite-ignore */ 'node:worker_threads');
  if (!parentPort) throw new Error('the pool worker must run in a Worker');
  return {
    post: (message, transfer) => parentPort.postMessage(message, transfer),
    listen: (handler) => parentPort.on('message', handler),
  };
}
