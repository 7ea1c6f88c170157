// Where the induction training step's time goes in wasm (Node, one thread): V8's sampling CPU
// profiler over STEPS steps after a warm-up, self time by function. Needs a module linked with
// function names (the release build has none): a copy of web/ whose build/ holds the module
// linked again with --profiling-funcs (the glue changes with it, so both are replaced):
//   (cd build/wasm && em++ <the flags of CMakeFiles/headwise_module.dir/link.txt> --profiling-funcs
//      @CMakeFiles/headwise_module.dir/objects1 -o /tmp/prof/headwise-core.js ...linkLibs.rsp)
//   cp -r web /tmp/profweb; (glue made an ES module as scripts/build-wasm.sh does) -> /tmp/profweb/build/
//   HEADWISE_WEB=/tmp/profweb node bench/train/step-profile.mjs [layers] [steps]
// Shares are of the samples taken while the step ran; sampling costs a little, so the per-step
// ms read a few % above bench/train/induction-step.mjs.
import { Session } from 'node:inspector/promises';
import { cpus, loadavg } from 'node:os';

const layers = Number(process.argv[2] ?? 2);
const steps = Number(process.argv[3] ?? 200);
const web = process.env.HEADWISE_WEB;
if (!web) throw new Error('HEADWISE_WEB must name a copy of web/ holding a module linked with --profiling-funcs');
const { loadHeadwise } = await import(`${web}/headwise.js`);
const hw = await loadHeadwise();
const trainer = hw.createTrainer({ task: 'induction', layers, heads: 4, dModel: 64, mlpWidth: 0, evalSize: 512 });
for (let i = 0; i < 30; i += 1) trainer.step();

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
await session.post('Profiler.start');
const cpu0 = process.cpuUsage();
for (let i = 0; i < steps; i += 1) trainer.step();
const used = process.cpuUsage(cpu0);
const { profile } = await session.post('Profiler.stop');
session.disconnect();
trainer.dispose();

const self = new Map();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
for (let i = 0; i < profile.samples.length; i += 1) {
  const name = byId.get(profile.samples[i]).callFrame.functionName || '(anonymous)';
  self.set(name, (self.get(name) ?? 0) + profile.timeDeltas[i] / 1000);
}
for (const idle of ['(idle)', '(program)', '(garbage collector)']) self.delete(idle);
const total = [...self.values()].reduce((a, b) => a + b, 0);
const cpuMs = (used.user + used.system) / 1000 / steps;
console.log(
  `${cpus()[0].model}; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${layers} layer(s), ${steps} steps: ${cpuMs.toFixed(1)} ms/step CPU`,
);
console.log('| function (self time) | share | ms / step (of the CPU time) |');
console.log('|---|---:|---:|');
for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 18)) {
  const short = name
    .replace(/^headwise::/, '')
    .replace(/\(anonymous namespace\)::/, '')
    .slice(0, 90);
  console.log(`| ${short} | ${((100 * ms) / total).toFixed(1)}% | ${((ms / total) * cpuMs).toFixed(2)} |`);
}
