// What bench/pool.mjs (Node) and bench/pool-page.mjs (Chromium) time, on the same code: per case,
// our pool's split forward, our single instance (the synchronous forward of the JS API) and
// onnxruntime-web, paired (bench/pool-paired.mjs); and the crossover sweep, pool against single
// on shapes from tiny to GPT-2 T = 128.
import { CASES, flopsOf } from './cases.mjs';
import { paired, maxAbsDiff } from './pool-paired.mjs';
import { prepareOrt } from './pool-ort.mjs';

const gpt2 = (tokens) => ({ name: `gpt2-T${tokens}`, batch: 1, tokens, dModel: 768, heads: 12, headDim: 64 });
const named = (name) => CASES.find((c) => c.name === name);

/** The GPT-2 shapes of the issue, T = 256 (the suspected slow point) and the 4000-heads sweep point. */
export const POOL_CASES = [
  named('gpt2-T128'),
  { ...gpt2(256), causal: true },
  named('gpt2-T512'),
  named('gpt2-T1024'),
  named('heads-4000'),
];

/** Pool against single, from a few hundred FLOPs up to GPT-2 T = 128. */
export const CROSSOVER_CASES = [
  named('toy'),
  ...[2, 16, 128, 1000].map((h) => named(`heads-${h}`)),
  ...[1, 4, 16, 32, 64, 128].map((t) => ({ ...gpt2(t), causal: true })),
];

const layerConfig = ({ batch, tokens, dModel, heads, headDim, causal }) => ({
  batch,
  tokens,
  dModel,
  heads,
  headDim,
  causal,
});

function caseData(hw, c) {
  const layer = hw.createAttention({ ...layerConfig(c), seed: 1 });
  const data = { x: hw.randomInput(layerConfig(c), 2), ...layer.getWeights() };
  layer.dispose();
  return data;
}

function oursSides(hw, pool, c, data) {
  const single = hw.createAttention(layerConfig(c));
  single.setWeights({ wq: data.wq, wk: data.wk, wv: data.wv, wOut: data.wOut });
  const pooled = pool.createAttention(layerConfig(c));
  pooled.setWeights({ wq: data.wq, wk: data.wk, wv: data.wv, wOut: data.wOut });
  const out = {};
  return {
    pool: {
      name: `headwise pool (${pool.size} workers)`,
      run: async () => (out.pool = await pooled.forward(data.x, { parallel: 'always' })),
    },
    single: { name: 'headwise single instance', run: async () => (out.single = single.forward(data.x)) },
    out,
    dispose: () => {
      single.dispose();
      pooled.dispose();
    },
  };
}

/**
 * One case, paired: pool, single, ORT (when `ort` is given). Returns the rows (pairedRatio: time /
 * the pool's time, per round) and each side's max |diff| against the single instance.
 */
export async function benchCase({ hw, pool, ort, ortThreads, ortLabel }, c) {
  const data = caseData(hw, c);
  const ours = oursSides(hw, pool, c, data);
  const sides = [ours.pool, ours.single];
  let ortSide = null;
  if (ort) {
    ortSide = await prepareOrt(ort, c, data, ortThreads);
    sides.push({ name: ortLabel, run: ortSide.run });
  }
  const rows = await paired(sides);
  const diffs = [maxAbsDiff(ours.out.pool, ours.out.single), 0];
  if (ortSide) diffs.push(maxAbsDiff(ortSide.output(), ours.out.single));
  ours.dispose();
  ortSide?.dispose();
  return { c, flops: flopsOf(c), rows: rows.map((r, i) => ({ ...r, maxDiff: diffs[i] })) };
}

/** Pool against single on each crossover shape (shorter sampling: these are fast). */
export async function crossover({ hw, pool }, cases = CROSSOVER_CASES) {
  const results = [];
  for (const c of cases) {
    const ours = oursSides(hw, pool, c, caseData(hw, c));
    const [p, s] = await paired([ours.pool, ours.single], { minRounds: 7, minMs: 1500, maxMs: 8000 });
    results.push({ c, flops: flopsOf(c), poolMs: p.medianMs, singleMs: s.medianMs, speedup: s.pairedRatio });
    ours.dispose();
  }
  return results;
}

const fmtMs = (ms) =>
  ms < 1 ? `${(ms * 1000).toFixed(0)} us` : ms < 100 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(0)} ms`;
const shapeOf = (c) => `B=${c.batch} T=${c.tokens} D=${c.dModel} H=${c.heads} hd=${c.headDim}`;

/** Markdown lines of the case tables. */
export function caseTables(results) {
  const lines = [];
  for (const { c, flops, rows } of results) {
    lines.push('', `### ${c.name}: ${shapeOf(c)} (${(flops / 1e9).toFixed(3)} GFLOP)`);
    lines.push(
      '| side | median (min-max) | samples x calls | GFLOP/s | time / pool (paired) | max abs diff vs single |',
    );
    lines.push('|---|---|---|---|---|---|');
    for (const r of rows) {
      lines.push(
        `| ${r.name} | ${fmtMs(r.medianMs)} (${fmtMs(r.minMs)}-${fmtMs(r.maxMs)}) | ${r.samples} x ${r.calls} | ` +
          `${(flops / (r.medianMs * 1e6)).toFixed(1)} | ${r.pairedRatio.toFixed(2)} | ${r.maxDiff.toExponential(1)} |`,
      );
    }
  }
  return lines;
}

/** Markdown lines of the crossover table. */
export function crossoverTable(results) {
  const lines = ['| shape | MFLOP | pool | single | single / pool (paired) |', '|---|---|---|---|---|'];
  for (const r of results) {
    lines.push(
      `| ${r.c.name}: ${shapeOf(r.c)} | ${(r.flops / 1e6).toFixed(3)} | ${fmtMs(r.poolMs)} | ${fmtMs(r.singleMs)} | ` +
        `${r.speedup.toFixed(2)} |`,
    );
  }
  return lines;
}
