// Two builds of the module side by side, alternated in one sitting: the explorer's forward pass
// through the JS API at GPT-2 width (12 heads of 64), fused, with intermediates (scores and
// attention kept), and with ALiBi positions; then the lecture's sweep point, 4000 heads of 3 on
// width 6 (batch 2, T = 6), fused and with intermediates. Per round: the median wall ms per call and, after a
// slash, the mean CPU ms per call (process.cpuUsage; steadier than wall time when other jobs
// share the cores), after at least 1 s and 3 calls of warm-up, over at least 7 calls and 1.5 s;
// last, the median over the rounds of each build's CPU ms and their ratio.
// Usage: node bench/forward-paired.mjs A_WEB_DIR B_WEB_DIR [ROUNDS] [T,T,...]
//   e.g. after copying a baseline's web/ (with web/build) to build/base/web:
//   node bench/forward-paired.mjs build/base/web web 3 128,512,1024
//   VARIANTS=fused node bench/forward-paired.mjs build/base/web web 6 1024   (only those variants)
//   HEADS=0 leaves out the 4000-heads rows.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [a, b, roundsArg = '3', tokensArg = '128,512,1024', child] = process.argv.slice(2);
const VARIANTS = (process.env.VARIANTS ?? 'fused,intermediates,alibi').split(',');
const HEADS = Number(process.env.HEADS ?? 4000);

if (child) {
  // One build, one shape, one variant, in a process of its own.
  const { loadHeadwise } = await import(pathToFileURL(resolve(a, 'headwise.js')).href);
  const hw = await loadHeadwise();
  const tokens = Number(tokensArg);
  const positions = child === 'alibi' ? 'alibi' : 'none';
  const heads = /^heads-(\d+)/.exec(child);
  const shape = heads
    ? { batch: 2, tokens: 6, dModel: 6, heads: Number(heads[1]), headDim: 3 }
    : { batch: 1, tokens, dModel: 768, heads: 12 };
  const mha = hw.createAttention({ ...shape, seed: 1, positions });
  const x = hw.randomInput(mha.config, 2);
  const options = child.endsWith('intermediates') ? { intermediates: true } : {};
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
console.log('| T | variant | A wall / CPU ms (per round) | B wall / CPU ms (per round) | median CPU ms A, B | B / A |');
console.log('|---:|---|---|---|---|---:|');
const median = (list) => [...list].sort((p, q) => p - q)[list.length >> 1];
const rows = tokensList.flatMap((tokens) => VARIANTS.map((variant) => [tokens, variant]));
if (HEADS > 0) rows.push([6, `heads-${HEADS}`], [6, `heads-${HEADS}-intermediates`]);
for (const [tokens, variant] of rows) {
  const times = { a: [], b: [] };
  for (let r = 0; r < rounds; r += 1) {
    const order = r % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
    for (const which of order) times[which].push(run(which === 'a' ? a : b, tokens, variant));
  }
  const f = (list) => list.map((t) => `${t.medianMs.toFixed(2)} / ${t.cpuMs.toFixed(2)}`).join(', ');
  const [ma, mb] = [median(times.a.map((t) => t.cpuMs)), median(times.b.map((t) => t.cpuMs))];
  console.log(
    `| ${tokens} | ${variant} | ${f(times.a)} | ${f(times.b)} | ${ma.toFixed(2)}, ${mb.toFixed(2)} | ` +
      `${(mb / ma).toFixed(2)} |`,
  );
}
