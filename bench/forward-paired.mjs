// Two builds of the module side by side, alternated in one sitting: the explorer's forward pass
// through the JS API at GPT-2 width (12 heads of 64), fused, with intermediates (scores and
// attention kept), and with ALiBi positions. Per round: the median wall ms per call and, after a
// slash, the mean CPU ms per call (process.cpuUsage; steadier than wall time when other jobs
// share the cores), after at least 1 s and 3 calls of warm-up, over at least 7 calls and 1.5 s.
// Usage: node bench/forward-paired.mjs A_WEB_DIR B_WEB_DIR [ROUNDS] [T,T,...]
//   e.g. after copying a baseline's web/ (with web/build) to build/base/web:
//   node bench/forward-paired.mjs build/base/web web 3 128,512,1024
//   VARIANTS=fused node bench/forward-paired.mjs build/base/web web 6 1024   (only those variants)
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [a, b, roundsArg = '3', tokensArg = '128,512,1024', child] = process.argv.slice(2);
const VARIANTS = (process.env.VARIANTS ?? 'fused,intermediates,alibi').split(',');

if (child) {
  // One build, one shape, one variant, in a process of its own.
  const { loadHeadwise } = await import(pathToFileURL(resolve(a, 'headwise.js')).href);
  const hw = await loadHeadwise();
  const tokens = Number(tokensArg);
  const positions = child === 'alibi' ? 'alibi' : 'none';
  const mha = hw.createAttention({ batch: 1, tokens, dModel: 768, heads: 12, seed: 1, positions });
  const x = hw.randomInput(mha.config, 2);
  const options = child === 'intermediates' ? { intermediates: true } : {};
  const call = () => mha.forward(x, options);
  for (let n = 0, start = performance.now(); n < 3 || performance.now() - start < 1000; n += 1) call();
  const wall = [];
  const cpu = process.cpuUsage();
  for (let start = performance.now(); wall.length < 7 || performance.now() - start < 1500;) {
    const t0 = performance.now();
    call();
    wall.push(performance.now() - t0);
  }
  const used = process.cpuUsage(cpu);
  wall.sort((p, q) => p - q);
  console.log(
    JSON.stringify({ medianMs: wall[wall.length >> 1], cpuMs: (used.user + used.system) / 1000 / wall.length }),
  );
  process.exit(0);
}

const rounds = Number(roundsArg);
const tokensList = tokensArg.split(',').map(Number);
const run = (dir, tokens, variant) =>
  JSON.parse(
    execFileSync(process.execPath, [process.argv[1], dir, '-', '1', String(tokens), variant], {
      encoding: 'utf8',
    }),
  );
console.log(`node bench/forward-paired.mjs ${a} ${b} ${rounds} ${tokensArg}`);
console.log('| T | variant | A wall / CPU ms (per round) | B wall / CPU ms (per round) |');
console.log('|---:|---|---|---|');
for (const tokens of tokensList) {
  for (const variant of VARIANTS) {
    const times = { a: [], b: [] };
    for (let r = 0; r < rounds; r += 1) {
      const order = r % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
      for (const which of order) times[which].push(run(which === 'a' ? a : b, tokens, variant));
    }
    const f = (list) => list.map((t) => `${t.medianMs.toFixed(2)} / ${t.cpuMs.toFixed(2)}`).join(', ');
    console.log(`| ${tokens} | ${variant} | ${f(times.a)} | ${f(times.b)} |`);
  }
}
