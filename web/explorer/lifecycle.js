// The element's visibility and loading as one state machine, in the manner of distill's d-figure:
// nothing happens until the element comes near the viewport; then the module loads; while it is
// out of view the element is paused and does no work; a failed load is retried when it is back.
//
//   idle --show--> loading --loaded--> ready (in view) or paused (left the view meanwhile)
//   loading --failed--> error --show--> loading
//   ready --hide--> paused --show--> ready
//   loading, ready, paused --disconnect--> idle
//
// Events not listed for a state change nothing but the visibility they carry.

export const LIFECYCLE_STATES = Object.freeze(['idle', 'loading', 'ready', 'paused', 'error']);

const TABLE = Object.freeze({
  idle: { show: () => 'loading' },
  loading: { loaded: (visible) => (visible ? 'ready' : 'paused'), failed: () => 'error', disconnect: () => 'idle' },
  ready: { hide: () => 'paused', disconnect: () => 'idle' },
  paused: { show: () => 'ready', disconnect: () => 'idle' },
  error: { show: () => 'loading' },
});

/** The state after `event` in `state`, for an element that is (after the event) `visible`. */
export function nextState(state, event, visible) {
  const edge = TABLE[state]?.[event];
  return edge ? edge(visible) : state;
}

export class Lifecycle {
  #state = 'idle';
  #visible = false;
  #onEnter;

  /** onEnter: { [state]: (from, event) => void }, called after each change of state. */
  constructor(onEnter = {}) {
    this.#onEnter = onEnter;
  }

  get state() {
    return this.#state;
  }
  /** Near the viewport (whatever the state). */
  get visible() {
    return this.#visible;
  }

  /** event: 'show', 'hide', 'loaded', 'failed' or 'disconnect'. Returns the new state. */
  send(event) {
    if (event === 'show') this.#visible = true;
    else if (event === 'hide' || event === 'disconnect') this.#visible = false;
    const from = this.#state;
    const to = nextState(from, event, this.#visible);
    if (to !== from) {
      this.#state = to;
      this.#onEnter[to]?.(from, event);
    }
    return this.#state;
  }
}
