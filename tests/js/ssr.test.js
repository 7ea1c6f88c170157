// Server-side rendering: Next.js and Astro import a page's modules in Node, without a DOM, at build
// time. Importing the element's entries by the package's name (resolved through package.json's
// exports, as an app's build resolves them) must not throw, must define nothing and must leave no
// timer or handle that keeps Node running.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const SCRIPT = `
  const before = new Set(Object.getOwnPropertyNames(globalThis));
  const element = await import('headwise/explorer');
  const define = await import('headwise/explorer/define');
  const api = await import('headwise');
  const added = Object.getOwnPropertyNames(globalThis).filter((name) => !before.has(name));
  let constructed;
  try {
    new element.HeadwiseExplorer();
    constructed = 'constructed';
  } catch (error) {
    constructed = error.constructor.name;
  }
  console.log(JSON.stringify({
    dom: [typeof window, typeof document, typeof HTMLElement, typeof customElements],
    same: define.HeadwiseExplorer === element.HeadwiseExplorer,
    attributes: element.HeadwiseExplorer.observedAttributes.length,
    api: typeof api.loadHeadwise,
    added,
    constructed,
  }));
`;

test('importing headwise/explorer and headwise/explorer/define in Node without a DOM', () => {
  // A timer or open handle left behind would keep this process alive past the timeout.
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 20_000,
  });
  const result = JSON.parse(out);
  expect(result.dom).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
  expect(result.same).toBe(true);
  expect(result.attributes).toBeGreaterThan(5);
  expect(result.api).toBe('function');
  expect(result.added).toEqual([]);
  // Without a DOM the class is there to import, not to instantiate: rendering stays in the browser.
  expect(result.constructed).not.toBe('constructed');
});
