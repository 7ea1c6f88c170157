// The element's types (web/explorer/explorer-element.d.ts) against the registry and the options
// schema they describe: a panel or an option added to one and not the other fails here.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { OPTION_SCHEMA, PANEL_IDS } from '../../web/explorer/options.js';
import { PANELS } from '../../web/explorer/panels/index.js';

const TYPES = readFileSync(new URL('../../web/explorer/explorer-element.d.ts', import.meta.url), 'utf8');
const fields = (name) => {
  const body = TYPES.match(new RegExp(`interface ${name} \\{([\\s\\S]*?)\\n\\}`))[1];
  return [...body.matchAll(/^ {2}'?([\w-]+)'?\??:/gm)].map((m) => m[1]);
};

// ExplorerPanel is generated from the registry (scripts/schema-types.mjs; types-schema.test.js
// checks the file is current): the element's types take it from there, with no hand copy.
test('ExplorerPanel is the registry of panels, generated', () => {
  const generated = readFileSync(new URL('../../web/build/headwise-schema.d.ts', import.meta.url), 'utf8');
  const ids = [...generated.match(/type ExplorerPanel = ([^;]+);/)[1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
  expect(ids).toEqual(PANEL_IDS);
  expect(TYPES).not.toMatch(/type ExplorerPanel =/);
  expect(TYPES).toMatch(/import type \{ ExplorerPanel \} from '\.\.\/build\/headwise-schema\.js';/);
});

// ExplorerConfig and ExplorerState are mapped from ExplorerOptions (tests/types compiles their use).
test('ExplorerOptions names every option of the schema', () => {
  expect(new Set(fields('ExplorerOptions'))).toEqual(new Set(OPTION_SCHEMA.map((row) => row.property)));
});

test("each panel's commands are methods of the element's type", () => {
  for (const method of PANELS.flatMap((entry) => Object.keys(entry.commands ?? {})))
    expect(TYPES).toMatch(new RegExp(`\\n  ${method}\\(`));
});
