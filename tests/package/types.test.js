// The TypeScript declarations, checked by the compiler against a usage file that imports the
// package by name (resolved through package.json's exports map, as npm users get it).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('headwise.d.ts accepts real use and rejects misuse under --strict', () => {
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  let output = '';
  try {
    execFileSync('node', [tsc, '-p', 'tests/types/tsconfig.json'], { cwd: root, encoding: 'utf8' });
  } catch (error) {
    output = `${error.stdout}${error.stderr}`;
  }
  expect(output).toBe('');
}, 60_000);
