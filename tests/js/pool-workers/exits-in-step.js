// Dies at its third data-parallel step (trainerGradients); its replacement works.
import { faultyWorker } from './faulty.js';

let steps = 0;
faultyWorker(
  ({ data, generation, exit }) =>
    data?.op === 'trainerGradients' && generation === 0 && ++steps === 3 && (exit(), true),
);
