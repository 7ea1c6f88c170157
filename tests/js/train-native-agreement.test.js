// The wasm trainer and the native one agree for 20 steps at 1, 2 and 4 heads (width 32) and at two
// tail sizes (3 heads of 3 at width 9, MLP 7, batch 5; 1 head at width 5, MLP 3, batch 1, "verb"):
// per-step batch losses within 1e-6 relative, every parameter within 1e-6 absolute, the held-out evaluation
// within 1e-6. (Measured: about 1e-9 and 5e-9, the printing precision of the native side.)
// The native side is printed by build/native/tests/native/dump_training, which `npm test`
// builds before Vitest runs.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';

const dumper = fileURLToPath(new URL('../../build/native/tests/native/dump_training', import.meta.url));

test('native and wasm trainers agree for 20 steps', async () => {
  expect(existsSync(dumper), `${dumper} is missing: run npm test, which builds it first`).toBe(true);
  const cases = JSON.parse(execFileSync(dumper, { encoding: 'utf8', maxBuffer: 1 << 26 }));
  expect(cases.map((c) => c.options.heads)).toEqual([1, 2, 4, 3, 1]);
  const hw = await loadHeadwise();
  for (const { options, losses, evaluation, parameters } of cases) {
    const trainer = hw.createTrainer(options);
    for (let i = 0; i < losses.length; i += 1) {
      const { loss } = trainer.step();
      expect(Math.abs(loss - losses[i]), `${JSON.stringify(options)} step ${i + 1}`).toBeLessThanOrEqual(
        1e-6 * losses[i],
      );
    }
    const weights = trainer.getWeights();
    const flat = trainer.parameters.flatMap(({ name }) => weights[name]);
    expect(flat.length).toBe(parameters.length);
    let worst = 0;
    for (let i = 0; i < flat.length; i += 1) worst = Math.max(worst, Math.abs(flat[i] - parameters[i]));
    expect(worst, `heads ${options.heads}: max |parameter difference|`).toBeLessThanOrEqual(1e-6);
    const e = trainer.evaluate();
    expect(Math.abs(e.loss - evaluation.loss)).toBeLessThanOrEqual(1e-6);
    expect(Math.abs(e.accuracy - evaluation.accuracy)).toBeLessThanOrEqual(1e-6);
    trainer.dispose();
  }
});
