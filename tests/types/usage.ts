// Compiled (never run) by tests/package/types.test.js: the declarations must accept real use
// and reject misuse (the @ts-expect-error lines fail the compile if they stop being errors).
import {
  HeadwiseError,
  createPool,
  createWorkerTrainer,
  loadHeadwise,
  weightsFromPyTorch,
  type Intermediates,
  type TraceEntry,
} from 'headwise';

const hw = await loadHeadwise();
const mha = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 1 });
const x: Float32Array = hw.randomInput(mha.config, 1);
const y: Float32Array = mha.forward(x);
const all: Intermediates = mha.forward(x, { intermediates: true });
const loop: Float32Array = mha.forwardLoop([0.1, 0.2]);
const { q, k, v } = mha.split(mha.project(x));
const { context } = mha.attend({ q, k, v });
const out: Float32Array = mha.outProject(mha.merge(context));
const trace: TraceEntry[] = hw.shapeTrace({ dModel: 12288, heads: 96 });
const headDim: number = mha.config.headDim;
const reason: string | null = hw.check({ dModel: 768, heads: 10 });
const stats: number = hw.memoryStats().heapInUseBytes;
const stack: number = hw.memoryStats().stackPointer;
const stopped: string | null = hw.stoppedReason;
mha.setWeights(weightsFromPyTorch({ inProjWeight: new Float32Array(108), outProjWeight: new Float32Array(36) }, 6));
mha.setWeights({ wq: new Float32Array(36) });
const err = new HeadwiseError('x');
const mla = hw.createAttention({ tokens: 6, dModel: 8, heads: 2, attention: 'mla', kvLatent: 3, ropeDim: 2 });
mla.forward(hw.randomInput(mla.config, 1));
const { dx, gradients } = mla.backward(new Float32Array(48));
const dWdkv: Float32Array = gradients.wDkv;
// @ts-expect-error: the layer's weights are wDkv, wUk, wUv, wq, wQr, wKr, wOut
mla.backward(dx).gradients.wk;

// @ts-expect-error: variant must be 'fused' or 'loop'
mha.forward(x, { variant: 'parallel' });
// @ts-expect-error: unknown forward option
mha.forward(x, { intermediate: true });
// @ts-expect-error: heads is a number
hw.createAttention({ heads: '2' });
// @ts-expect-error: unknown option
hw.createAttention({ width: 6 });
// @ts-expect-error: the scores exist only with intermediates
mha.forward(x).scores;

const trainer = hw.createTrainer({ heads: 2, variant: 'verb', seed: 1 });
const trained: number = trainer.step(10).loss;
const shares: number = trainer.headShares()[0].verb;
const row: Float32Array = trainer.attentionFrom('dog chase the ball a it see cat and the kick').heads[1];
const saved: string = JSON.stringify(trainer.getWeights());
trainer.setWeights(JSON.parse(saved));
const live: number = hw.liveTrainers();
// @ts-expect-error: unknown variant
hw.createTrainer({ variant: 'noun' });
// @ts-expect-error: unknown option
hw.createTrainer({ lr: 1 });
const copier = await hw.loadCheckpoint('induction-2-layers');
const role: string = copier.roleScores()[1][0].role;
const repeat: number = copier.checkpoint!.curve[0].heldOut.groups.repeat.loss;
hw.createTrainer({ task: 'induction', layers: 2, mlpWidth: 0 });
// @ts-expect-error: no such checkpoint
hw.loadCheckpoint('gpt-2');

// Training data-parallel across a pool, and the pieces it is made of.
const pool = await createPool({ size: 2 });
const split = pool.createTrainer({ task: 'induction', layers: 2, mlpWidth: 0 }, { workers: 2 });
const stepped: number = (await split.step(10)).loss;
const point: number = (await split.measure()).heldOut.groups.repeat.loss;
const slice = split.trainer.sliceGradients(0, 4);
const applied: boolean = split.trainer.applyGradients(slice.gradient, slice.lossSum / slice.counted).diverged;
split.trainer.batchState = slice.batchState;
// @ts-expect-error: workers is a number
pool.createTrainer({}, { workers: 'all' });
split.dispose();
pool.dispose();

// A trainer off the calling thread: the contract's members, answered with promises.
const worker = await createWorkerTrainer(hw, { task: 'story' }, { timeoutMs: 30_000 });
const ablated: number = (await worker.evaluate({ zeroHeads: [{ layer: 0, head: 1 }] })).accuracy;
const maps: Float32Array[] = (await worker.attention('the dog chased the ball')).layers[0].heads;
const ids: number[] = worker.sequenceIds(['the', 'dog']);
const shared: number = worker.sharing;
// @ts-expect-error: step(n) takes a number
await worker.step('10');
// @ts-expect-error: a worker trainer's weights come in a promise
worker.getWeights().tokenEmbedding;
worker.dispose();

export {
  stepped,
  point,
  applied,
  y,
  all,
  loop,
  out,
  trace,
  headDim,
  reason,
  stats,
  stack,
  stopped,
  err,
  trained,
  shares,
  row,
  live,
  role,
  repeat,
  dWdkv,
  ablated,
  maps,
  ids,
  shared,
};
