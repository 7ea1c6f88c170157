// The npm package as users get it: pack, install the tarball into an empty project, import it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { packAndInstall, TARBALL_LIMIT_BYTES } from './install-tarball.js';
import { OPTION_NAMES } from '../../web/explorer/options.js';

let installed;
let work;
let tarball;

beforeAll(() => {
  installed = packAndInstall();
  ({ work, tarball } = installed);
}, 120_000);

afterAll(() => installed?.remove());

test('the tarball holds the API, its types and the built module, and nothing else', () => {
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
  expect(listing).toContain('package/web/headwise.js');
  expect(listing).toContain('package/web/headwise.d.ts');
  expect(listing).toContain('package/web/build/headwise-core.wasm');
  expect(listing).toContain('package/web/explorer/explorer-element.js');
  expect(listing).toContain('package/web/explorer/explorer-element.d.ts');
  expect(listing).toContain('package/web/explorer/define.js');
  expect(listing).toContain('package/web/explorer/panels/heads/heads-panel.js');
  expect(listing).toContain('package/LICENSE');
  expect(listing.filter((f) => f.includes('/tests/') || f.includes('/wasm/core/') || f.includes('/examples/'))).toEqual(
    [],
  );
  // The classic-script bundle's entry (and its wasm unpacker) need the build's virtual wasm module: not for npm users.
  expect(listing).not.toContain('package/web/explorer/standalone.js');
  expect(listing).not.toContain('package/web/explorer/packed-wasm.js');
  expect(listing.filter((f) => f.includes('/build/explorer/'))).toEqual([]);
  expect(statSync(tarball).size).toBeLessThanOrEqual(TARBALL_LIMIT_BYTES);
});

test('an installed copy computes the lecture example in Node', () => {
  const script = `
    import { loadHeadwise } from 'headwise';
    const hw = await loadHeadwise();
    const mha = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 1 });
    const x = hw.randomInput(mha.config, 1);
    const y = mha.forward(x), yl = mha.forwardLoop(x);
    const diff = Math.max(...y.map((v, i) => Math.abs(v - yl[i])));
    console.log(JSON.stringify({ length: y.length, diff, trace: mha.shapeTrace().map((e) => e.shape.join(',')) }));
  `;
  const out = JSON.parse(
    execFileSync('node', ['--input-type=module', '-e', script], { cwd: join(work, 'app'), encoding: 'utf8' }),
  );
  expect(out.length).toBe(72);
  expect(out.diff).toBeLessThan(1e-5);
  expect(out.trace).toEqual([
    '2,6,6',
    '2,6,6',
    '2,6,2,3',
    '2,2,6,3',
    '2,2,6,6',
    '2,2,6,6',
    '2,2,6,3',
    '2,6,2,3',
    '2,6,6',
    '2,6,6',
  ]);
});

test('no runtime dependencies; define.js is the only module with side effects', () => {
  const pkg = JSON.parse(readFileSync(join(work, 'app/node_modules/headwise/package.json'), 'utf8'));
  expect(pkg.dependencies ?? {}).toEqual({});
  expect(pkg.sideEffects).toEqual(['./web/explorer/define.js']);
});

test("the element imports nothing outside its folder but the compute API's own modules, all in the tarball", () => {
  const explorer = join(work, 'app/node_modules/headwise/web/explorer');
  const files = readdirSync(explorer, { recursive: true }).filter((f) => f.endsWith('.js'));
  expect(files.length).toBeGreaterThan(20);
  const outside = [];
  for (const file of files) {
    const source = readFileSync(join(explorer, file), 'utf8');
    for (const [, spec] of source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      const target = new URL(spec, `file://${join(explorer, file)}`).pathname;
      if (!target.startsWith(`${explorer}/`)) outside.push(target);
    }
  }
  // The API entry (web/headwise.js) or a module of it beside it (head-roles.js, train-task.js), never
  // the pool's internals or a build file; each one shipped.
  const web = join(work, 'app/node_modules/headwise/web');
  expect(outside.filter((target) => dirname(target) !== web || !existsSync(target))).toEqual([]);
  expect(outside.map((target) => basename(target))).toContain('headwise.js');
  expect(outside.length).toBeGreaterThan(0);
});

test('in Node, importing the element class defines no tag and needs no DOM', () => {
  const script = `
    const { HeadwiseExplorer } = await import('headwise/explorer');
    const defined = await import('headwise/explorer/define');
    console.log(JSON.stringify({
      isClass: typeof HeadwiseExplorer === 'function',
      same: defined.HeadwiseExplorer === HeadwiseExplorer,
      attributes: HeadwiseExplorer.observedAttributes,
      registry: typeof customElements,
    }));
  `;
  const out = JSON.parse(
    execFileSync('node', ['--input-type=module', '-e', script], { cwd: join(work, 'app'), encoding: 'utf8' }),
  );
  expect(out).toEqual({
    isClass: true,
    same: true,
    registry: 'undefined',
    // The installed element observes every option of the source's schema (pinned by explorer-options.test.js).
    attributes: [...OPTION_NAMES, 'from-url'],
  });
});

test('the shipped JS builds no code from strings (runs under --disallow-code-generation-from-strings)', () => {
  const script = `
    const { loadHeadwise } = await import('headwise');
    await import('headwise/explorer');
    const hw = await loadHeadwise();
    const mha = hw.createAttention({ tokens: 4, dModel: 8, heads: 2 });
    console.log(mha.forward(hw.randomInput(mha.config, 2)).length);
  `;
  const out = execFileSync('node', ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], {
    cwd: join(work, 'app'),
    encoding: 'utf8',
  });
  expect(out.trim()).toBe('32');
  const installed = join(work, 'app/node_modules/headwise/web');
  for (const file of ['build/headwise-core.js', 'headwise.js', 'core-loader.js', 'explorer/explorer-element.js']) {
    expect(readFileSync(join(installed, file), 'utf8')).not.toMatch(/\bnew Function\b|\beval\s*\(/);
  }
});

test('the raw .wasm is exported for bundlers', () => {
  const resolved = execFileSync(
    'node',
    ['--input-type=module', '-e', "console.log(import.meta.resolve('headwise/headwise-core.wasm'))"],
    { cwd: join(work, 'app'), encoding: 'utf8' },
  ).trim();
  expect(resolved).toMatch(/node_modules\/headwise\/web\/build\/headwise-core\.wasm$/);
});

test('the LICENSE is MIT, as package.json says', () => {
  const pkg = JSON.parse(readFileSync(join(work, 'app/node_modules/headwise/package.json'), 'utf8'));
  expect(pkg.license).toBe('MIT');
  const license = readFileSync(join(work, 'app/node_modules/headwise/LICENSE'), 'utf8');
  expect(license).toMatch(/^MIT License\n\nCopyright \(c\) headwise contributors\n/);
});

test('no shipped module imports a Node module: browser bundles never see one', () => {
  const web = join(work, 'app/node_modules/headwise/web');
  const files = readdirSync(web, { recursive: true }).filter((f) => f.endsWith('.js'));
  const nodeImports = [];
  for (const file of files) {
    const source = readFileSync(join(web, file), 'utf8');
    for (const [statement] of source.matchAll(
      /(?:from|import)\s*\(?\s*['"](?:node:)?(?:fs|path|url|module|os)\b[^'"]*['"]/g,
    ))
      nodeImports.push(`${file}: ${statement}`);
  }
  expect(files).toContain('core-loader.js');
  expect(nodeImports).toEqual([]);
});
