// Answers trainerAttention with maps of the wrong size (one value short); everything else is honest.
import { faultyWorker } from './faulty.js';

faultyWorker(({ data, port }) => {
  if (data?.op !== 'trainerAttention') return false;
  port.post({ id: data.id, ok: true, result: [[new Float32Array(data.ids.length ** 2 - 1)]] });
  return true;
});
