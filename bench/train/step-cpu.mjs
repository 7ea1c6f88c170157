// CPU time per training step of the task models in wasm (Node, one thread): the verb-and-noun
// model (createTrainer defaults), the story model and the 2-layer induction model, after a
// warm-up. CPU time, not wall: on a shared machine the process is preempted for whole slices.
// HEADWISE_WEB names another copy of web/ (an older build, to pair with).
// Usage: node bench/train/step-cpu.mjs [steps] [name filter]
const web = process.env.HEADWISE_WEB ?? new URL('../../web', import.meta.url).pathname;
const { loadHeadwise } = await import(`${web}/headwise.js`);
const steps = Number(process.argv[2] ?? 100);
const hw = await loadHeadwise();
const MODELS = [
  ['verb-noun (defaults)', {}],
  ['story', { task: 'story', evalSize: 256 }],
  ['induction 2 layers', { task: 'induction', layers: 2, heads: 4, dModel: 64, mlpWidth: 0, evalSize: 512 }],
];
const out = [];
for (const [name, options] of MODELS.filter(([n]) => !process.argv[3] || n.includes(process.argv[3]))) {
  const trainer = hw.createTrainer(options);
  for (let i = 0; i < 20; i += 1) trainer.step();
  const n = Math.max(20, Math.round((steps * 25) / Math.max(1, trainer.stepMultiplyAdds / 1e6)));
  const cpu = process.cpuUsage();
  for (let i = 0; i < Math.min(n, steps * 20); i += 1) trainer.step();
  const used = process.cpuUsage(cpu);
  out.push(`${name} ${((used.user + used.system) / 1000 / Math.min(n, steps * 20)).toFixed(2)}`);
  trainer.dispose();
}
console.log(out.join(' | '));
