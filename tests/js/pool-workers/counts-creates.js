// An honest pool worker that says on a BroadcastChannel every trainerCreate it runs, so a test can
// count the trainers really created in workers without trusting the code that asks for them.
import { faultyWorker } from './faulty.js';

const channel = new BroadcastChannel('headwise-trainer-creates');
channel.unref();
faultyWorker(({ data }) => {
  if (data?.op === 'trainerCreate') channel.postMessage(data.trainer);
  return false;
});
