// The postMessage protocol of embed.html, for slide decks that frame it:
//   request  { headwise: 1, id?, method, params? }   (an object, or the same as a JSON string)
//   reply    { headwise: 1, id, ok: true, result }  or  { headwise: 1, id, ok: false, error }
// Methods: setConfig { ...options }, getState, forwardKeys { on }, and the panels' commands (their
// entries'): nextStep, previousStep, goToStep { step }, startTraining, pauseTraining, resetTraining, getTraining.
//   events   { headwise: 1, event: 'ready', state }   once, when the explorer has drawn
//            { headwise: 1, event: 'key', key, code, shiftKey, altKey, ctrlKey, metaKey }
//            after forwardKeys { on: true }: the deck's navigation keys pressed inside the embed
// Only messages from the framing page are read; with ?origins=... only from those origins.
// Messages without the `headwise` key belong to someone else and are ignored. Replies and events go
// to the parent's window with its origin as the target, never "*".
import { PANELS } from './panels/index.js';

/** Longest accepted request, in characters of JSON. */
export const MAX_MESSAGE_CHARS = 4096;
export const PROTOCOL = 1;

// The only names a message can reach: never a lookup of an arbitrary property on the element.
// The element's own methods, then each panel's commands (its entry's, under their message names).
const METHODS = new Map([
  ['setConfig', (element, params) => element.setConfig(params)],
  ['getState', (element) => element.getState()],
  ['forwardKeys', (element, params, context) => context.forwardKeys(params?.on)],
  ...PANELS.flatMap((entry) =>
    Object.entries(entry.commands ?? {}).map(([method, command]) => [
      command.message ?? method,
      (element, params) => element[method](...(command.params?.(params) ?? [])),
    ]),
  ),
]);
export const METHOD_NAMES = Object.freeze([...METHODS.keys()]);

const idOf = (data) =>
  (typeof data.id === 'string' && data.id.length <= 64) || Number.isFinite(data.id) ? data.id : null;

function parseRequest(data) {
  let text;
  if (typeof data === 'string') {
    // Too long to parse: refused unread, so the reply cannot name the request's id.
    if (data.length > MAX_MESSAGE_CHARS)
      return { error: `message too large: ${data.length} characters, at most ${MAX_MESSAGE_CHARS}`, id: null };
    if (!data.includes('"headwise"')) return null;
    // It names headwise, so it is meant for us: malformed JSON gets an error reply, not silence.
    try {
      data = JSON.parse(data);
    } catch (error) {
      return { error: `malformed JSON: ${error.message}`, id: null };
    }
  } else {
    if (data === null || typeof data !== 'object' || !Object.hasOwn(data, 'headwise')) return null;
    try {
      text = JSON.stringify(data);
    } catch {
      return { error: 'message is not plain JSON data', id: null };
    }
    if (text.length > MAX_MESSAGE_CHARS)
      return {
        error: `message too large: ${text.length} characters of JSON, at most ${MAX_MESSAGE_CHARS}`,
        id: idOf(data),
      };
  }
  if (data === null || typeof data !== 'object' || !Object.hasOwn(data, 'headwise')) return null;
  const id = idOf(data);
  if (data.headwise !== PROTOCOL)
    return { error: `unsupported protocol version ${JSON.stringify(data.headwise)}; this page speaks ${PROTOCOL}`, id };
  if (typeof data.method !== 'string' || !METHODS.has(data.method)) {
    return {
      error:
        `unknown method ${JSON.stringify(String(data.method).slice(0, 40))}; use one of ` +
        `${METHOD_NAMES.join(', ')}`,
      id,
    };
  }
  if (
    data.params !== undefined &&
    (data.params === null || typeof data.params !== 'object' || Array.isArray(data.params))
  )
    return { error: 'params must be an object', id };
  return { method: data.method, params: data.params, id };
}

const NO_CONTEXT = Object.freeze({
  forwardKeys() {
    throw new Error('only an embedded page can forward keys to its parent');
  },
});

/**
 * Handles one request's data; returns the reply, or null for a message that is not ours.
 * context.forwardKeys(on) serves the forwardKeys method (listenForSlideMessages provides it).
 */
export function answer(element, data, context = NO_CONTEXT) {
  const request = parseRequest(data);
  if (request === null) return null;
  const { id } = request;
  if (request.error) return { headwise: PROTOCOL, id, ok: false, error: request.error };
  try {
    const result = METHODS.get(request.method)(element, request.params, context);
    return { headwise: PROTOCOL, id, ok: true, result };
  } catch (error) {
    return { headwise: PROTOCOL, id, ok: false, error: `${request.method}: ${error.message}` };
  }
}

/** Parses ?origins=https://a.example,https://b.example into a set of origins (null: any). */
export function allowedOriginsFrom(search) {
  const raw = new URLSearchParams(search).get('origins');
  if (raw === null || raw.trim() === '') return null;
  const origins = new Set();
  for (const part of raw.split(',')) {
    try {
      origins.add(new URL(part.trim()).origin);
    } catch {
      /* not an origin: ignored */
    }
  }
  return origins;
}

/** Keys a deck moves with; forwarded only when pressed outside a text field and not used by the page. */
export const DECK_KEYS = Object.freeze(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', ' ']);
const TEXT_FIELDS = 'input, textarea, select, [contenteditable=""], [contenteditable="true"]';

/** The parent's origin as far as this frame can name it (null: not framed, or opaque). */
function parentOrigin(win, allowedOrigins) {
  if (win.parent === win) return null;
  const candidates = [win.location?.ancestorOrigins?.[0], win.document?.referrer].filter(Boolean);
  for (const raw of candidates) {
    try {
      const origin = new URL(raw).origin;
      if (origin !== 'null' && (!allowedOrigins || allowedOrigins.has(origin))) return origin;
    } catch {
      /* not a URL */
    }
  }
  return null;
}

/**
 * Listens on `win` for requests from its parent frame and answers them for `element`; announces
 * 'ready' to the parent after the element's first render, and forwards deck keys once asked to.
 * @returns a function that stops listening
 */
export function listenForSlideMessages(win, element, { allowedOrigins = null } = {}) {
  let keysTo = null; // { target, origin } after forwardKeys { on: true }
  const onKey = (event) => {
    if (!keysTo || event.defaultPrevented || !DECK_KEYS.includes(event.key)) return;
    const target = event.composedPath?.()[0] ?? event.target;
    if (target?.closest?.(TEXT_FIELDS)) return;
    const { key, code, shiftKey, altKey, ctrlKey, metaKey } = event;
    keysTo.target.postMessage(
      { headwise: PROTOCOL, event: 'key', key, code, shiftKey, altKey, ctrlKey, metaKey },
      { targetOrigin: keysTo.origin },
    );
  };
  const onMessage = (event) => {
    if (win.parent === win || event.source !== win.parent) return;
    if (allowedOrigins && !allowedOrigins.has(event.origin)) return;
    const context = {
      forwardKeys(on) {
        if (typeof on !== 'boolean') throw new TypeError(`on must be true or false, got ${JSON.stringify(on)}`);
        if (on && event.origin === 'null') throw new Error('a page with an opaque origin (file://) cannot be named');
        keysTo = on ? { target: event.source, origin: event.origin } : null;
        return { forwardingKeys: on };
      },
    };
    const reply = answer(element, event.data, context);
    // An opaque sender (a deck opened from file://) has no origin to name: it gets no reply.
    if (reply === null || event.origin === 'null') return;
    event.source.postMessage(reply, { targetOrigin: event.origin });
  };
  const announce = () => {
    const origin = parentOrigin(win, allowedOrigins);
    if (origin) win.parent.postMessage({ headwise: PROTOCOL, event: 'ready', state: element.getState() }, origin);
  };
  win.addEventListener('message', onMessage);
  win.addEventListener('keydown', onKey);
  element.addEventListener('headwise-render', announce, { once: true });
  return () => {
    win.removeEventListener('message', onMessage);
    win.removeEventListener('keydown', onKey);
    element.removeEventListener('headwise-render', announce);
  };
}
