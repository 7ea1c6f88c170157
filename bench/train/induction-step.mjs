// Step time of the induction models in wasm (Node, one thread): the median wall time and the mean
// CPU time per step over ROUNDS steps after 20 warm-up steps (the load on this shared machine
// makes wall time up to several times the CPU time). Usage: node bench/train/induction-step.mjs [ROUNDS]
import { loadHeadwise } from '../../web/headwise.js';

const rounds = Number(process.argv[2] ?? 200);
const hw = await loadHeadwise();
for (const layers of [1, 2]) {
  const trainer = hw.createTrainer({ task: 'induction', layers, heads: 4, dModel: 64, mlpWidth: 0, evalSize: 512 });
  for (let i = 0; i < 20; i += 1) trainer.step();
  const wall = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < rounds; i += 1) {
    const start = performance.now();
    trainer.step();
    wall.push(performance.now() - start);
  }
  const used = process.cpuUsage(cpu);
  wall.sort((a, b) => a - b);
  const cpuMs = (used.user + used.system) / 1000 / rounds;
  const median = wall[wall.length >> 1];
  console.log(`wasm ${layers} layer(s): median ${median.toFixed(1)} ms/step wall, ${cpuMs.toFixed(1)} ms/step CPU`);
  trainer.dispose();
}
