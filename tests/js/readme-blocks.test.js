// The README's js code blocks run as written, each on its own: every ```js block is taken from
// README.md, its import specifier 'headwise' pointed at the package's own entry (web/headwise.js),
// and run as an ES module in a fresh Node process, which must exit 0 (a leaked worker or timer
// keeps it alive past the timeout and fails the test). A line the README shows throwing, that is a
// statement followed by a comment `// SomeError: message`, must throw that error with that message:
// it is run inside a check, not skipped, so a README line that stops working fails here.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = pathToFileURL(join(ROOT, 'web/headwise.js')).href;
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const DIR = mkdtempSync(join(tmpdir(), 'headwise-readme-'));
// Generous: each block runs in about 1-2 s on an idle 2-core machine; this only catches a hang.
const TIMEOUT_MS = 50_000;

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

/** The README's ```js blocks, in order. */
function jsBlocks(markdown) {
  return [...markdown.matchAll(/^[ \t]*```js\n([\s\S]*?)^[ \t]*```/gm)].map((match) => match[1]);
}

// Prepended to each block: a check that a statement throws `name` with exactly `message`. Import
// declarations are hoisted, so a function declared before them is fine in a module.
const EXPECT_THROW = `async function __readmeExpectThrow(run, name, message, line) {
  let thrown;
  try { await run(); } catch (error) { thrown = error; }
  if (!thrown) throw new Error('README line did not throw ' + name + ': ' + line);
  if (thrown.name !== name || thrown.message !== message) {
    throw new Error('README line threw ' + thrown.name + ': ' + thrown.message + '\\n  expected ' +
      name + ': ' + message + '\\n  line: ' + line);
  }
}
`;

const ERROR_COMMENT = /^\s*\/\/\s*([A-Z]\w*Error):\s*(.+?)\s*$/;

/** The block as a module: 'headwise' -> the entry's URL, lines shown throwing wrapped in a check. */
function asModule(block) {
  const lines = block.replace(/from 'headwise'/g, `from ${JSON.stringify(ENTRY)}`).split('\n');
  const out = [];
  let checks = 0;
  for (let i = 0; i < lines.length; i += 1) {
    const shown = ERROR_COMMENT.exec(lines[i + 1] ?? '');
    if (shown && lines[i].trim() !== '' && !lines[i].trim().startsWith('//')) {
      const statement = lines[i].trim();
      out.push(
        `await __readmeExpectThrow(async () => { ${statement} }, ${JSON.stringify(shown[1])}, ` +
          `${JSON.stringify(shown[2])}, ${JSON.stringify(statement)});`,
      );
      checks += 1;
    } else {
      out.push(lines[i]);
    }
  }
  return { source: EXPECT_THROW + out.join('\n'), checks };
}

/** Runs `source` as an .mjs file in a fresh Node: { code, stdout, stderr }. */
function runModule(name, source) {
  const file = join(DIR, `${name}.mjs`);
  writeFileSync(file, source);
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { cwd: ROOT, timeout: TIMEOUT_MS, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code ?? error.signal) : 0, stdout, stderr }),
    );
  });
}

const BLOCKS = jsBlocks(README);

test('the README has its three js blocks: attention, training, pool', () => {
  expect(BLOCKS).toHaveLength(3);
  expect(BLOCKS[0]).toContain('hw.createAttention(');
  expect(BLOCKS[1]).toContain('hw.createTrainer(');
  expect(BLOCKS[2]).toContain('createPool(');
  // Each on its own: every block imports the package itself (nothing carried over from another).
  for (const block of BLOCKS) expect(block).toMatch(/^import \{[^}]+\} from 'headwise';/m);
});

test('a line shown throwing that does not throw fails the run (the check can fail)', async () => {
  const { source, checks } = asModule(
    "import { loadHeadwise } from 'headwise';\nconst hw = await loadHeadwise();\n" +
      'hw.createAttention({ dModel: 768, heads: 12 }).dispose();\n// HeadwiseError: no such refusal\n',
  );
  expect(checks).toBe(1);
  const run = await runModule('check-can-fail', source);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain('README line did not throw HeadwiseError');
});

BLOCKS.forEach((block, index) => {
  const name = ['attention', 'training', 'pool'][index] ?? `block ${index + 1}`;
  test(`README's ${name} block runs as written`, async () => {
    const { source, checks } = asModule(block);
    // The attention block shows one refusal; the check must have found it, not skipped it.
    if (name === 'attention') expect(checks).toBe(1);
    const run = await runModule(`block-${index + 1}`, source);
    expect(run.stderr, `block ${index + 1} (${name}):\n${block}`).toBe('');
    expect(run.code).toBe(0);
  }, 120_000);
});
