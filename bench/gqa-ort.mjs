// Grouped-query attention, ours against onnxruntime-web's GroupQueryAttention contrib operator
// (com.microsoft, its wasm CPU kernel, one thread), paired: one layer at GPT-2 width (dModel 768,
// batch 1, causal), the same weights and input on both sides, the two taking turns sample by
// sample; CPU ms per forward pass (process.cpuUsage, steadier than wall time on a shared machine),
// medians, their ratio, and the largest |difference| between the two outputs.
// Cases: 12 heads of 64 with 12 (multi-head), 4 and 1 (multi-query) K/V heads; 16 heads of 48 with
// 8 (8 does not divide 12). Ours: createAttention({ kvHeads }).forward; ORT: the layer as an ONNX
// graph of MatMul -> GroupQueryAttention -> MatMul (peers/onnx-gqa-model.mjs).
// Usage: (cd bench && npm ci) once, then node bench/gqa-ort.mjs [SAMPLES] [T,T,...]
import { cpus, loadavg } from 'node:os';
import * as ort from 'onnxruntime-web';
import { loadHeadwise } from '../web/headwise.js';
import { groupQueryModel } from './peers/onnx-gqa-model.mjs';

const [samplesArg = '7', tokensArg = '128,512,1024'] = process.argv.slice(2);
const samples = Number(samplesArg);
const tokensList = tokensArg.split(',').map(Number);
ort.env.wasm.numThreads = 1;
ort.env.wasm.proxy = false;
const hw = await loadHeadwise();
const loadBefore = loadavg();
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];

// CPU ms of `calls` runs (sync or async), per call.
async function cpuPerCall(run, calls) {
  const used = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) await run();
  const d = process.cpuUsage(used);
  return (d.user + d.system) / 1000 / calls;
}

const cases = [
  ['MHA 12 of 12', { heads: 12, kvHeads: 12 }],
  ['GQA 12 on 4', { heads: 12, kvHeads: 4 }],
  ['MQA 12 on 1', { heads: 12, kvHeads: 1 }],
  ['GQA 16 on 8', { heads: 16, kvHeads: 8 }],
];
const rows = [];
for (const T of tokensList) {
  for (const [name, { heads, kvHeads }] of cases) {
    const options = { batch: 1, tokens: T, dModel: 768, heads, kvHeads, causal: true, seed: 1 };
    const layer = hw.createAttention(options);
    const weights = layer.getWeights();
    const x = hw.randomInput(layer.config, 2);
    const c = { ...options, headDim: 768 / heads };
    const session = await ort.InferenceSession.create(groupQueryModel(c, weights), {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });
    const feeds = { x: new ort.Tensor('float32', x, [1, T, 768]) };
    let theirs;
    let ours;
    const sides = {
      ours: () => {
        ours = layer.forward(x);
      },
      ort: async () => {
        theirs = (await session.run(feeds)).y.data;
      },
    };
    const calls = T >= 1024 ? 2 : T >= 512 ? 4 : 10;
    for (const run of Object.values(sides)) await cpuPerCall(run, calls); // warm-up
    const times = { ours: [], ort: [] };
    for (let s = 0; s < samples; s += 1) {
      const order = s % 2 ? ['ort', 'ours'] : ['ours', 'ort'];
      for (const side of order) times[side].push(await cpuPerCall(sides[side], calls));
    }
    let diff = 0;
    for (let i = 0; i < ours.length; i += 1) diff = Math.max(diff, Math.abs(ours[i] - theirs[i]));
    rows.push({ T, name, ours: median(times.ours), ort: median(times.ort), diff });
    console.error(`T ${T} ${name}: ours ${median(times.ours).toFixed(2)} ms, ORT ${median(times.ort).toFixed(2)} ms`);
    await session.release();
    layer.dispose();
  }
}

const [cpu] = cpus();
console.log(
  `machine: ${cpu?.model ?? 'unknown CPU'}, ${cpus().length} cores; load average (1, 5, 15 min) before ` +
    `${loadBefore.map((v) => v.toFixed(2)).join(', ')}, after ${loadavg()
      .map((v) => v.toFixed(2))
      .join(', ')}; onnxruntime-web ${ort.env.versions?.web ?? ''}, wasm, 1 thread; ${samples} paired samples, ` +
    `medians of CPU ms per forward pass`,
);
console.log('\n| T | layer | ours ms | ORT GroupQueryAttention ms | ORT / ours | max \\|difference\\| |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of rows)
  console.log(
    `| ${r.T} | ${r.name} | ${r.ours.toFixed(2)} | ${r.ort.toFixed(2)} | ${(r.ort / r.ours).toFixed(2)} | ` +
      `${r.diff.toExponential(1)} |`,
  );
