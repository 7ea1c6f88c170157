// The heads panel's story model (web/explorer/panels/heads/story-heads.js, heads-numbers.js'
// storyOn): a sentence read word by word against the model's vocabulary (unknown words marked
// and left out, never read as another word), the rows before a pronoun, and on the shipped
// checkpoint the lecture's sentence read with 0 unknown words, its heads named and looking where
// the lecture says, and the ablation table in words (which skill falls, which stays).
import { readFileSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { ExplorerComputation } from '../../web/explorer/computation.js';
import { tokenize } from '../../web/explorer/tokenizer.js';
import {
  ablationOf,
  ablationText,
  LECTURE_SENTENCE,
  pronounRows,
  readStorySentence,
  rowTop,
  STORY_CHECKPOINT,
  storyReadingText,
} from '../../web/explorer/panels/heads/story-heads.js';

const read = (name) => JSON.parse(readFileSync(new URL(`../../web/checkpoints/${name}.json`, import.meta.url), 'utf8'));
const words = (text) => tokenize(text).tokens;
let hw;
let kept;
beforeAll(async () => {
  hw = await loadHeadwise();
  kept = new ExplorerComputation(hw, { checkpointSource: read }).kept('heads');
  await kept.loadStory();
}, 120_000);

test('a sentence is read against the vocabulary: unknown words marked and left out, never replaced', () => {
  const vocabulary = ['the', 'dog', 'ran', '.', 'it', 'saw', "didn't"];
  const r = readStorySentence(words('The DOG ran to Zürich. It saw the dog didn’t'), vocabulary, 12);
  expect(r.tokens.map((t) => t.how)).toEqual([
    'known',
    'known',
    'known',
    'unknown',
    'unknown',
    'known',
    'known',
    'known',
    'known',
    'known',
    'known',
  ]);
  expect(r.unknown).toEqual(['to', 'Zürich']);
  expect(r.words).toEqual(['the', 'dog', 'ran', '.', 'it', 'saw', 'the', 'dog', "didn't", '.', '.', '.']);
  expect(r.count).toBe(9);
  expect(storyReadingText(r)).toBe(
    '2 unknown (not in its vocabulary: "to", "Zürich"), left out: the model has no vector for them',
  );
  expect(pronounRows(r)).toEqual([{ row: 3, word: '.', next: 'it' }]);
  const long = readStorySentence(Array(70).fill('dog'), vocabulary, 64);
  expect([long.count, long.cut]).toEqual([64, 6]);
  expect(storyReadingText(long)).toBe('every word is in its vocabulary; the last 6 words left out (it reads 64)');
});

test("a head's top from a row is its largest weight at or before the row", () => {
  const T = 3;
  const map = Float32Array.from([1, 0, 0, 0.3, 0.7, 0, 0.5, 0.1, 0.4]);
  expect(rowTop(map, T, 2, ['a', 'b', 'c'])).toEqual({ at: 0, word: 'a', weight: 0.5 });
  expect(rowTop(map, T, 1, ['a', 'b', 'c']).word).toBe('b');
});

test("the story checkpoint reads the lecture's sentence, 0 unknown words; heads look where the lecture says", () => {
  const s = kept.storyOn(LECTURE_SENTENCE);
  expect(s.checkpoint.name).toBe(STORY_CHECKPOINT);
  expect(s.reading.unknown).toEqual([]);
  expect(s.reading.words.slice(0, 13).join(' ')).toBe('the dog chased the ball , but it could not catch it .');
  expect(pronounRows(s.reading).map((r) => r.word)).toEqual(['but', 'catch']);
  const [but, caught] = pronounRows(s.reading);
  const named = s.roles.map((r) => r.role);
  const antecedent = named.findIndex((r) => /antecedent/.test(r));
  expect(antecedent, `roles ${named}`).toBeGreaterThanOrEqual(0);
  const top = (row) => rowTop(s.maps[antecedent], s.T, row, s.reading.words);
  expect(top(but.row)).toMatchObject({ word: 'dog' });
  expect(top(but.row).weight).toBeGreaterThan(0.8);
  expect(top(caught.row)).toMatchObject({ word: 'ball' });
  expect(top(caught.row).weight).toBeGreaterThan(0.8);
  // The checkpoint's ablation table: zeroing that head, pronouns fall and name copy stays.
  const rows = ablationOf(s.checkpoint, 0, antecedent);
  const by = Object.fromEntries(rows.map((r) => [r.skill, r]));
  expect(by.possessive.change).toBeLessThan(-0.2);
  expect(by.name.change).toBeGreaterThan(by.possessive.change / 4);
  const text = ablationText(rows, `head ${antecedent + 1}`);
  expect(text).toMatch(
    new RegExp(
      `^Without head ${antecedent + 1}, falls: .*possessive \\d\\.\\d\\d -> \\d\\.\\d\\d.*; stays: .*name copy`,
    ),
  );
  // An unknown word is said, and the rest still read.
  const typed = kept.storyOn('The dog chased the frisbee , but it could not catch it .');
  expect(typed.reading.unknown).toEqual(['frisbee']);
  expect(typed.reading.count).toBe(12);
});

test('the ablation table is what the wasm trainer measures with that head zeroed', async () => {
  const trainer = await hw.loadCheckpoint(read(STORY_CHECKPOINT));
  const { ablation, evaluation } = trainer.checkpoint;
  expect(ablation.length).toBe(trainer.options.heads);
  for (const { layer, head, evaluation: want } of ablation.slice(0, 2)) {
    const got = trainer.evaluate({ zeroHeads: [{ layer, head }] });
    for (const [group, g] of Object.entries(want.groups)) {
      if (g.candidateAccuracy === undefined) continue;
      expect(
        Math.abs(got.groups[group].candidateAccuracy - g.candidateAccuracy),
        `${head} ${group}`,
      ).toBeLessThanOrEqual(1e-3);
    }
  }
  expect(
    Math.abs(trainer.evaluate().groups.subject.candidateAccuracy - evaluation.groups.subject.candidateAccuracy),
  ).toBeLessThanOrEqual(1e-3);
  trainer.dispose();
}, 120_000);
