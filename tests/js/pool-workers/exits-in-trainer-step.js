// Dies at the first step it is asked for (trainerStep), as a worker killed mid-run would.
import { faultyWorker } from './faulty.js';

faultyWorker(({ data, exit }) => data?.op === 'trainerStep' && (exit(), true));
