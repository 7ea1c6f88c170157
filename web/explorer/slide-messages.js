// The postMessage protocol of embed.html, for slide decks that frame it:
//   request  { headwise: 1, id?, method, params? }   (an object, or the same as a JSON string)
//   reply    { headwise: 1, id, ok: true, result }  or  { headwise: 1, id, ok: false, error }
// Methods: nextStep, previousStep, goToStep { step }, setConfig { ...options }, getState,
// startTraining, pauseTraining, resetTraining, getTraining (the Learn panel).
// Only messages from the framing page are read; with ?origins=... only from those origins.
// Messages without the `headwise` key belong to someone else and are ignored. Replies go to the
// sender's window with its origin as the target, never "*".

/** Longest accepted request, in characters of JSON. */
export const MAX_MESSAGE_CHARS = 4096;
export const PROTOCOL = 1;

// The only names a message can reach: never a lookup of an arbitrary property on the element.
const METHODS = new Map([
  ['nextStep', (element) => element.nextStep()],
  ['previousStep', (element) => element.previousStep()],
  ['goToStep', (element, params) => element.goToStep(params?.step)],
  ['setConfig', (element, params) => element.setConfig(params)],
  ['getState', (element) => element.getState()],
  ['startTraining', (element) => element.startTraining()],
  ['pauseTraining', (element) => element.pauseTraining()],
  ['resetTraining', (element) => element.resetTraining()],
  ['getTraining', (element) => element.trainingState()],
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

/** Handles one request's data; returns the reply, or null for a message that is not ours. */
export function answer(element, data) {
  const request = parseRequest(data);
  if (request === null) return null;
  const { id } = request;
  if (request.error) return { headwise: PROTOCOL, id, ok: false, error: request.error };
  try {
    return { headwise: PROTOCOL, id, ok: true, result: METHODS.get(request.method)(element, request.params) };
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

/**
 * Listens on `win` for requests from its parent frame and answers them for `element`.
 * @returns a function that stops listening
 */
export function listenForSlideMessages(win, element, { allowedOrigins = null } = {}) {
  const onMessage = (event) => {
    if (win.parent === win || event.source !== win.parent) return;
    if (allowedOrigins && !allowedOrigins.has(event.origin)) return;
    const reply = answer(element, event.data);
    // An opaque sender (a deck opened from file://) has no origin to name: it gets no reply.
    if (reply === null || event.origin === 'null') return;
    event.source.postMessage(reply, { targetOrigin: event.origin });
  };
  win.addEventListener('message', onMessage);
  return () => win.removeEventListener('message', onMessage);
}
