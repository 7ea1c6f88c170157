// One suite (trainer-contract.js), every kind of trainer: the Trainer on this thread, a trainer in
// a trainer worker (Node worker_threads) and one where no worker starts (on this thread, through the
// same messages), the data-parallel trainer of a pool of 2 workers and of a pool of size 1.
import { createPool, createWorkerTrainer, loadHeadwise } from '../../web/headwise.js';
import { describeTrainerContract } from './trainer-contract.js';

describeTrainerContract('Trainer (this thread)', async () => {
  const hw = await loadHeadwise();
  return { hw, create: (options) => hw.createTrainer(options), tolerance: 0 };
});

describeTrainerContract('WorkerTrainer (a worker_threads worker)', async () => {
  const hw = await loadHeadwise();
  return { hw, create: (options) => createWorkerTrainer(hw, options, { kinds: ['node'] }), tolerance: 0 };
});

describeTrainerContract('WorkerTrainer where no worker starts (this thread)', async () => {
  const hw = await loadHeadwise();
  return { hw, create: (options) => createWorkerTrainer(hw, options, { kinds: [] }), tolerance: 0 };
});

describeTrainerContract('PooledTrainer (a pool of 2 workers)', async () => {
  const hw = await loadHeadwise();
  const pool = await createPool({ size: 2, module: hw });
  return { hw, create: (options) => pool.createTrainer(options), tolerance: 1e-5, dispose: () => pool.dispose() };
});

describeTrainerContract('PooledTrainer (a pool of size 1: no workers)', async () => {
  const hw = await loadHeadwise();
  const pool = await createPool({ size: 1, module: hw });
  return { hw, create: (options) => pool.createTrainer(options), tolerance: 0, dispose: () => pool.dispose() };
});
