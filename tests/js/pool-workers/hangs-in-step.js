// Never answers its second data-parallel step (the message is swallowed); its replacement works.
import { faultyWorker } from './faulty.js';

let steps = 0;
faultyWorker(({ data, generation }) => data?.op === 'trainerGradients' && generation === 0 && ++steps === 2);
