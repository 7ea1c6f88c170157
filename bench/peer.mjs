// Runs one peer on one case in a process of its own (so its peak memory is its own), checks
// nothing, times the forward, writes its output next to the case data and prints one JSON line.
// Usage: node bench/peer.mjs <peer> <case name> <data dir>
import { readFileSync, writeFileSync } from 'node:fs';
import { CASES } from './cases.mjs';
import { readCaseData } from './data.mjs';
import { timeCalls, timeCallsAsync } from './timing.mjs';

const PEERS = {
  'ours-fused': async (c, d) => (await import('./peers/ours.mjs')).prepare(c, d, 'fused'),
  'ours-loop': async (c, d) => (await import('./peers/ours.mjs')).prepare(c, d, 'loop'),
  'ours-core-call': async (c, d) => (await import('./peers/ours-core.mjs')).prepare(c, d),
  'plain-js': async (c, d) => (await import('./peers/plain.mjs')).prepare(c, d),
  'onnxruntime-web': async (c, d) => ({ ...(await (await import('./peers/ort.mjs')).prepare(c, d)), isAsync: true }),
  'tfjs-wasm': async (c, d) => (await import('./peers/tfjs.mjs')).prepare(c, d),
};

const [peerName, caseName, dir] = process.argv.slice(2);
const c = CASES.find((k) => k.name === caseName);
const data = readCaseData(`${dir}/${caseName}.in`, c);
const peer = await PEERS[peerName](c, data);
const timing = peer.isAsync ? await timeCallsAsync(() => peer.run()) : timeCalls(() => peer.run());
const out = peer.output();
writeFileSync(`${dir}/${caseName}.${peerName}.out`, Buffer.from(out.buffer, out.byteOffset, out.byteLength));
// VmHWM, not getrusage's maxrss: Linux carries the parent's peak into maxrss across fork + exec.
const peakRssBytes = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
console.log(JSON.stringify({ ...timing, peakRssBytes, ...(peer.extra ? peer.extra() : {}) }));
