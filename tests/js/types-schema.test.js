// The .d.ts against the core's tables: every option name of createAttention and of the trainer,
// every choice of a choice option (position kinds, tasks, activations), the head roles and the
// shape trace's steps are what the loaded module says. A new row in a core table fails here
// until headwise.d.ts says it too.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';

const source = ts.createSourceFile(
  'headwise.d.ts',
  readFileSync(new URL('../../web/headwise.d.ts', import.meta.url), 'utf8'),
  ts.ScriptTarget.Latest,
  true,
);
const declarations = new Map();
for (const node of source.statements) {
  if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) declarations.set(node.name.text, node);
}

// The string literals a type node stands for (unions and references to this file's aliases followed).
function literalsOf(type) {
  if (ts.isUnionTypeNode(type)) return type.types.flatMap(literalsOf);
  if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return [type.literal.text];
  if (ts.isParenthesizedTypeNode(type)) return literalsOf(type.type);
  if (ts.isTypeReferenceNode(type) && declarations.get(type.typeName.getText())?.type) {
    return literalsOf(declarations.get(type.typeName.getText()).type);
  }
  return [];
}
const membersOf = (name) => new Map(declarations.get(name).members.map((m) => [m.name.text, m]));
const sorted = (values) => [...new Set(values)].sort();

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

test('the literal reader reads a union (the test can fail)', () => {
  expect(sorted(literalsOf(declarations.get('TraceEntry').members[0].type))).toContain('out-project');
  expect(literalsOf(declarations.get('TraceEntry').members[1].type)).toEqual([]);
});

test.each([
  ['AttentionConfig', () => hw.attentionOptions(), []],
  ['ResolvedConfig', () => hw.attentionOptions(), ['concatWidth', 'kvConcatWidth']],
  ['TrainerOptions', () => hw.trainerOptions(), ['variant']],
])('%s declares every option of the core table and no other', (name, rows, extra) => {
  const members = membersOf(name);
  expect(sorted(members.keys())).toEqual(sorted([...rows().map((row) => row.name), ...extra]));
  for (const row of rows().filter((r) => r.type === 'choice')) {
    expect(sorted(literalsOf(members.get(row.name).type)), `${name}.${row.name}`).toEqual(sorted(row.choices));
  }
});

test("PositionKind, TrainTask and HeadRole are the core's kinds, tasks and roles", () => {
  expect(sorted(literalsOf(declarations.get('PositionKind').type))).toEqual(
    sorted(hw.positionKinds().map((k) => k.name)),
  );
  expect(sorted(literalsOf(declarations.get('PositionEntry').type))).toEqual(
    sorted(hw.positionKinds().map((k) => k.entersAt)),
  );
  expect(sorted(literalsOf(declarations.get('TrainTask').type))).toEqual(sorted(hw.tasks().map((t) => t.name)));
  expect(sorted(literalsOf(declarations.get('HeadRole').type))).toEqual(sorted(hw.headRoleNames()));
});

test("TraceEntry's steps are every step a shape trace names, for every position kind", () => {
  const steps = hw.positionKinds().flatMap(({ name }) => hw.shapeTrace({ positions: name }).map((e) => e.step));
  expect(sorted(literalsOf(membersOf('TraceEntry').get('step').type))).toEqual(sorted(steps));
});
