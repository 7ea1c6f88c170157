// Why the pool scales less in Chromium than in Node: a probe. It opens bench/probe/pool-probe-page.html
// (not cross-origin isolated), makes a pool of 2 workers and a single instance at one shape, then
// alternates blocks of split forwards and blocks of single forwards while
//   - Chromium traces every thread of the page's renderer (RunTask and what runs inside: wall `dur`
//     and thread CPU time `tdur`), and
//   - this process reads every Chromium thread's CPU time from /proc before and after each block
//     (all of Chromium's processes, so work outside the renderer shows too).
// Usage: node bench/probe/pool-probe.mjs [T ...]   (default 128 1024; GPT-2 width, B = 1)
//        PROBE_ROUNDS=6 PROBE_CALLS=8
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../tests/browser/chromium.js';
import { serveDir } from '../../tests/browser/static-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tokensList = process.argv.slice(2).map(Number);
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 6);
const CALLS = Number(process.env.PROBE_CALLS ?? 8);
const TICK_MS = 10; // /proc's clock ticks (USER_HZ 100)
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const sum = (v) => v.reduce((a, b) => a + b, 0);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

// ---- /proc: the Chromium processes under this one, each thread's CPU ms ----
function children() {
  const parent = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {}
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parent) if (!mine.has(pid) && mine.has(ppid)) (mine.add(pid), (grew = true));
  }
  mine.delete(process.pid);
  return [...mine];
}
function kindOf(pid) {
  try {
    // Chromium rewrites its children's command lines into one string: read the --type there.
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    if (!cmd.includes('chrom')) return null;
    return /--type=(\S+)/.exec(cmd)?.[1] ?? 'browser';
  } catch {
    return null;
  }
}
function threadCpu() {
  const out = new Map();
  for (const pid of children()) {
    const kind = kindOf(pid);
    if (!kind) continue;
    let tids = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(`${pid}/${tid}`, { kind, comm, ms: (Number(f[11]) + Number(f[12])) * TICK_MS });
      } catch {}
    }
  }
  return out;
}
function cpuDelta(before, after) {
  const by = new Map();
  for (const [key, a] of after) {
    const d = a.ms - (before.get(key)?.ms ?? 0);
    if (d <= 0) continue;
    const name = `${a.kind}: ${a.comm.replace(/\d+$/, '#')}`;
    by.set(name, (by.get(name) ?? 0) + d);
  }
  return by;
}

// ---- the trace: every thread of the renderer ----
async function startTrace(page) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  await cdp.send('Tracing.start', {
    traceConfig: {
      includedCategories: [
        'disabled-by-default-devtools.timeline',
        'devtools.timeline',
        'blink.user_timing',
        'v8',
        'v8.wasm',
        'disabled-by-default-v8.gc',
        'toplevel',
      ],
      excludedCategories: ['*'],
    },
    transferMode: 'ReportEvents',
  });
  return async () => {
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach().catch(() => {});
    return events;
  };
}

// Per call window (the page's marks): per thread, the top-level events' wall and CPU inside it.
function analyseTrace(events) {
  const names = new Map();
  for (const e of events) if (e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  const marks = events.filter((e) => e.cat === 'blink.user_timing' && e.name.startsWith('call:'));
  const renderer = marks[0]?.pid;
  const windows = [];
  const open = {};
  for (const m of marks.sort((a, b) => a.ts - b.ts)) {
    const [, side, edge] = m.name.split(':');
    if (edge === 'start') open[side] = m.ts;
    else if (open[side] !== undefined) windows.push({ side, from: open[side], to: m.ts });
  }
  // Top-level complete events per thread of the renderer.
  const byThread = new Map();
  for (const e of events.filter((x) => x.ph === 'X' && x.pid === renderer).sort((a, b) => a.ts - b.ts)) {
    const key = `${e.pid}:${e.tid}`;
    if (!byThread.has(key)) byThread.set(key, []);
    const list = byThread.get(key);
    const last = list.at(-1);
    if (last && e.ts < last.ts + last.dur) {
      (last.inner ??= []).push(e);
      continue;
    }
    list.push(e);
  }
  const label = (key) => (names.get(key) ?? key).replace(/\d+$/, '#');
  const rows = [];
  for (const w of windows) {
    const row = { side: w.side, wallMs: (w.to - w.from) / 1000, threads: {}, inner: {} };
    for (const [key, list] of byThread) {
      let dur = 0;
      let tdur = 0;
      for (const e of list) {
        if (e.ts + e.dur <= w.from || e.ts >= w.to) continue;
        const frac = (Math.min(e.ts + e.dur, w.to) - Math.max(e.ts, w.from)) / Math.max(1, e.dur);
        dur += (e.dur * frac) / 1000;
        tdur += ((e.tdur ?? 0) * frac) / 1000;
        for (const i of e.inner ?? []) {
          const n = `${label(key).startsWith('DedicatedWorker') ? 'worker' : label(key)}: ${i.name}`;
          row.inner[n] = (row.inner[n] ?? 0) + i.dur / 1000;
        }
      }
      if (dur > 0) {
        const k = label(key) === 'DedicatedWorker thread' ? `worker ${key.split(':')[1]}` : label(key);
        row.threads[k] = { dur, tdur };
      }
    }
    rows.push(row);
  }
  return rows;
}

function report(tokens, times, traceRows, cpu, blocks) {
  const lines = [];
  const ms = (v) => v.toFixed(2);
  lines.push(`### GPT-2 width, B = 1, T = ${tokens}`);
  for (const side of ['pool', 'single']) {
    const rows = traceRows.filter((r) => r.side === side);
    const threads = new Set(rows.flatMap((r) => Object.keys(r.threads)));
    lines.push(
      '',
      `${side}: page's time per forward median ${ms(median(times[side]))} ms (${times[side].length} calls)`,
    );
    lines.push(
      '| thread (renderer) | wall in tasks ms / forward (median) | CPU ms / forward (median) |',
      '|---|---:|---:|',
    );
    for (const t of [...threads].sort()) {
      const wall = median(rows.map((r) => r.threads[t]?.dur ?? 0));
      lines.push(`| ${t} | ${ms(wall)} | ${ms(median(rows.map((r) => r.threads[t]?.tdur ?? 0)))} |`);
    }
    const inner = {};
    for (const r of rows) for (const [n, d] of Object.entries(r.inner)) inner[n] = (inner[n] ?? 0) + d / rows.length;
    const top = Object.entries(inner)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12);
    lines.push('', `inside those tasks (mean wall ms / forward): ${top.map(([n, d]) => `${n} ${ms(d)}`).join('; ')}`);
    const all = new Map();
    for (const b of blocks.filter((x) => x.side === side))
      for (const [n, d] of b.delta)
        all.set(n, (all.get(n) ?? 0) + d / b.calls / blocks.filter((x) => x.side === side).length);
    const blockMs = median(blocks.filter((x) => x.side === side).map((b) => b.wallMs / b.calls));
    lines.push(
      '',
      `/proc, every Chromium thread (CPU ms / forward, block wall ${ms(blockMs)} ms / forward): ` +
        [...all]
          .filter(([, d]) => d >= 0.05)
          .sort((a, b) => b[1] - a[1])
          .map(([n, d]) => `${n} ${ms(d)}`)
          .join('; ') +
        ` (total ${ms(sum([...all.values()]))})`,
    );
  }
  return lines;
}

const server = await serveDir(root);
const browser = await launchChromium();
console.log(`CPU: ${cpus()[0].model}, ${cpus().length} cores; Chromium ${browser.version()}; load at start ${load()}`);
try {
  for (const tokens of tokensList.length ? tokensList : [128, 1024]) {
    const page = await browser.newPage();
    await page.goto(`${server.url}bench/probe/pool-probe-page.html`);
    await page.waitForFunction(() => typeof window.probeSetup === 'function');
    const config = { batch: 1, tokens, dModel: 768, heads: 12, headDim: 64 };
    const info = await page.evaluate((c) => window.probeSetup({ config: c }), config);
    const stop = await startTrace(page);
    const times = { pool: [], single: [] };
    const blocks = [];
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const side of r % 2 ? ['single', 'pool'] : ['pool', 'single']) {
        const before = threadCpu();
        const t0 = performance.now();
        const t = await page.evaluate(([s, n]) => window.probeRun(s, n), [side, CALLS]);
        blocks.push({ side, calls: CALLS, wallMs: performance.now() - t0, delta: cpuDelta(before, threadCpu()) });
        times[side].push(...t);
      }
    }
    const rows = analyseTrace(await stop());
    console.log(`page ${JSON.stringify(info)}; load now ${load()}`);
    for (const l of report(tokens, times, rows, null, blocks)) console.log(l);
    const ratio = median(times.single) / median(times.pool);
    console.log(`\nsingle / pool (medians): ${ratio.toFixed(2)}\n`);
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`load at end ${load()}`);
