// headwise: multi-head causal self-attention in WebAssembly, named as the lecture names it.
// This file is the public API's entry; the page and npm users both use it and nothing below it.
// It only gathers: the module and its layers (loaded-module.js), the trainer, the pool.
export {
  createAttention,
  createTrainer,
  Headwise,
  loadCheckpoint,
  loadHeadwise,
  MultiHeadAttention,
  weightsFromPyTorch,
} from './loaded-module.js';
export { HeadwiseError } from './errors.js';
export { LatentAttention } from './latent.js';
export { CHECKPOINT_NAMES } from './checkpoint.js';
export { Trainer, TRAIN_VOCABULARY, TRAINABLE_RANGE } from './trainer.js';
export { NOUN_BASE, VERB_BASE, FILLER_BASE } from './train-task.js';
export { headRoles, ROLE_SHARE, MIXED_SHARE } from './head-roles.js';
export { createPool } from './pool/pool.js';
export { sharedPool } from './pool/shared.js';
export { createWorkerTrainer, WorkerTrainer, workerKinds } from './pool/worker-trainer.js';
export { WorkerTimer } from './pool/worker-timer.js';
export { workerSlotLimit, workerSlotStats } from './pool/worker-slots.js';
