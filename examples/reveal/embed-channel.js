// The deck's side of embed.html's postMessage protocol (README, "Slide control"): requests with ids
// whose replies come back as promises, and the embeds' events ('ready', 'key') handed to onEvent.
// A request goes only to an embed that has announced itself in its current document: a message sent
// before its listener exists would be lost.

export const EMBEDS = 'iframe[src*="embed.html"]';
const REPLY_MS = 10_000;

export function openEmbedChannel(onEvent) {
  const pending = new Map();
  const announced = new WeakSet(); // the windows that said 'ready' (a moved iframe gets a new one)
  let lastId = 0;

  const frameOf = (source) => [...document.querySelectorAll(EMBEDS)].find((frame) => frame.contentWindow === source);

  window.addEventListener('message', (event) => {
    const frame = frameOf(event.source);
    const data = event.data;
    if (!frame || event.origin !== new URL(frame.src).origin || data?.headwise !== 1) return;
    if (typeof data.event === 'string') {
      if (data.event === 'ready') announced.add(event.source);
      onEvent(frame, data);
      return;
    }
    const waiting = pending.get(data.id);
    if (!waiting) return;
    pending.delete(data.id);
    clearTimeout(waiting.timer);
    if (data.ok) waiting.resolve(data.result);
    else waiting.reject(new Error(data.error));
  });

  return {
    isReady: (frame) => Boolean(frame.contentWindow) && announced.has(frame.contentWindow),
    /** Sends one request to an announced embed; resolves with its result, rejects with its error. */
    request(frame, method, params) {
      lastId += 1;
      const id = `reveal-${lastId}`;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method}: no reply from ${frame.src} within ${REPLY_MS / 1000} s`));
        }, REPLY_MS);
        pending.set(id, { resolve, reject, timer });
        frame.contentWindow.postMessage({ headwise: 1, id, method, params }, new URL(frame.src).origin);
      });
    },
  };
}
