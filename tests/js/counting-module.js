// A stand-in for the loaded module that records every call into it (and into the layers it
// creates) and passes each on to the real one. Methods run on the real objects, whose private
// fields a plain Proxy would not reach.

function counted(target, label, calls, wrapResult = (value) => value) {
  return new Proxy(target, {
    get(object, property) {
      const value = object[property];
      if (typeof value !== 'function') return value;
      return (...args) => {
        calls.push({ on: label, method: String(property), args });
        return wrapResult(value.apply(object, args), String(property));
      };
    },
  });
}

/** @returns {{ hw: object, calls: object[], layers: object[] }} calls[i]: { on, method, args } */
export function countingModule(realHw) {
  const calls = [];
  const layers = [];
  const hw = counted(realHw, 'hw', calls, (value, method) => {
    if (method !== 'createAttention') return value;
    const label = `layer ${layers.length}`;
    layers.push({ label, config: value.config });
    return counted(value, label, calls);
  });
  return { hw, calls, layers };
}

/** A call's short name: forward calls say their variant and whether intermediates were kept. */
export function callName({ method, args }) {
  if (method !== 'forward') return method;
  const { variant = 'fused', intermediates = false } = args[1] ?? {};
  return `forward ${variant}${intermediates ? ' +intermediates' : ''}`;
}

/** How often each call was made on `on` (e.g. 'layer 0' or 'hw'). */
export function tally(calls, on) {
  const counts = {};
  for (const call of calls) if (call.on === on) counts[callName(call)] = (counts[callName(call)] ?? 0) + 1;
  return counts;
}
