// The heads panel's trained heads (web/explorer/panels/heads/trained-heads.js and the owner's part 'trained'):
// the user's sentence read word by word against the story model's vocabulary, the drawn maps of the
// shipped story models computed in an attention layer of their shape agree with the models' own, the
// trained heads are named by the core, the numbers said are those of the drawn maps (against a plain
// recomputation), and the same numbers on the weights before training do not show the lecture's rows.
import { readFileSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { ExplorerComputation } from '../../web/explorer/computation.js';
import { defaultOptions } from '../../web/explorer/options.js';
import { tokenize } from '../../web/explorer/lecture/tokenizer.js';
import {
  checkpointFor,
  firstRows,
  headDifference,
  leadRow,
  looksText,
  readingRow,
  readRows,
  readSentence,
  rowInReading,
  shareOn,
  TRAINED_CHECKPOINTS,
} from '../../web/explorer/panels/heads/trained-heads.js';

const read = (name) => JSON.parse(readFileSync(new URL(`../../web/checkpoints/${name}.json`, import.meta.url), 'utf8'));
const LECTURE = 'The dog chased the ball, but it could not catch it.';
const LECTURE_WORDS = 'the dog chased the ball , but it could not catch it .'.split(' ');
const [DOG, BALL, CATCH, LAST_IT] = [1, 4, 10, 11];
let hw;
let owner;
let words;
beforeAll(async () => {
  hw = await loadHeadwise();
  owner = new ExplorerComputation(hw, { checkpointSource: read });
  await owner.kept('heads').load();
  words = owner.kept('heads').models['story-2-heads'].words;
});

const tokens = (s) => tokenize(s, 4096).tokens;

test("2 heads and 4 heads are the story models; the lecture's sentence is read with 0 unknown words", () => {
  expect(checkpointFor(2)).toBe('story-2-heads');
  expect(checkpointFor(4)).toBe('story-4-heads');
  expect(checkpointFor(1)).toBe('story-1-head');
  expect(checkpointFor(3)).toBeNull();
  const r = readSentence(tokens(LECTURE), words);
  expect(r.words.slice(0, r.count)).toEqual(LECTURE_WORDS);
  expect(r.unknown).toEqual([]);
  expect(r.shown).toBe(13);
  expect(r.words).toHaveLength(64);
  // The rows the text reads: "catch" (it predicts the last "it") and the last "it".
  expect(readRows(r).map((x) => [x.row, x.word, x.label])).toEqual([
    [CATCH, 'catch', 'catch → it'],
    [LAST_IT, 'it', 'it (last)'],
  ]);
  // Highlighted first: "catch" (it predicts a pronoun); with no pronoun, the last word's row.
  expect(leadRow(readRows(r))).toBe(CATCH);
  const plain = readSentence(tokens('the dog chased the ball'), words);
  expect(leadRow(readRows(plain))).toBe(4);
  expect(leadRow([])).toBe(-1);
});

test('an unknown word is marked and left out, never replaced; rows map to the tokens and back', () => {
  const t = tokens('The dog chased the frisbee, but it could not catch it');
  const r = readSentence(t, words);
  expect(r.unknown).toEqual(['frisbee']);
  expect(r.words.slice(0, r.count).join(' ')).toBe('the dog chased the , but it could not catch it');
  const rows = Array.from({ length: r.shown }, (_, row) => rowInReading(r, row));
  expect(rows).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11]); // "frisbee" (token 4) has no row
  expect(readingRow(r, 4)).toBe(-1);
  expect(readingRow(r, 10)).toBe(9); // "catch"
  expect(readingRow(r, -1)).toBe(-1);
  expect(rowInReading(r, r.shown)).toBe(-1); // a "." after the sentence
  const none = readSentence(tokens('frisbee zzz'), words);
  expect(none.count).toBe(0);
  expect(none.shown).toBe(1);
});

test('firstRows cuts T x T maps to the first n rows and columns; headDifference reads them', () => {
  const T = 3;
  // 2 heads, causal 3 x 3 maps; cut to n = 2.
  const attention = Float32Array.from([1, 0, 0, 0.25, 0.75, 0, 0.1, 0.2, 0.7, 1, 0, 0, 0.9, 0.1, 0, 0.3, 0.3, 0.4]);
  const fused = {
    attention,
    scores: attention.map((v) => -v),
    concat: new Float32Array(6),
    output: new Float32Array(6),
  };
  const cut = firstRows(fused, 2, T, 2, 2);
  expect([...cut.attention]).toEqual([1, 0, 0.25, 0.75, 1, 0, 0.9, 0.1].map(Math.fround));
  expect(cut.scores[3]).toBe(Math.fround(-0.75));
  expect(cut.concat).toHaveLength(4);
  const maps = [cut.attention.subarray(0, 4), cut.attention.subarray(4, 8)];
  const d = headDifference(maps, 2, [{ row: 1, word: 'b', label: 'b (last)' }], ['a', 'b']);
  expect(d.looks[0].heads.map((x) => [x.at, x.word])).toEqual([
    [1, 'b'],
    [0, 'a'],
  ]);
  expect(d.pairs[0].distance).toBeCloseTo(0.65, 6);
  expect(looksText(d, [{ role: 'x' }, { role: 'y' }])).toBe(
    'From the last "b": head 1 (x) 0.75 on "b", head 2 (y) 0.90 on "a".',
  );
});

// Plain recomputation: per head the row's largest weight and where, from a map given as rows of numbers.
function plainTop(map, n, row) {
  const values = Array.from({ length: row + 1 }, (_, j) => map[row * n + j]);
  const best = Math.max(...values);
  return { at: values.indexOf(best), weight: best };
}

for (const heads of [1, 2, 4]) {
  test(`${heads} heads: the drawn maps are the story model's; roles, rows and text agree with them`, async () => {
    const name = TRAINED_CHECKPOINTS[heads];
    const trainer = await hw.loadCheckpoint(read(name));
    try {
      const o = { ...defaultOptions(), dModel: 64, heads, sentence: LECTURE };
      const c = owner.compute(o, { parts: ['trained'] }).trained;
      expect(c.name).toBe(name);
      expect(c.matches).toBe(true);
      expect(c.words).toEqual(LECTURE_WORDS);
      const n = c.words.length;
      // The model's own maps on the 64 words it reads, cut to the sentence's rows.
      const own = trainer.attention(c.reading.words).layers[0].heads;
      for (let h = 0; h < heads; h += 1) {
        for (let i = 0; i < n; i += 1) {
          for (let j = 0; j < n; j += 1) {
            const drawn = c.trained.fused.attention[(h * n + i) * n + j];
            expect(Math.abs(drawn - own[h][i * 64 + j]), `h${h} ${i},${j}`).toBeLessThan(1e-5);
          }
        }
      }
      // The core's names, as the checkpoint stores them.
      expect(c.trained.roles.map((r) => r.role)).toEqual(read(name).roles[0].map((r) => r.role));
      // The numbers said are the drawn maps' (plain recomputation).
      const maps = Array.from({ length: heads }, (_, h) =>
        c.trained.fused.attention.subarray(h * n * n, (h + 1) * n * n),
      );
      for (const look of c.trained.difference.looks) {
        look.heads.forEach((top, h) => {
          const want = plainTop(maps[h], n, look.row);
          expect(top.at).toBe(want.at);
          expect(top.weight).toBe(want.weight);
          expect(top.word).toBe(c.words[want.at]);
        });
      }
      // Some trained head puts most of "catch" on "ball" (and little on "dog"); none before training.
      const best = (fused, row, word) =>
        Math.max(
          ...Array.from({ length: heads }, (_, h) =>
            shareOn(fused.attention.subarray(h * n * n, (h + 1) * n * n), n, row, c.words, word),
          ),
        );
      // One head (the lecture's point) holds "catch" less sharply: .61 on "ball", .18 on "dog" (seed 1).
      expect(best(c.trained.fused, CATCH, 'ball')).toBeGreaterThan(heads === 1 ? 0.5 : 0.8);
      if (heads === 1) expect(best(c.trained.fused, CATCH, 'ball')).toBeLessThan(0.8);
      expect(best(c.random.fused, CATCH, 'ball')).toBeLessThan(0.5);
      const text = looksText(c.trained.difference, c.trained.roles);
      expect(text).toMatch(/^From "catch" \(before "it"\): head 1 \(/);
      expect(text).toMatch(/ on "ball"/);
      void DOG;
    } finally {
      trainer.dispose();
    }
  }, 60_000);
}

test('a configuration with no trained model gets the 2-head story model beside it', () => {
  const o = defaultOptions();
  const gpt2 = owner.compute({ ...o, dModel: 768, heads: 12 }, { parts: ['trained'] }).trained;
  expect(gpt2.matches).toBe(false);
  expect(gpt2.name).toBe('story-2-heads');
  const one = owner.compute({ ...o, dModel: 6, heads: 3 }, { parts: ['trained'] }).trained;
  expect(one.matches).toBe(false);
  expect(one.name).toBe('story-2-heads');
});

test('a configuration loads only the model it draws; "Random weights" adds the model before training', async () => {
  const own = new ExplorerComputation(hw, { checkpointSource: read });
  const kept = own.kept('heads');
  try {
    const o = { ...defaultOptions(), sentence: LECTURE }; // 2 heads
    expect(own.compute(o, { parts: ['trained'] }).trained).toBeNull();
    expect(kept.missing(o)).toEqual([{ name: 'story-2-heads', random: false }]);
    await kept.load(o);
    expect(Object.keys(kept.models)).toEqual(['story-2-heads']);
    const trained = own.compute(o, { parts: ['trained'] }).trained;
    expect(trained.name).toBe('story-2-heads');
    expect(trained.random).toBeNull();
    expect(kept.missing({ ...o, heads: 12 })).toEqual([]); // beside it, the same model; not its untrained twin
    const random = { ...o, headsWeights: 'random' };
    expect(kept.missing(random)).toEqual([{ name: 'story-2-heads', random: true }]);
    await kept.load(random);
    expect(kept.missing(random)).toEqual([]);
    const both = own.compute(random, { parts: ['trained'] }).trained;
    expect(both.random.roles.map((r) => r.role)).toEqual(['mixed', 'mixed']);
    expect(both.trained.fused.attention).toEqual(trained.trained.fused.attention);
    expect(kept.missing({ ...o, dModel: 64, heads: 4 })).toEqual([{ name: 'story-4-heads', random: false }]);
  } finally {
    own.dispose();
  }
}, 60_000);

test("the model before training holds its checkpoint options' weights, whatever its batch and held-out set", () => {
  for (const name of Object.values(TRAINED_CHECKPOINTS)) {
    const { options } = read(name);
    const saved = hw.createTrainer(options); // the options as trained: batch 32, 400 held-out sequences
    try {
      const shown = owner.kept('heads').models[name].random.weights;
      const bytes = (a) => new Uint8Array(Float32Array.from(a).buffer);
      const want = saved.getWeights();
      for (const { name: tensor } of saved.parameters)
        expect(bytes(shown[tensor]), tensor).toEqual(bytes(want[tensor]));
    } finally {
      saved.dispose();
    }
  }
}, 60_000);
