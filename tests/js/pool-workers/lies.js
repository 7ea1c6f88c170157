// Answers every forward with one value too many.
import { faultyWorker, isForward } from './faulty.js';

faultyWorker(({ data, port }) => {
  if (!isForward(data)) return false;
  port.post({ id: data.id, ok: true, result: new Float32Array(data.x.length + 1) });
  return true;
});
