// The deploy recipe of vercel.json, as a Git-connected Vercel project runs it: a fresh clone of this
// commit, its installCommand's packages (here the checkout's node_modules, linked: no network), then
// its buildCommand exactly as written, with no Emscripten or CMake on the PATH (Vercel's build image is
// not Debian: each of emcc, em++, emcmake and cmake there fails loudly). The output directory it names
// must then hold the site: the explorer, embed.html and both decks. And the prebuilt module the recipe
// deploys (deploy/prebuilt/) must be the one built from these sources (web/build/, by build-wasm.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NOT_HERE = ['emcc', 'em++', 'emcmake', 'cmake'];

const sha = async (file) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

test('deploy/prebuilt holds the module built from these sources (refresh: scripts/update-prebuilt.sh)', async () => {
  for (const name of ['headwise-core.js', 'headwise-core.wasm']) {
    assert.equal(
      await sha(`${ROOT}deploy/prebuilt/${name}`),
      await sha(`${ROOT}web/build/${name}`),
      `deploy/prebuilt/${name} differs from web/build/${name}: run scripts/update-prebuilt.sh and commit it`,
    );
  }
});

test("vercel.json's build, from a fresh clone with Node alone, makes the site", { timeout: 600_000 }, async () => {
  const vercel = JSON.parse(await readFile(`${ROOT}vercel.json`, 'utf8'));
  assert.equal(vercel.installCommand, 'npm ci');
  const dir = await mkdtemp(join(tmpdir(), 'headwise-vercel-'));
  try {
    const { stdout: head } = await run('git', ['-C', ROOT, 'rev-parse', 'HEAD']);
    await run('git', ['clone', '--quiet', '--no-checkout', ROOT, `${dir}/repo`]);
    await run('git', ['-C', `${dir}/repo`, 'checkout', '--quiet', head.trim()]);
    await symlink(`${ROOT}node_modules`, `${dir}/repo/node_modules`); // what npm ci installs, no network
    // No Emscripten, no CMake: a call to any of them fails the build.
    await run('mkdir', [`${dir}/bin`]);
    for (const tool of NOT_HERE) {
      await writeFile(`${dir}/bin/${tool}`, `#!/bin/sh\necho "${tool}: not on this build image" >&2\nexit 127\n`);
      await chmod(`${dir}/bin/${tool}`, 0o755);
    }
    const started = performance.now();
    const { stdout, stderr } = await run('bash', ['-c', vercel.buildCommand], {
      cwd: `${dir}/repo`,
      env: { ...process.env, PATH: `${dir}/bin:${process.env.PATH}` },
      maxBuffer: 16 * 1024 * 1024,
    });
    console.log(`# ${vercel.buildCommand}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
    console.log(
      stdout
        .trim()
        .split('\n')
        .slice(-2)
        .map((line) => `# ${line}`)
        .join('\n'),
    );
    // Minutes of build say what they are doing, step by step, and no tool's alarming notice (Vite's
    // "(!) outDir ... will not be emptied") comes out of a build that went right.
    for (const step of [/pool worker/, /^explorer bundle:/m, /reveal\.js deck/, /Slidev deck/, /^site: build\/site/m])
      assert.match(stdout, step);
    assert.doesNotMatch(`${stdout}\n${stderr}`, /^\s*\(!\)/m);
    const out = `${dir}/repo/${vercel.outputDirectory}/`;
    for (const page of [
      'index.html',
      'web/index.html',
      'web/embed.html',
      'web/build/explorer/explorer.js',
      'web/build/explorer/pool-worker.js',
      'examples/reveal/index.html',
      'examples/slidev/index.html',
    ])
      assert.ok(existsSync(`${out}${page}`), `${vercel.outputDirectory}/${page} is built`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
