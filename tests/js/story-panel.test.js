// The story panel's pure parts (web/explorer/panels/story/story-reading.js, story-model.js'
// on(sentence)): a sentence read word by word against the model's vocabulary (unknown words marked
// and left out, never read as another word), the rows worth reading, and on the shipped checkpoint
// the lecture's sentence read with 0 unknown words, its heads named and looking where the lecture
// says, the ablation table in words (which skill falls, which stays) and equal to what the wasm
// trainer measures with that head zeroed, and the slide's point from the same numbers.
import { readFileSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { ExplorerComputation } from '../../web/explorer/computation.js';
import { tokenize } from '../../web/explorer/lecture/tokenizer.js';
import {
  ablationOf,
  ablationText,
  antecedentHead,
  keyRows,
  LECTURE_SENTENCE,
  pronounRows,
  readStorySentence,
  rowTop,
  STORY_CHECKPOINT,
  storyPoint,
  storyReadingText,
} from '../../web/explorer/panels/story/story-reading.js';

const read = (name) => JSON.parse(readFileSync(new URL(`../../web/checkpoints/${name}.json`, import.meta.url), 'utf8'));
const words = (text) => tokenize(text).tokens;
let hw;
let kept;
beforeAll(async () => {
  hw = await loadHeadwise();
  kept = new ExplorerComputation(hw, { checkpointSource: read }).kept('story');
  await kept.load();
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
  expect(keyRows(r)).toEqual([
    { row: 3, word: '.', label: '. → it' },
    { row: 4, word: 'it', label: 'it (last)' },
  ]);
  const none = readStorySentence(words('the dog ran'), vocabulary, 12);
  expect(keyRows(none)).toEqual([{ row: 2, word: 'ran', label: 'ran (last)' }]);
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

test("the story checkpoint reads the lecture's sentence with 0 unknown words; its heads look where it says", () => {
  const s = kept.on(LECTURE_SENTENCE);
  expect(s.name).toBe(STORY_CHECKPOINT);
  expect(s.reading.unknown).toEqual([]);
  expect(s.reading.words.slice(0, 13).join(' ')).toBe('the dog chased the ball , but it could not catch it .');
  expect(pronounRows(s.reading).map((r) => r.word)).toEqual(['but', 'catch']);
  expect(keyRows(s.reading).map((r) => r.label)).toEqual(['but → it', 'catch → it', 'it (last)']);
  const [but, caught] = pronounRows(s.reading);
  const named = s.roles.map((r) => r.role);
  const antecedent = named.findIndex((r) => /antecedent/.test(r));
  expect(antecedent, `roles ${named}`).toBeGreaterThanOrEqual(0);
  expect(antecedentHead(s.roles)).toBe(antecedent);
  const top = (row) => rowTop(s.maps[antecedent], s.T, row, s.reading.words);
  expect(top(but.row)).toMatchObject({ word: 'dog' });
  expect(top(but.row).weight).toBeGreaterThan(0.8);
  expect(top(caught.row)).toMatchObject({ word: 'ball' });
  expect(top(caught.row).weight).toBeGreaterThan(0.8);
  // The checkpoint's ablation table: zeroing that head, pronouns fall and name copy stays.
  const rows = ablationOf(s, 0, antecedent);
  const by = Object.fromEntries(rows.map((r) => [r.skill, r]));
  expect(by.possessive.change).toBeLessThan(-0.2);
  expect(by.name.change).toBeGreaterThan(by.possessive.change / 4);
  const text = ablationText(rows, `head ${antecedent + 1}`);
  expect(text).toMatch(
    new RegExp(
      `^Without head ${antecedent + 1}, falls: .*possessive \\d\\.\\d\\d -> \\d\\.\\d\\d.*; stays: .*name copy`,
    ),
  );
  // The slide's point: the drawn rows' values and the table's fall, in numbers.
  const point = storyPoint({ reading: s.reading, maps: s.maps, T: s.T, head: antecedent, table: rows });
  expect(point.length).toBeLessThanOrEqual(150);
  expect(point).toContain(`Head ${antecedent + 1} puts ${top(but.row).weight.toFixed(2)} of "but" on "dog"`);
  expect(point).toContain(`${top(caught.row).weight.toFixed(2)} of "catch" on "ball"`);
  expect(point).toContain(`possessive falls ${by.possessive.whole.toFixed(2)} → ${by.possessive.without.toFixed(2)}`);
  // Another head: nothing falls, said so.
  const quiet = ablationOf(s, 0, 1);
  expect(storyPoint({ reading: s.reading, maps: s.maps, T: s.T, head: 1, table: quiet })).toMatch(/off, nothing falls/);
  // An unknown word is said, and the rest still read.
  const typed = kept.on('The dog chased the frisbee , but it could not catch it .');
  expect(typed.reading.unknown).toEqual(['frisbee']);
  expect(typed.reading.count).toBe(12);
});

test('the ablation table is what the wasm trainer measures with that head zeroed', async () => {
  const trainer = await hw.loadCheckpoint(read(STORY_CHECKPOINT));
  const { ablation, evaluation } = trainer.checkpoint;
  expect(ablation.length).toBe(trainer.options.heads);
  for (const { layer, head, evaluation: want } of ablation) {
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
