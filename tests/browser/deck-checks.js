// What the example decks' tests share (reveal-deck, slidev-deck, deck): the deck library is a pinned
// dev dependency kept out of the package, the keys walk the deck, and the steps panel's stages.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadHeadwise } from '../../web/headwise.js';
import { until } from '../js/until.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The core's stages in order (project ... out-project), as its shape trace names them. */
export const STAGES = [...new Set((await loadHeadwise()).shapeTrace().map((entry) => entry.step))].slice(1);

/**
 * Each of `names` is a devDependency pinned exactly, in the lockfile as a dev package, and nothing
 * the npm package ships matches `excluded` (the deck library, the examples).
 */
export async function assertPinnedDevDependencies(names, excluded) {
  const pkg = JSON.parse(await readFile(`${ROOT}package.json`, 'utf8'));
  const lock = JSON.parse(await readFile(`${ROOT}package-lock.json`, 'utf8'));
  for (const name of names) {
    assert.match(pkg.devDependencies[name], /^\d+\.\d+\.\d+$/, `${name} pinned exactly (npm install -D -E)`);
    assert.equal(pkg.dependencies?.[name], undefined, `${name} is not a dependency of the package`);
    const locked = lock.packages[`node_modules/${name}`];
    assert.equal(locked?.version, pkg.devDependencies[name], `${name}: the lockfile installs it on npm ci`);
    assert.equal(locked.dev, true);
  }
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
  });
  const files = JSON.parse(stdout)[0].files.map((f) => f.path);
  assert.ok(files.includes('web/explorer/define.js'), 'the listing is the package');
  assert.deepEqual(
    files.filter((f) => excluded.test(f)),
    [],
  );
}

/**
 * Presses the keys in turn until the deck shows slide `last` (deck.shown(page), a number); each press
 * must move it (a new deck.place, a function read in the page; by default the address's hash).
 * Returns how many presses it took, then waits for the slide (deck.waitFor(page, n)).
 */
export async function pressUntil(page, keys, last, deck) {
  const place = deck.place ?? (() => location.hash);
  let presses = 0;
  while ((await deck.shown(page)) !== last) {
    const before = await page.evaluate(place);
    const key = keys[presses % keys.length];
    await page.keyboard.press(key);
    presses += 1;
    await until(async () => (await page.evaluate(place)) !== before, { every: 20 });
    if ((await page.evaluate(place)) === before)
      assert.fail(`the deck did not move on press ${presses} (${key}) at ${before}`);
    assert.ok(presses < 40, 'the deck reaches the slide');
  }
  await deck.waitFor(page, last);
  return presses;
}

/**
 * The keyboard trap after a click in slide n's panel (focus left in a hidden panel: the deck moved
 * once, then never again): the keys must move the deck on past the next slide (to slide n + 2, or
 * the last) and back again to slide n (from the last slide: back two slides). With `through`, on
 * through every slide to the last and back to the first. Logs the presses.
 */
export async function pressOnAndBack(page, n, last, deck, { through = false } = {}) {
  const ahead = through ? last : Math.min(n + 2, last);
  const home = through ? 1 : ahead - n >= 2 ? n : Math.max(ahead - 2, 1);
  const forward = ahead > n ? await pressUntil(page, ['ArrowRight', ' '], ahead, deck) : 0;
  const back = await pressUntil(page, ['ArrowLeft'], home, deck);
  console.log(`# clicked into slide ${n}: ${forward} presses on to slide ${ahead}, ${back} back to slide ${home}`);
  assert.ok(forward >= ahead - n, `slide ${n}: one press per slide or fragment at least`);
}
