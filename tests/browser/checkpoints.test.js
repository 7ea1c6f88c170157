// A shipped checkpoint through the public API in Chromium: fetched from the served web/ folder
// (web/checkpoints/), it names the same heads and evaluates to the loss the native make run wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { chromiumAndWeb } from './web-session.js';

const web = chromiumAndWeb();

test('in Chromium loadCheckpoint fetches a checkpoint and its heads have their measured roles', async () => {
  const file = JSON.parse(
    await readFile(new URL('../../web/checkpoints/induction-2-layers.json', import.meta.url), 'utf8'),
  );
  const page = await web.browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  try {
    await page.goto(`${web.server.url}headwise.js`);
    const result = await page.evaluate(async () => {
      const { loadHeadwise } = await import('/headwise.js');
      const hw = await loadHeadwise();
      const t = await hw.loadCheckpoint('induction-2-layers');
      const roles = t.roleScores().map((heads) => heads.map((h) => h.role));
      return { loss: t.evaluate().loss, roles, points: t.checkpoint.curve.length };
    });
    assert.deepEqual(problems, []);
    assert.ok(Math.abs(result.loss - file.evaluation.loss) <= 1e-6 * file.evaluation.loss, `${result.loss}`);
    assert.deepEqual(
      result.roles,
      file.roles.map((heads) => heads.map((h) => h.role)),
    );
    assert.ok(result.roles[1].includes('induction'));
    assert.equal(result.points, file.curve.length);
  } finally {
    await page.close();
  }
});
