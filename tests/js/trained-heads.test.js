// The heads panel's trained heads (web/explorer/panels/heads/trained-heads.js and the owner's part 'trained'):
// the user's sentence read as the task's words, the T x T maps of the shipped model computed in
// an attention layer of its shape agree with the model's own row from "?", the trained heads are
// named by the core and differ, and the same numbers on the weights before training do not.
import { readFileSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { ExplorerComputation } from '../../web/explorer/computation.js';
import { defaultOptions } from '../../web/explorer/options.js';
import { TRAIN_VOCABULARY } from '../../web/trainer.js';
import {
  headDifference,
  latestVerbNoun,
  readingRow,
  readSentence,
  readToken,
  readingText,
  rowInReading,
  TRAINED_CHECKPOINTS,
} from '../../web/explorer/panels/heads/trained-heads.js';

const read = (name) => JSON.parse(readFileSync(new URL(`../../web/checkpoints/${name}.json`, import.meta.url), 'utf8'));
const LECTURE = 'The dog chased the ball, but it could not catch it';
let hw;
let owner;
beforeAll(async () => {
  hw = await loadHeadwise();
  owner = new ExplorerComputation(hw, { checkpointSource: read });
  await owner.kept('heads').load();
});

test('a token is read as a word of the task: known, by its stem, as a filler, or dropped', () => {
  const words = TRAIN_VOCABULARY;
  const as = (t) => readToken(t, words);
  expect(as('Dog')).toEqual({ token: 'Dog', read: 'dog', how: 'known' });
  for (const [t, stem] of [
    ['chased', 'chase'],
    ['catches', 'catch'],
    ['caught', 'catch'],
    ['kicked', 'kick'],
    ['dropped', 'drop'],
    ['chasing', 'chase'],
    ['likes', 'like'],
    ['dogs', 'dog'],
    ['saw', 'see'],
  ]) {
    expect(as(t)).toEqual({ token: t, read: stem, how: 'stem' });
  }
  expect(as('could')).toEqual({ token: 'could', read: 'and', how: 'filler' });
  expect(as(',')).toEqual({ token: ',', read: null, how: 'dropped' });
  expect(as('?').how).toBe('dropped'); // the task's own "?" is added at the end, never read from the text
});

test("the lecture's sentence is 11 words and ?; a long one keeps its last 11, a short one is padded", () => {
  const tokens = ['The', 'dog', 'chased', 'the', 'ball', ',', 'but', 'it', 'could', 'not', 'catch', 'it'];
  const r = readSentence(tokens, TRAIN_VOCABULARY);
  expect(r.words.join(' ')).toBe('the dog chase the ball and it and and catch it ?');
  expect(r.cut).toBe(0);
  expect(r.padded).toBe(0);
  expect(readingText(r)).toBe(
    '"chased" as "chase", by stem; "but", "could" and "not" unknown, read as "and"; "," dropped',
  );
  const long = readSentence([...tokens, 'and', 'the', 'girl', 'kicks', 'a', 'stick'], TRAIN_VOCABULARY);
  expect(long.words).toHaveLength(12);
  expect(long.cut).toBe(6);
  expect(long.words.slice(-3)).toEqual(['a', 'stick', '?']);
  const short = readSentence(['dogs', 'chase'], TRAIN_VOCABULARY);
  expect(short.words.join(' ')).toBe('the the the the the the the the the dog chase ?');
  expect(readingText(short)).toMatch(/9 "the" put in front/);
});

test("rows of the model's words map to the sentence's tokens and back: cut, padded, dropped, ?", () => {
  const tokens = ['The', 'dog', 'chased', 'the', 'ball', ',', 'but', 'it', 'could', 'not', 'catch', 'it'];
  const r = readSentence(tokens, TRAIN_VOCABULARY);
  const rows = r.words.map((_, row) => rowInReading(r, row));
  expect(rows).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, -1]); // "," dropped, "?" reads no token
  expect(readingRow(r, 10)).toBe(9); // "catch"
  expect(readingRow(r, 5)).toBe(-1);
  expect(readingRow(r, -1)).toBe(-1);
  for (const [row, token] of rows.entries()) if (token >= 0) expect(readingRow(r, token)).toBe(row);

  const long = readSentence([...tokens, 'and', 'the', 'girl', 'kicks', 'a', 'stick'], TRAIN_VOCABULARY);
  expect(rowInReading(long, 0)).toBe(7); // the first 6 words are cut: row 0 is "it" (token 7)
  expect(readingRow(long, 2)).toBe(-1);
  expect(readingRow(long, 17)).toBe(10);
  const short = readSentence(['dogs', 'chase'], TRAIN_VOCABULARY);
  expect([0, 8, 9, 10, 11].map((row) => rowInReading(short, row))).toEqual([-1, -1, 0, 1, -1]);
  expect(readingRow(short, 1)).toBe(10);
  expect(rowInReading(short, 12)).toBe(-1);
});

test('headDifference reads the drawn rows from "?": shares on the latest verb and noun, distance', () => {
  const T = 3;
  const a = Float32Array.from([1, 0, 0, 0.5, 0.5, 0, 0, 1, 0]);
  const b = Float32Array.from([1, 0, 0, 0.5, 0.5, 0, 1, 0, 0]);
  const d = headDifference([a, b], T, { verb: 1, noun: 0 });
  expect(d.heads).toEqual([
    { verb: 1, noun: 0, top: 1, topWeight: 1 },
    { verb: 0, noun: 1, top: 0, topWeight: 1 },
  ]);
  expect(d.pairs).toEqual([{ a: 0, b: 1, distance: 1 }]);
  expect(latestVerbNoun([16, 0, 8, 1, 17, 20])).toEqual({ verb: 2, noun: 3 });
});

test('the drawn T x T maps agree with the model; trained heads are named by the core and differ', async () => {
  const trainer = await hw.loadCheckpoint(read(TRAINED_CHECKPOINTS[2]));
  try {
    const c = owner.compute({ ...defaultOptions(), sentence: LECTURE }, { parts: ['trained'] }).trained;
    expect(c.name).toBe('verb-noun-2-heads');
    expect(c.matches).toBe(true);
    const T = c.words.length;
    const fromQuery = trainer.attention(c.ids).layers[0].heads;
    for (let h = 0; h < 2; h += 1) {
      const drawn = c.trained.fused.attention.subarray((h * T + T - 1) * T, (h * T + T) * T);
      for (let j = 0; j < T; j += 1) expect(Math.abs(drawn[j] - fromQuery[h][j])).toBeLessThan(1e-5);
    }
    // The core's names, as the checkpoint stores them.
    expect(c.trained.roles.map((r) => r.role)).toEqual(read(TRAINED_CHECKPOINTS[2]).roles[0].map((r) => r.role));
    expect(c.trained.roles.map((r) => r.role)).toEqual(['latest verb', 'latest noun']);
    // From "?": one head on "catch", the other on "ball"; the rows nearly disjoint.
    expect(c.at).toEqual({ verb: 9, noun: 4 });
    const [verb, noun] = c.trained.difference.heads;
    expect(verb.top).toBe(9);
    expect(noun.top).toBe(4);
    expect(verb.verb).toBeGreaterThan(0.9);
    expect(noun.noun).toBeGreaterThan(0.9);
    expect(c.trained.difference.pairs[0].distance).toBeGreaterThan(0.9);
    // Before training: no head is named, none puts half its weight on either word.
    expect(c.random.roles.map((r) => r.role)).toEqual(['mixed', 'mixed']);
    for (const h of c.random.difference.heads) expect(Math.max(h.verb, h.noun)).toBeLessThan(0.5);
    expect(c.random.difference.pairs[0].distance).toBeLessThan(0.6);
  } finally {
    trainer.dispose();
  }
});

test('a configuration with no trained model gets the 2-head model beside it; 1 head its own', () => {
  const o = defaultOptions();
  const gpt2 = owner.compute({ ...o, dModel: 768, heads: 12 }, { parts: ['trained'] }).trained;
  expect(gpt2.matches).toBe(false);
  expect(gpt2.name).toBe('verb-noun-2-heads');
  const one = owner.compute({ ...o, dModel: 6, heads: 1 }, { parts: ['trained'] }).trained;
  expect(one.matches).toBe(true);
  expect(one.name).toBe('verb-noun-1-head');
  expect(one.heads).toBe(1);
});
