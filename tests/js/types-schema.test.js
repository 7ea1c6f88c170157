// The types against the core's tables. web/build/headwise-schema.d.ts is generated at build time
// (scripts/schema-types.mjs) from the loaded module: every option name of createAttention and of
// the trainer, every choice of a choice option (position kinds, tasks, activations), the head
// roles and the shape trace's steps. Here: the file on disk is what the module says now, it
// declares each of those facts, and web/headwise.d.ts takes them from it, with no hand copy.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { schemaTypes } from '../../scripts/schema-types.mjs';
import { PANELS } from '../../web/explorer/panels/index.js';

const read = (path) => readFileSync(new URL(path, import.meta.url), 'utf8');
const parse = (name, text) => {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const declarations = new Map();
  for (const node of file.statements) {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) declarations.set(node.name.text, node);
  }
  return { file, declarations };
};
const generated = parse('headwise-schema.d.ts', read('../../web/build/headwise-schema.d.ts'));
const api = parse('headwise.d.ts', read('../../web/headwise.d.ts'));

// The string literals a type node stands for (unions and references to the generated aliases followed).
function literalsOf(type) {
  if (ts.isUnionTypeNode(type)) return type.types.flatMap(literalsOf);
  if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return [type.literal.text];
  if (ts.isParenthesizedTypeNode(type)) return literalsOf(type.type);
  const alias = ts.isTypeReferenceNode(type) && generated.declarations.get(type.typeName.getText());
  return alias?.type ? literalsOf(alias.type) : [];
}
const alias = (name) => literalsOf(generated.declarations.get(name).type);
const membersOf = (name) => new Map(generated.declarations.get(name).members.map((m) => [m.name.text, m]));
const sorted = (values) => [...new Set(values)].sort();

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

test('the generated file is what the loaded module says (rebuild with scripts/build-wasm.sh)', () => {
  expect(read('../../web/build/headwise-schema.d.ts')).toBe(schemaTypes(hw));
});

test('a new kind changes the generated file (the comparison above can fail)', () => {
  const bound = (name) => hw[name].bind(hw);
  const names = ['attentionOptions', 'trainerOptions', 'tasks', 'headRoleNames', 'shapeTrace'];
  const more = Object.fromEntries(names.map((name) => [name, bound(name)]));
  more.shapeTrace = (o) => hw.shapeTrace({ ...o, positions: o.positions === 'xpos' ? 'alibi' : o.positions });
  more.positionKinds = () => [...hw.positionKinds(), { name: 'xpos', label: 'xPos', entersAt: 'scores', about: '' }];
  const text = schemaTypes(more);
  expect(text).not.toBe(schemaTypes(hw));
  expect(literalsOf(parse('x.d.ts', text).declarations.get('PositionKind').type)).toContain('xpos');
});

test('a new panel changes the generated file', () => {
  const panels = [...PANELS, { id: 'gqa' }];
  const text = schemaTypes(hw, panels);
  expect(text).not.toBe(schemaTypes(hw));
  expect(literalsOf(parse('x.d.ts', text).declarations.get('ExplorerPanel').type)).toEqual(panels.map((p) => p.id));
});

test.each([
  ['AttentionOptionFields', () => hw.attentionOptions()],
  ['TrainerOptionFields', () => hw.trainerOptions()],
])('%s declares every option of the core table, its choices, and no other', (name, rows) => {
  const members = membersOf(name);
  expect([...members.keys()]).toEqual(rows().map((row) => row.name));
  for (const row of rows().filter((r) => r.type === 'choice')) {
    expect(sorted(literalsOf(members.get(row.name).type)), `${name}.${row.name}`).toEqual(sorted(row.choices));
  }
});

test("PositionKind, PositionEntry, TrainTask, HeadRole and TraceStep are the core's", () => {
  expect(sorted(alias('PositionKind'))).toEqual(sorted(hw.positionKinds().map((k) => k.name)));
  expect(sorted(alias('PositionEntry'))).toEqual(sorted(hw.positionKinds().map((k) => k.entersAt)));
  expect(sorted(alias('TrainTask'))).toEqual(sorted(hw.tasks().map((t) => t.name)));
  expect(sorted(alias('HeadRole'))).toEqual(sorted(hw.headRoleNames()));
  const steps = hw.positionKinds().flatMap(({ name }) => hw.shapeTrace({ positions: name }).map((e) => e.step));
  expect(sorted(alias('TraceStep'))).toEqual(sorted(steps));
});

test('headwise.d.ts takes the unions and option fields from the generated file and spells none itself', () => {
  const imports = api.file.statements.find(
    (s) => ts.isImportDeclaration(s) && s.moduleSpecifier.text === './build/headwise-schema.js',
  );
  const imported = imports.importClause.namedBindings.elements.map((e) => e.name.text);
  // ExplorerPanel is the explorer's (explorer-element.d.ts takes it; explorer-types.test.js).
  for (const name of generated.declarations.keys()) if (name !== 'ExplorerPanel') expect(imported).toContain(name);
  for (const name of ['PositionKind', 'PositionEntry', 'TrainTask', 'HeadRole', 'TraceStep'])
    expect(api.declarations.has(name), `${name} declared by hand`).toBe(false);
  const heritage = (name) => api.declarations.get(name).heritageClauses?.[0].types[0].getText() ?? '';
  expect(heritage('AttentionConfig')).toBe('AttentionOptionFields');
  expect(heritage('TrainerOptions')).toBe('TrainerOptionFields');
  expect(heritage('ResolvedConfig')).toContain('AttentionOptionFields');
  // Members of its own: only what no table row is (variant, the resolved concatWidth).
  const own = (name) => api.declarations.get(name).members.map((m) => m.name.text);
  expect(own('AttentionConfig')).toEqual([]);
  expect(own('TrainerOptions')).toEqual(['variant']);
  expect(own('ResolvedConfig')).toEqual(['kvHeads', 'concatWidth', 'memoryBudget']);
});
