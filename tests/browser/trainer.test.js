// The trainer through the public API in Chromium: the module imported from the served web/
// folder, 30 steps of the default model, the same per-step losses as in Node (the same wasm on
// the same seed: equal within 1e-6 relative), then the JSON weights loaded back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { readFile } from 'node:fs/promises';
import { loadHeadwise } from '../../web/headwise.js';

const web = chromiumAndWeb();

test('in Chromium a trainer steps, evaluates and reloads its weights, matching Node', async () => {
  const hw = await loadHeadwise({
    wasmBinary: await readFile(new URL('../../web/build/headwise-core.wasm', import.meta.url)),
  });
  const node = hw.createTrainer({ seed: 4, evalSize: 256 });
  const nodeLosses = Array.from({ length: 30 }, () => node.step().loss);
  node.dispose();

  const page = await web.browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  try {
    await page.goto(`${web.server.url}headwise.js`);
    const result = await page.evaluate(async () => {
      const { loadHeadwise } = await import('/headwise.js');
      const hwPage = await loadHeadwise();
      const t = hwPage.createTrainer({ seed: 4, evalSize: 256 });
      const losses = Array.from({ length: 30 }, () => t.step().loss);
      const evaluation = t.evaluate();
      const saved = JSON.stringify(t.getWeights());
      const copy = hwPage.createTrainer({ seed: 4, evalSize: 256 });
      copy.setWeights(JSON.parse(saved));
      const reloaded = copy.evaluate();
      const heads = t.attentionFrom('dog chase the ball a it see cat and the kick').heads.length;
      let refused = '';
      try {
        hwPage.createTrainer({ heads: 3 });
      } catch (error) {
        refused = `${error.name}: ${error.message}`;
      }
      return { losses, evaluation, reloaded, heads, refused };
    });
    assert.deepEqual(problems, []);
    for (let i = 0; i < 30; i += 1) {
      assert.ok(
        Math.abs(result.losses[i] - nodeLosses[i]) <= 1e-6 * nodeLosses[i],
        `step ${i + 1}: ${result.losses[i]} vs ${nodeLosses[i]}`,
      );
    }
    assert.ok(result.losses[29] < result.losses[0], 'the loss falls');
    assert.equal(result.reloaded.loss, result.evaluation.loss);
    assert.equal(result.heads, 2);
    assert.equal(
      result.refused,
      'HeadwiseError: width 32 is not divisible by 3 heads (heads x head_dim must equal width)',
    );
  } finally {
    await page.close();
  }
});
