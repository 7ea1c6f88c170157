// Answers trainerStep with a loss of NaN (no step diverged); everything else is honest.
import { faultyWorker } from './faulty.js';

faultyWorker(({ data, port }) => {
  if (data?.op !== 'trainerStep') return false;
  const result = { step: data.steps, loss: NaN, accuracy: 0.5, groups: {}, divergedSteps: 0 };
  port.post({ id: data.id, ok: true, result });
  return true;
});
