// The native build and the wasm module compute the same outputs within the reference tolerance.
// The native side is printed by build/native/tests/native/dump_outputs, which `npm test` builds
// before Vitest runs.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import './matchers.js';

const dumper = fileURLToPath(new URL('../../build/native/tests/native/dump_outputs', import.meta.url));

test('native and wasm agree on fused and loop outputs', async () => {
  expect(existsSync(dumper), `${dumper} is missing: run npm test, which builds it first`).toBe(true);
  const cases = JSON.parse(execFileSync(dumper, { encoding: 'utf8' }));
  expect(cases.length).toBeGreaterThanOrEqual(5);
  const hw = await loadHeadwise();
  for (const { name, config, outputs } of cases) {
    const layer = hw.createAttention(config);
    const x = hw.randomInput(layer.config, config.seed);
    expect(layer.forward(x), `${name} fused`).toBeCloseToReference(outputs.fused);
    expect(layer.forwardLoop(x), `${name} loop`).toBeCloseToReference(outputs.loop);
    layer.dispose();
  }
});
