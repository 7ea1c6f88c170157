// Training step time with the pool, paired (bench/pool-paired.mjs): per model, our trainer on the
// calling thread (Trainer.step) against the data-parallel trainer over the pool's workers
// (pool.createTrainer, web/pool/data-parallel.js), taking turns sample by sample. Both sides train
// their own copy of the same model from the same seed, so they do the same work per step.
// Part of bench/pool.mjs (Node); alone: `node bench/pool-train.mjs` (POOL_SIZE=2 to pin the size).
import { loadavg } from 'node:os';
import { paired } from './pool-paired.mjs';

/** The two models of the issue: the Learn panel's verb-and-noun model and the 2-layer induction model. */
export const TRAIN_CASES = [
  { name: 'verb-noun, 2 heads (createTrainer defaults)', options: { heads: 2, seed: 2 } },
  {
    name: "induction, 2 layers (the checkpoint's model)",
    options: { task: 'induction', layers: 2, heads: 4, dModel: 64, mlpWidth: 0, evalSize: 64, batch: 32, seed: 0 },
  },
];

export async function benchTraining(hw, pool) {
  const rows = [];
  for (const c of TRAIN_CASES) {
    const single = hw.createTrainer(c.options);
    const pooled = pool.createTrainer(c.options);
    const [one, split] = await paired(
      [
        { name: 'one instance (Trainer.step, calling thread)', run: async () => single.step(1) },
        { name: `data-parallel over ${pooled.instances} workers`, run: () => pooled.step(1) },
      ],
      { minRounds: 40, maxRounds: 120, minMs: 15000, maxMs: 60000 },
    );
    rows.push({ case: c.name, one, split, instances: pooled.instances });
    single.dispose();
    pooled.dispose();
  }
  return rows;
}

export function trainingTable(rows) {
  const lines = [
    '| model | one instance ms/step (min-max) | data-parallel ms/step (min-max) | workers | ' +
      'one / data-parallel (paired) |',
    '|---|---|---|---|---|',
  ];
  const ms = (s) => `${s.medianMs.toFixed(1)} (${s.minMs.toFixed(1)}-${s.maxMs.toFixed(1)})`;
  for (const r of rows) {
    lines.push(
      `| ${r.case} | ${ms(r.one)} | ${ms(r.split)} | ${r.instances} | ${(1 / r.split.pairedRatio).toFixed(2)} |`,
    );
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { createPool, loadHeadwise } = await import('../web/headwise.js');
  const hw = await loadHeadwise();
  const size = process.env.POOL_SIZE ? Number(process.env.POOL_SIZE) : undefined;
  const pool = await createPool(size ? { size } : undefined);
  if (pool.fallbackReason) throw new Error(`the pool fell back: ${pool.fallbackReason}`);
  console.log(
    `load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const line of trainingTable(await benchTraining(hw, pool))) console.log(line);
  console.log(
    `load average at end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  pool.dispose();
}
