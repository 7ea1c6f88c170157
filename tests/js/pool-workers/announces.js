// An honest pool worker that says it started (its thread id) on a BroadcastChannel, so a test can
// count the workers started without trusting the code that starts them.
import { threadId } from 'node:worker_threads';
import { faultyWorker } from './faulty.js';

const channel = new BroadcastChannel('headwise-workers-started');
channel.unref();
channel.postMessage(threadId);
faultyWorker(() => false);
