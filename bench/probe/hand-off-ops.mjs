// The calling thread's share of a split forward, operation by operation, the same code in a
// Chromium page (bench/probe/hand-off.mjs drives it) and in Node (run this file): a private copy
// of x (floatArrayArgument), x posted to a worker by structured clone and by transfer, and the
// partial outputs summed (sumParts). Each median of `reps` runs, ms. HANDOFF_LENGTHS=45632,98304
// times other lengths (45,632: the 2-layer induction model's parameters).
import { floatArrayArgument } from '../../web/arguments.js';
import { sumParts } from '../../web/pool/split.js';

/** The lengths to time: HANDOFF_LENGTHS (comma-separated floats), or x at GPT-2 width T = 128 and 1024. */
export const handOffLengths = (given) => (given ? given.split(',').map(Number) : [128 * 768, 1024 * 768]);

const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];

async function sink() {
  if (typeof window === 'object') {
    const url = URL.createObjectURL(new Blob(['onmessage = () => {};'], { type: 'text/javascript' }));
    const w = new Worker(url);
    return { post: (m, t) => w.postMessage(m, t), close: () => w.terminate() };
  }
  const { Worker: NodeWorker } = await import('node:worker_threads');
  const w = new NodeWorker('require("node:worker_threads").parentPort.on("message", () => {});', { eval: true });
  return { post: (m, t) => w.postMessage(m, t), close: () => w.terminate() };
}

export async function handOffOps(length, reps = 15) {
  const x = new Float32Array(length).map((_, i) => Math.sin(i));
  const w = await sink();
  const kept = new Float32Array(length);
  const time = (f) => {
    const t = [];
    for (let r = 0; r < reps + 3; r += 1) {
      const t0 = performance.now();
      f();
      t.push(performance.now() - t0);
    }
    return median(t.slice(3));
  };
  const ops = {
    'new Float32Array(n) + set (fresh memory)': time(() => new Float32Array(length).set(x)),
    'set into a kept array (no allocation)': time(() => kept.set(x)),
    'floatArrayArgument (copy + finite check)': time(() => floatArrayArgument('x', x, length, [length])),
    'postMessage, structured clone': time(() => w.post({ x })),
    'postMessage, transfer of a fresh copy': time(() => {
      const c = x.slice();
      w.post({ x: c }, [c.buffer]);
    }),
    'sumParts of 2 parts (fresh output)': time(() => sumParts([x, kept], null)),
  };
  w.close();
  return ops;
}

if (typeof window !== 'object' && import.meta.url === `file://${process.argv[1]}`) {
  const { cpus, loadavg } = await import('node:os');
  console.log(
    `Node ${process.version}, ${cpus()[0].model}; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const n of handOffLengths(process.env.HANDOFF_LENGTHS)) {
    const ops = await handOffOps(n);
    for (const [k, v] of Object.entries(ops)) console.log(`${n} floats: ${k}: ${v.toFixed(2)} ms`);
  }
}
