// The minimal page: runs the lecture's configuration through the public API and prints it.
import { loadHeadwise } from './headwise.js';

const $ = (id) => document.getElementById(id);

try {
  const hw = await loadHeadwise();
  const layer = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 1 });
  const x = hw.randomInput(layer.config, 1);
  const fused = layer.forward(x);
  const loop = layer.forwardLoop(x);
  const maxDiff = fused.reduce((m, v, i) => Math.max(m, Math.abs(v - loop[i])), 0);

  $('trace').textContent = layer.shapeTrace()
    .map((e) => `${e.step.padEnd(12)} ${`(${e.shape.join(',')})`.padEnd(12)} ${e.name}`).join('\n');
  $('compare').textContent = `max |loop - fused| = ${maxDiff.toExponential(2)}  (SIMD: ${hw.simdArch})`;
  const rows = [];
  for (let t = 0; t < 6; t += 1) rows.push(Array.from(fused.subarray(t * 6, t * 6 + 6), (v) => v.toFixed(4).padStart(8)).join(' '));
  $('output').textContent = rows.join('\n');
  layer.dispose();
  document.body.dataset.ready = 'true';
} catch (error) {
  $('trace').textContent = `The module could not run: ${error.message}`;
  $('trace').className = 'error';
}
