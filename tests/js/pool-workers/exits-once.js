// Dies at its first forward; its replacement works.
import { faultyWorker, isForward } from './faulty.js';

faultyWorker(({ data, generation, exit }) => isForward(data) && generation === 0 && (exit(), true));
