// The pool probe in a page: window.probeSetup(config) makes a pool of 2 workers and a single
// instance with the same weights and warms both up; window.probeRun(side, calls) runs that many
// forwards of one side, each between performance marks (the driver reads them from the trace), and
// returns the page's own time of each. The driver alternates the sides.
import { createPool, loadHeadwise } from '../../web/headwise.js';

const now = () => performance.now();
// Ends the page's task between forwards (a split forward ends it too: it awaits the workers).
const yieldTask = () =>
  new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = resolve;
    channel.port2.postMessage(0);
  });
let sides = null;

window.probeSetup = async ({ config, size = 2 }) => {
  const hw = await loadHeadwise();
  const pool = await createPool({ size });
  const single = hw.createAttention({ ...config, seed: 1 });
  const pooled = pool.createAttention({ ...config, seed: 1 });
  const x = hw.randomInput(config, 2);
  sides = {
    pool: () => pooled.forward(x, { parallel: 'always' }),
    single: async () => {
      single.forward(x);
      await yieldTask();
    },
  };
  // Warm-up: V8 tiers the wasm up on later calls (>= 1.5 s a side).
  for (const run of Object.values(sides)) {
    const t0 = now();
    for (let i = 0; i < 3 || now() - t0 < 1500; i += 1) await run();
  }
  return { size: pool.size, crossOriginIsolated: globalThis.crossOriginIsolated };
};

window.probeRun = async (side, calls) => {
  const times = [];
  for (let i = 0; i < calls; i += 1) {
    performance.mark(`call:${side}:start`);
    const t0 = now();
    await sides[side]();
    times.push(now() - t0);
    performance.mark(`call:${side}:end`);
  }
  return times;
};
