// Generation with and without the KV cache, and grouped-query against multi-head attention, at
// GPT-2 width (dModel 768, 12 heads of 64), one layer, batch 1, through the JS API, in one
// process, the two sides alternated round by round; CPU ms (process.cpuUsage), steadier than wall
// time when other jobs share the cores.
//  - with the cache: T calls of layer.decode(token), one per position, timed whole.
//  - without: each new token re-runs the causal forward pass over its whole prefix (what a
//    decoder without a cache does); sum over t = 1..T of forward(t). Running it outright at T 1024
//    takes minutes, so forward(t) is timed at 16 prefix lengths t = T/16, 2T/16, ..., T (a layer
//    each) and the sum taken by the trapezoid rule from forward(0) = 0: an estimate, stated.
//  - forward at T with kvHeads 12 (MHA), 4 (GQA), 1 (MQA); and 16 heads of 48 with 16 vs 8 K/V
//    heads (8 does not divide 12).
// Usage: node bench/decode.mjs [ROUNDS] [T,T,...]   (bash scripts/build-wasm.sh first)
import { cpus, loadavg } from 'node:os';
import { loadHeadwise } from '../web/headwise.js';

const [roundsArg = '3', tokensArg = '128,512,1024'] = process.argv.slice(2);
const rounds = Number(roundsArg);
const tokensList = tokensArg.split(',').map(Number);
const hw = await loadHeadwise();
const loadBefore = loadavg();

function cpuMs(run) {
  const used = process.cpuUsage();
  run();
  const d = process.cpuUsage(used);
  return (d.user + d.system) / 1000;
}
// Mean CPU ms per call after >= 3 calls and 0.5 s of warm-up, over >= 3 calls and 0.5 s.
function perCall(run) {
  for (let n = 0, start = performance.now(); n < 3 || performance.now() - start < 500; n += 1) run();
  let calls = 0;
  const ms = cpuMs(() => {
    for (const start = performance.now(); calls < 3 || performance.now() - start < 500; calls += 1) run();
  });
  return ms / calls;
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

const gpt2 = { batch: 1, dModel: 768, heads: 12, causal: true, seed: 1 };

function withCache(T) {
  const layer = hw.createAttention({ ...gpt2, tokens: T });
  const x = hw.randomInput(layer.config, 2);
  const tokens = Array.from({ length: T }, (_, t) => x.subarray(t * 768, (t + 1) * 768));
  const generate = () => {
    layer.resetCache();
    for (const token of tokens) layer.decode(token);
  };
  generate(); // warm-up: the first run tiers the code up
  generate();
  const ms = cpuMs(generate);
  layer.dispose();
  return ms;
}

function withoutCache(T) {
  const points = 16;
  let sum = 0,
    previous = { t: 0, ms: 0 };
  for (let i = 1; i <= points; i += 1) {
    const t = Math.round((i * T) / points);
    const layer = hw.createAttention({ ...gpt2, tokens: t });
    const x = hw.randomInput(layer.config, 2);
    const ms = perCall(() => layer.forward(x));
    layer.dispose();
    // Steps previous.t+1 .. t, each a forward over its prefix: the trapezoid over (previous.t, t].
    sum += ((previous.ms + ms) / 2) * (t - previous.t);
    previous = { t, ms };
  }
  return sum;
}

function forwardMs(config) {
  const layer = hw.createAttention(config);
  const x = hw.randomInput(layer.config, 2);
  const ms = perCall(() => layer.forward(x));
  layer.dispose();
  return ms;
}

const results = {};
const add = (key, value) => (results[key] ??= []).push(value);
for (let round = 0; round < rounds; round += 1) {
  for (const T of tokensList) {
    // Alternate which side goes first.
    const sides = [() => add(`cache ${T}`, withCache(T)), () => add(`nocache ${T}`, withoutCache(T))];
    if (round % 2) sides.reverse();
    for (const side of sides) side();
    const forwards = [
      ['mha12', { ...gpt2, tokens: T }],
      ['gqa4', { ...gpt2, tokens: T, kvHeads: 4 }],
      ['mqa1', { ...gpt2, tokens: T, kvHeads: 1 }],
      ['mha16', { ...gpt2, heads: 16, tokens: T }],
      ['gqa8of16', { ...gpt2, heads: 16, tokens: T, kvHeads: 8 }],
    ];
    if (round % 2) forwards.reverse();
    for (const [name, config] of forwards) add(`${name} ${T}`, forwardMs(config));
  }
  console.error(`round ${round + 1} of ${rounds} done`);
}

const [cpu] = cpus();
console.log(
  `machine: ${cpu?.model ?? 'unknown CPU'}, ${cpus().length} cores; load average (1, 5, 15 min) before ` +
    `${loadBefore.map((v) => v.toFixed(2)).join(', ')}, after ${loadavg()
      .map((v) => v.toFixed(2))
      .join(', ')}; ${rounds} rounds, medians of CPU ms`,
);
console.log('\n| T | with cache: ms, tokens/s | without (estimate): ms, tokens/s | speed-up |');
console.log('| --- | --- | --- | --- |');
for (const T of tokensList) {
  const c = median(results[`cache ${T}`]),
    n = median(results[`nocache ${T}`]);
  console.log(
    `| ${T} | ${c.toFixed(0)}, ${((T / c) * 1000).toFixed(0)} | ${n.toFixed(0)}, ${((T / n) * 1000).toFixed(1)} | ` +
      `${(n / c).toFixed(1)}x |`,
  );
}
console.log('\n| T | MHA 12 | GQA 4 of 12 | MQA 1 of 12 | MHA 16 of 48 | GQA 8 of 16 |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const T of tokensList) {
  const cell = (name) => median(results[`${name} ${T}`]).toFixed(2);
  console.log(`| ${T} | ${['mha12', 'gqa4', 'mqa1', 'mha16', 'gqa8of16'].map(cell).join(' | ')} |`);
}
