// Dies at every data-parallel step (trainerGradients), replacement or not.
import { faultyWorker } from './faulty.js';

faultyWorker(({ data, exit }) => data?.op === 'trainerGradients' && (exit(), true));
