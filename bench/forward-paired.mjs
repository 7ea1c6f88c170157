// Two builds of the module side by side, alternated in one sitting: the explorer's forward pass
// through the JS API at GPT-2 width (12 heads of 64), fused, with intermediates (scores and
// attention kept), and with ALiBi positions. Median ms per call (bench/timing.mjs), per round.
// Usage: node bench/forward-paired.mjs A_WEB_DIR B_WEB_DIR [ROUNDS] [T,T,...]
//   e.g. after copying a baseline's web/ (with web/build) to build/base/web:
//   node bench/forward-paired.mjs build/base/web web 3 128,512,1024
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [a, b, roundsArg = '3', tokensArg = '128,512,1024', child] = process.argv.slice(2);
const VARIANTS = ['fused', 'intermediates', 'alibi'];

if (child) {
  // One build, one shape, one variant, in a process of its own.
  const { loadHeadwise } = await import(pathToFileURL(resolve(a, 'headwise.js')).href);
  const { timeCalls } = await import('./timing.mjs');
  const hw = await loadHeadwise();
  const tokens = Number(tokensArg);
  const positions = child === 'alibi' ? 'alibi' : 'none';
  const mha = hw.createAttention({ batch: 1, tokens, dModel: 768, heads: 12, seed: 1, positions });
  const x = hw.randomInput(mha.config, 2);
  const options = child === 'intermediates' ? { intermediates: true } : {};
  const t = timeCalls(() => mha.forward(x, options));
  console.log(JSON.stringify(t));
  process.exit(0);
}

const rounds = Number(roundsArg);
const tokensList = tokensArg.split(',').map(Number);
const run = (dir, tokens, variant) =>
  JSON.parse(
    execFileSync(process.execPath, [process.argv[1], dir, '-', '1', String(tokens), variant], {
      encoding: 'utf8',
    }),
  ).medianMs;
console.log(`node bench/forward-paired.mjs ${a} ${b} ${rounds} ${tokensArg}`);
console.log('| T | variant | A median ms (per round) | B median ms (per round) |');
console.log('|---:|---|---|---|');
for (const tokens of tokensList) {
  for (const variant of VARIANTS) {
    const times = { a: [], b: [] };
    for (let r = 0; r < rounds; r += 1) {
      const order = r % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
      for (const which of order) times[which].push(run(which === 'a' ? a : b, tokens, variant));
    }
    const f = (list) => list.map((ms) => ms.toFixed(2)).join(', ');
    console.log(`| ${tokens} | ${variant} | ${f(times.a)} | ${f(times.b)} |`);
  }
}
