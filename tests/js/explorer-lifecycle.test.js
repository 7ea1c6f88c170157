// The explorer's visibility and loading state machine, on its own: every transition, and the
// hooks each state's entry runs (load, resume, pause, unload).
import { describe, expect, test } from 'vitest';
import { Lifecycle, LIFECYCLE_STATES, nextState } from '../../web/explorer/lifecycle.js';

function recorded() {
  const entered = [];
  const hooks = Object.fromEntries(
    LIFECYCLE_STATES.map((s) => [s, (from, event) => entered.push(`${from} -${event}-> ${s}`)]),
  );
  return { machine: new Lifecycle(hooks), entered };
}

describe('lifecycle', () => {
  test('idle -> loading -> ready -> paused out of view -> ready when back', () => {
    const { machine, entered } = recorded();
    expect(machine.state).toBe('idle');
    expect(machine.send('hide')).toBe('idle'); // out of view and not started: nothing to do
    expect(machine.send('show')).toBe('loading');
    expect(machine.send('loaded')).toBe('ready');
    expect(machine.send('hide')).toBe('paused');
    expect(machine.visible).toBe(false);
    expect(machine.send('show')).toBe('ready');
    expect(entered).toEqual([
      'idle -show-> loading',
      'loading -loaded-> ready',
      'ready -hide-> paused',
      'paused -show-> ready',
    ]);
  });

  test('leaving the view while loading ends paused; the load is not started twice', () => {
    const { machine, entered } = recorded();
    machine.send('show');
    expect(machine.send('hide')).toBe('loading');
    expect(machine.send('show')).toBe('loading');
    expect(machine.send('hide')).toBe('loading');
    expect(machine.send('loaded')).toBe('paused');
    expect(entered).toEqual(['idle -show-> loading', 'loading -loaded-> paused']);
  });

  test('a failed load is an error, retried when the element comes back into view', () => {
    const { machine, entered } = recorded();
    machine.send('show');
    expect(machine.send('failed')).toBe('error');
    expect(machine.send('loaded')).toBe('error'); // a late answer changes nothing
    expect(machine.send('hide')).toBe('error');
    expect(machine.send('show')).toBe('loading');
    expect(machine.send('loaded')).toBe('ready');
    expect(entered).toEqual([
      'idle -show-> loading',
      'loading -failed-> error',
      'error -show-> loading',
      'loading -loaded-> ready',
    ]);
  });

  test('disconnecting returns to idle from loading, ready and paused; a late load is ignored', () => {
    for (const path of [['show'], ['show', 'loaded'], ['show', 'loaded', 'hide']]) {
      const { machine } = recorded();
      for (const event of path) machine.send(event);
      expect(machine.send('disconnect'), path.join(' ')).toBe('idle');
      expect(machine.visible).toBe(false);
      expect(machine.send('loaded')).toBe('idle');
    }
  });

  test('the table: events a state does not list change nothing', () => {
    const events = ['show', 'hide', 'loaded', 'failed', 'disconnect'];
    const changes = [];
    for (const state of LIFECYCLE_STATES) {
      for (const event of events) {
        for (const visible of [false, true]) {
          const to = nextState(state, event, visible);
          if (to !== state) changes.push(`${state} ${event}${visible ? ' (in view)' : ''} -> ${to}`);
        }
      }
    }
    expect(changes.sort()).toEqual(
      [
        'error show (in view) -> loading',
        'error show -> loading',
        'idle show (in view) -> loading',
        'idle show -> loading',
        'loading disconnect (in view) -> idle',
        'loading disconnect -> idle',
        'loading failed (in view) -> error',
        'loading failed -> error',
        'loading loaded (in view) -> ready',
        'loading loaded -> paused',
        'paused disconnect (in view) -> idle',
        'paused disconnect -> idle',
        'paused show (in view) -> ready',
        'paused show -> ready',
        'ready disconnect (in view) -> idle',
        'ready disconnect -> idle',
        'ready hide (in view) -> paused',
        'ready hide -> paused',
      ].sort(),
    );
  });
});
