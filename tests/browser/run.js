// The browser stage of `npm test`. Starts one Chromium (a playwright browser server) for the whole
// stage: every test file connects to it (HEADWISE_CHROMIUM_WS, see chromium.js) instead of
// launching and closing a Chromium of its own. Then:
//
//   node tests/browser/run.js            every tests/browser/*.test.js, in two rounds: first the
//                                        files that measure the page's own timing (traces of its
//                                        main thread, loop-vs-fused ratios) one at a time,
//                                        then all the others two at a time (HEADWISE_BROWSER_JOBS)
//   node tests/browser/run.js ARGS...    `node --test ARGS...` against the shared Chromium
//
// Most browser tests wait on the page (training runs 5 ms slices on animation frames, sweeps and
// loads), so two files at a time overlap their waits on a 2-core machine; the timing-sensitive ones
// keep the machine to themselves, as they had before. Exits non-zero if any file failed.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromiumServer } from './chromium.js';

const DIR = fileURLToPath(new URL('.', import.meta.url));
// Files that assert on the page's own timing besides the ones that observe long tasks.
const ALONE = new Set(['loop-slide.test.js']);
// The longest files start first, so that the two-at-a-time round does not end on one of them alone.
const LONGEST_FIRST = [
  'reveal-deck.test.js',
  'explorer.test.js',
  'slide-fit.test.js',
  'heatmap-hover.test.js',
  'learned-maps.test.js',
  'learn-options.test.js',
  'slidev-deck.test.js',
  'heads-slide.test.js',
  'trained-heads.test.js',
  'steps-panel.test.js',
  'theme.test.js',
];
const JOBS = Number(process.env.HEADWISE_BROWSER_JOBS ?? 2);

const runs = [];
if (process.argv.length > 2) runs.push(process.argv.slice(2));
else {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.test.js'))
    .sort((a, b) => {
      const rank = (f) => (LONGEST_FIRST.includes(f) ? LONGEST_FIRST.indexOf(f) : LONGEST_FIRST.length);
      return rank(a) - rank(b) || a.localeCompare(b);
    });
  // A trace (main-thread-work.js) is browser-wide: two files tracing at once would collide.
  const alone = (f) => ALONE.has(f) || /'longtask'|traceMainThread/.test(readFileSync(`${DIR}${f}`, 'utf8'));
  const reporter = ['--test-reporter=spec'];
  runs.push(['--test-concurrency=1', ...reporter, ...files.filter(alone).map((f) => `${DIR}${f}`)]);
  runs.push([`--test-concurrency=${JOBS}`, ...reporter, ...files.filter((f) => !alone(f)).map((f) => `${DIR}${f}`)]);
}

const server = await launchChromiumServer();
let child = null;
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child?.kill(signal));
let failed = false;
for (const args of runs) {
  if (runs.length > 1)
    console.log(
      `# node --test ${args.filter((a) => a.startsWith('--')).join(' ')}: ` +
        args
          .filter((a) => !a.startsWith('--'))
          .map((f) => f.slice(DIR.length))
          .join(' '),
    );
  child = spawn(process.execPath, ['--test', ...args], {
    stdio: 'inherit',
    env: { ...process.env, HEADWISE_CHROMIUM_WS: server.wsEndpoint() },
  });
  const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  if (code !== 0) failed = true;
}
await server.close();
process.exit(failed ? 1 : 0);
