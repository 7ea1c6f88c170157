// The npm package as users get it: pack, install the tarball into an empty project, import it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let work;
let tarball;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'headwise-pack-'));
  const [info] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' }));
  tarball = join(work, info.filename);
  console.log(`npm pack: ${info.filename}, ${(statSync(tarball).size / 1024).toFixed(1)} KB packed, `
    + `${(info.unpackedSize / 1024).toFixed(1)} KB unpacked, ${info.entryCount} files`);
  const app = join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: app, stdio: 'pipe' });
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

test('the tarball holds the API, its types and the built module, and nothing else', () => {
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
  expect(listing).toContain('package/web/headwise.js');
  expect(listing).toContain('package/web/headwise.d.ts');
  expect(listing).toContain('package/web/build/headwise-core.wasm');
  expect(listing.filter((f) => f.includes('/tests/') || f.includes('/wasm/core/'))).toEqual([]);
  expect(statSync(tarball).size).toBeLessThanOrEqual(300 * 1024);
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
  const out = JSON.parse(execFileSync('node', ['--input-type=module', '-e', script], { cwd: join(work, 'app'), encoding: 'utf8' }));
  expect(out.length).toBe(72);
  expect(out.diff).toBeLessThan(1e-5);
  expect(out.trace).toEqual(['2,6,6', '2,6,6', '2,6,2,3', '2,2,6,3', '2,2,6,6', '2,2,6,6', '2,2,6,3', '2,6,2,3', '2,6,6', '2,6,6']);
});

test('the raw .wasm is exported for bundlers', () => {
  const resolved = execFileSync('node', ['--input-type=module', '-e',
    "console.log(import.meta.resolve('headwise/headwise-core.wasm'))"], { cwd: join(work, 'app'), encoding: 'utf8' }).trim();
  expect(resolved).toMatch(/node_modules\/headwise\/web\/build\/headwise-core\.wasm$/);
});
