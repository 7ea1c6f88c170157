// The element's types (web/explorer/explorer-element.d.ts) against the registry and the options
// schema they describe: a panel or an option added to one and not the other fails here.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { OPTION_SCHEMA, PANEL_IDS, THEMES } from '../../web/explorer/options.js';
import { PANELS } from '../../web/explorer/panels/index.js';
import { PRESETS } from '../../web/explorer/lecture/presets.js';
import { STEPS } from '../../web/explorer/panels/steps/steps-panel.js';

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
  expect(TYPES).toMatch(/import type \{ ExplorerPanel\b[^}]*\} from '\.\.\/build\/headwise-schema\.js';/);
});

// ExplorerConfig and ExplorerState are mapped from ExplorerOptions (tests/types compiles their use).
test('ExplorerOptions names every option of the schema', () => {
  expect(new Set(fields('ExplorerOptions'))).toEqual(new Set(OPTION_SCHEMA.map((row) => row.property)));
});

test("each panel's commands are methods of the element's type", () => {
  for (const method of PANELS.flatMap((entry) => Object.keys(entry.commands ?? {})))
    expect(TYPES).toMatch(new RegExp(`\\n  ${method}\\(`));
});

// The literal unions the element's types spell (string or number literals, aliases followed).
const source = ts.createSourceFile('explorer-element.d.ts', TYPES, ts.ScriptTarget.Latest, true);
const aliases = new Map(source.statements.filter(ts.isTypeAliasDeclaration).map((a) => [a.name.text, a.type]));
function literals(type) {
  if (ts.isUnionTypeNode(type)) return type.types.flatMap(literals);
  if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return [type.literal.text];
  if (ts.isLiteralTypeNode(type) && ts.isNumericLiteral(type.literal)) return [Number(type.literal.text)];
  if (ts.isTypeReferenceNode(type) && aliases.has(type.typeName.getText()))
    return literals(aliases.get(type.typeName.getText()));
  return [];
}
const optionTypes = new Map(
  source.statements
    .find((node) => ts.isInterfaceDeclaration(node) && node.name.text === 'ExplorerOptions')
    .members.map((m) => [m.name.text, literals(m.type)]),
);
const sorted = (values) => [...values].sort();

test("every choice the element's types spell is the schema's (choices, presets, themes, steps)", () => {
  const withChoices = OPTION_SCHEMA.filter((row) => row.choices);
  expect(withChoices.length).toBeGreaterThan(5);
  for (const row of withChoices)
    expect(sorted(optionTypes.get(row.property)), row.property).toEqual(sorted(row.choices));
  expect(sorted(optionTypes.get('preset'))).toEqual(sorted([...Object.keys(PRESETS), 'custom']));
  expect(sorted(optionTypes.get('theme'))).toEqual(sorted(THEMES));
  // The steps are the core's generated TraceStep less 'input' (schema-tables holds STEPS to them).
  expect(TYPES).toMatch(/type ExplorerStep = Exclude<TraceStep, 'input'>;/);
  expect(STEPS).not.toContain('input');
});
