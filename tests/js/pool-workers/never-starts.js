// Loads but never answers anything (not even init).
import { faultyWorker } from './faulty.js';

faultyWorker(() => true);
