// The page's JavaScript during split forwards, by function: V8's sampling CPU profiler (CDP
// Profiler) on the page's main thread while it runs PROBE_CALLS split forwards at GPT-2 width.
// Usage: node bench/probe/pool-profile.mjs [T] [side]   (default 1024 pool)
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../tests/browser/chromium.js';
import { serveDir } from '../../tests/browser/static-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tokens = Number(process.argv[2] ?? 1024);
const side = process.argv[3] ?? 'pool';
const CALLS = Number(process.env.PROBE_CALLS ?? 16);
const server = await serveDir(root);
const browser = await launchChromium();
console.log(
  `CPU: ${cpus()[0].model}; Chromium ${browser.version()}; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}bench/probe/pool-probe-page.html`);
  await page.waitForFunction(() => typeof window.probeSetup === 'function');
  const config = { batch: 1, tokens, dModel: 768, heads: 12, headDim: 64 };
  await page.evaluate((c) => window.probeSetup({ config: c }), config);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const times = await page.evaluate(([s, n]) => window.probeRun(s, n), [side, CALLS]);
  const { profile } = await cdp.send('Profiler.stop');
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i += 1)
    dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + profile.timeDeltas[i] / 1000);
  for (const [id, ms] of dt) {
    const n = byId.get(id);
    const f = n.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + ms);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const pageMedian = [...times].sort((a, b) => a - b)[times.length >> 1];
  console.log(
    `${side} T=${tokens}: ${CALLS} forwards, page median ${pageMedian.toFixed(1)} ms; profile ${total.toFixed(0)} ms`,
  );
  for (const [n, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.log(
      `${(ms / CALLS).toFixed(2).padStart(8)} ms/forward  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${n}`,
    );
} finally {
  await browser.close();
  await server.close();
}
