// No circle: nothing under web/pool/ reaches the API's entry (web/headwise.js) through its static
// imports, so the entry only gathers and the pool's workers load the module without it; and the
// module's own files (web/*.js but the entry) import nothing under web/pool/: the pool stands on
// the module, never the other way (the pool's method keys live beside the module, web/pool-keys.js).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const web = fileURLToPath(new URL('../../web/', import.meta.url));
const entry = join(web, 'headwise.js');

// The files `file` imports (static `import ... from` and `export ... from`, relative paths only).
function importsOf(file) {
  const source = readFileSync(file, 'utf8');
  const found = [...source.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)].map((m) => m[1]);
  return found.filter((path) => path.endsWith('.js')).map((path) => resolve(dirname(file), path));
}

function reaches(start, target) {
  const seen = new Set();
  const stack = [start];
  while (stack.length > 0) {
    const file = stack.pop();
    if (file === target) return true;
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...importsOf(file));
  }
  return false;
}

const poolFiles = readdirSync(join(web, 'pool'))
  .filter((name) => name.endsWith('.js'))
  .map((name) => join(web, 'pool', name));

test('the walk sees the entry where it is imported (the test can fail)', () => {
  expect(reaches(join(web, 'headwise.js'), entry)).toBe(true);
  expect(importsOf(entry)).toContain(join(web, 'pool', 'pool.js'));
});

test.each(poolFiles.map((file) => [file.slice(web.length)]))('web/%s does not import web/headwise.js', (name) => {
  expect(reaches(join(web, name), entry)).toBe(false);
});

const moduleFiles = readdirSync(web)
  .filter((name) => name.endsWith('.js') && name !== 'headwise.js')
  .map((name) => join(web, name));

test.each(moduleFiles.map((file) => [file.slice(web.length)]))('web/%s imports nothing under web/pool/', (name) => {
  const pool = join(web, 'pool/');
  expect(importsOf(join(web, name)).filter((file) => file.startsWith(pool))).toEqual([]);
});
