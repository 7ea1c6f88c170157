// Never answers a step (trainerStep is swallowed); everything else it serves.
import { faultyWorker } from './faulty.js';

faultyWorker(({ data }) => data?.op === 'trainerStep');
