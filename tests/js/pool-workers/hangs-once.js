// Never answers its first forward (the message is swallowed); its replacement works.
import { faultyWorker, isForward } from './faulty.js';

faultyWorker(({ data, generation }) => isForward(data) && generation === 0);
