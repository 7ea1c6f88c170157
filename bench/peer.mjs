// Runs one peer on one case in a process of its own (so its peak memory is its own), checks
// nothing, times the forward, writes its output next to the case data and prints one JSON line.
// Usage: node bench/peer.mjs <peer> <case name> <data dir>
import { writeFileSync } from 'node:fs';
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
console.log(JSON.stringify({ ...timing, peakRssBytes: process.resourceUsage().maxRSS * 1024,
  ...(peer.extra ? peer.extra() : {}) }));
