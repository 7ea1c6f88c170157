// scripts/setup.sh started twice at once (`npm start` and `npm test` on a fresh machine) must not
// collide on Debian's package lock: the second waits for the first and finds the work done. Run
// on a copy of the script with stand-ins for dpkg-query and apt-get first on PATH, which behave
// like Debian's: a second apt-get while one runs fails with "Could not get lock" (exit 100).
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';

const setupScript = fileURLToPath(new URL('../../scripts/setup.sh', import.meta.url));

// dpkg-query: a package is installed once apt-get has "installed" it ($STATE/installed).
const DPKG_QUERY = `#!/usr/bin/env bash
[[ -f $STATE/installed ]] && printf 'install ok installed' && exit 0
exit 1
`;
// apt-get: logs its arguments; holds a lock (mkdir) for a second; a second one meanwhile fails as
// Debian's does. $STATE/lists-busy makes the next "update" find the lists' lock held once.
const APT_GET = `#!/usr/bin/env bash
echo "$(date +%s.%N) $*" >> "$STATE/log"
if [[ " $* " == *" update "* && -f $STATE/lists-busy ]]; then
  rm "$STATE/lists-busy"
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)" >&2
  exit 100
fi
if ! mkdir "$STATE/lock" 2>/dev/null; then
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 1 (apt-get)" >&2
  exit 100
fi
sleep 1
[[ " $* " == *" install "* ]] && touch "$STATE/installed"
rmdir "$STATE/lock"
`;

let root;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A checkout holding only setup.sh, its npm packages up to date, and the stand-ins on PATH. */
function sandbox() {
  root = mkdtempSync(join(tmpdir(), 'headwise-setup-'));
  const checkout = join(root, 'checkout');
  const bin = join(root, 'bin');
  const state = join(root, 'state');
  for (const dir of [join(checkout, 'scripts'), join(checkout, 'node_modules'), bin, state]) {
    mkdirSync(dir, { recursive: true });
  }
  copyFileSync(setupScript, join(checkout, 'scripts/setup.sh'));
  writeFileSync(join(checkout, 'package-lock.json'), '{}');
  writeFileSync(join(checkout, 'node_modules/.package-lock.json'), '{}');
  utimesSync(join(checkout, 'package-lock.json'), new Date(0), new Date(0));
  for (const [name, text] of [
    ['dpkg-query', DPKG_QUERY],
    ['apt-get', APT_GET],
    ['sudo', '#!/usr/bin/env bash\nexec "$@"\n'],
  ]) {
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  }
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    STATE: state,
    HEADWISE_SETUP_LOCK: join(root, 'setup.lock'),
  };
  const run = () =>
    new Promise((resolve) => {
      const child = spawn('bash', [join(checkout, 'scripts/setup.sh')], { env });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('close', (code) => resolve({ code, output }));
    });
  const log = () => readFileSync(join(state, 'log'), 'utf8').trim().split('\n');
  return { run, log, state };
}

test('two setups started at once take turns: one installs, the other waits and finds it done', async () => {
  const { run, log } = sandbox();
  const [a, b] = await Promise.all([run(), run()]);
  expect(a.code, a.output).toBe(0);
  expect(b.code, b.output).toBe(0);
  const installs = log().filter((line) => / install /.test(line));
  expect(installs, log().join('\n')).toHaveLength(1);
  // Whoever came second said why it waited; apt-get was asked to wait for dpkg's lock too.
  expect(a.output + b.output).toMatch(/another setup is installing \(it holds .*setup\.lock\): waiting/);
  expect(installs[0]).toMatch(/-o DPkg::Lock::Timeout=1800 install -y -qq cmake g\+\+ make clang-format/);
});

test("setup waits for the package lists' lock held by another apt-get (apt-get update does not)", async () => {
  const { run, log, state } = sandbox();
  writeFileSync(join(state, 'lists-busy'), '');
  const { code, output } = await run();
  expect(code, output).toBe(0);
  expect(output).toMatch(/waiting for the package lists' lock: E: Could not get lock \/var\/lib\/apt\/lists\/lock/);
  expect(log().filter((line) => / update /.test(line))).toHaveLength(2);
  expect(log().filter((line) => / install /.test(line))).toHaveLength(1);
}, 20_000);

test('nothing missing: setup returns at once without taking the lock or calling apt-get', async () => {
  const { run, state } = sandbox();
  writeFileSync(join(state, 'installed'), '');
  const { code, output } = await run();
  expect(code, output).toBe(0);
  expect(() => readFileSync(join(state, 'log'))).toThrow(/ENOENT/);
});
