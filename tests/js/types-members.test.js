// headwise.d.ts and web/headwise.js declare the same public members: every export, every public
// method and property of Headwise and MultiHeadAttention, and every key memoryStats() returns.
// (tests/package/types.test.js then compiles a usage file against the declarations.)
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { expect, test } from 'vitest';
import * as api from '../../web/headwise.js';

const source = ts.createSourceFile(
  'headwise.d.ts',
  readFileSync(new URL('../../web/headwise.d.ts', import.meta.url), 'utf8'),
  ts.ScriptTarget.Latest,
  true,
);

function declared() {
  const exports = new Set();
  const classes = {};
  const interfaces = {};
  for (const node of source.statements) {
    const name = node.name?.text;
    if (ts.isClassDeclaration(node)) {
      exports.add(name);
      classes[name] = new Set(node.members.map((m) => m.name?.text).filter(Boolean));
    } else if (ts.isFunctionDeclaration(node)) exports.add(name);
    else if (ts.isInterfaceDeclaration(node))
      interfaces[name] = new Set(node.members.map((m) => m.name?.text).filter(Boolean));
    else if (ts.isVariableStatement(node)) for (const d of node.declarationList.declarations) exports.add(d.name.text);
  }
  // An interface with a class's name adds to that class (declaration merging).
  for (const name of Object.keys(classes)) for (const m of interfaces[name] ?? []) classes[name].add(m);
  return { exports, classes, interfaces };
}

function runtimeMembers(instance) {
  const members = new Set(Object.keys(instance));
  for (let p = Object.getPrototypeOf(instance); p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const key of Object.getOwnPropertyNames(p)) if (key !== 'constructor') members.add(key);
  }
  return members;
}

const sorted = (set) => [...set].sort();

test('every public member is declared, and every declared member exists', async () => {
  const { exports, classes, interfaces } = declared();
  expect(sorted(exports)).toEqual(sorted(Object.keys(api)));
  const hw = await api.loadHeadwise();
  const layer = hw.createAttention();
  expect(sorted(classes.Headwise)).toEqual(sorted(runtimeMembers(hw)));
  expect(sorted(classes.MultiHeadAttention)).toEqual(sorted(runtimeMembers(layer)));
  const latent = hw.createAttention({ attention: 'mla', kvLatent: 2 });
  expect(sorted(classes.LatentAttention)).toEqual(sorted(runtimeMembers(latent)));
  expect(sorted(interfaces.LatentWeights)).toEqual(sorted(Object.keys(latent.getWeights())));
  latent.dispose();
  const trainer = hw.createTrainer({ evalSize: 1 });
  expect(sorted(classes.Trainer)).toEqual(sorted(runtimeMembers(trainer)));
  trainer.dispose();
  expect(sorted(interfaces.MemoryStats)).toEqual(sorted(Object.keys(hw.memoryStats())));
  // Every key any position kind returns (positions, qUnrotated, scoreBias, ... are kind-specific).
  const keys = new Set();
  for (const positions of hw.attentionOptions().find((row) => row.name === 'positions').choices) {
    const kind = hw.createAttention({ positions });
    for (const key of Object.keys(kind.forward(new Float32Array(36), { intermediates: true }))) keys.add(key);
    kind.dispose();
  }
  expect(sorted(interfaces.Intermediates)).toEqual(sorted(keys));
  layer.dispose();
});
