// Dies at every forward, replacement or not.
import { faultyWorker, isForward } from './faulty.js';

faultyWorker(({ data, exit }) => isForward(data) && (exit(), true));
