// Task 'story' (issue 33) through the API: the explorer's sentences read with 0 unknown words;
// the core's groups (which row is which probe) re-derived from the held-out words in plain
// JavaScript; probes scored over candidate sets; ablation (evaluate({ zeroHeads })) equal to
// zeroing the head's rows of W_out, for the story, induction and verb-and-noun models; bad
// zeroHeads refused with errors naming them, the module working after.
import { beforeAll, describe, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { DEFAULT_SENTENCE, LECTURE_BATCH } from '../../web/explorer/lecture/presets.js';
import { ORDER_SENTENCES } from '../../web/explorer/panels/order/order-numbers.js';
import { SAMPLE_WORDS } from '../../web/explorer/panels/learn/learn-verdict.js';
import { tokenize } from '../../web/explorer/lecture/tokenizer.js';

const PROBES = ['subject', 'object', 'possessive', 'agreement', 'name'];
let hw;
let story;
beforeAll(async () => {
  hw = await loadHeadwise();
  story = hw.createTrainer({
    task: 'story',
    layers: 2,
    heads: 2,
    dModel: 16,
    mlpWidth: 0,
    evalSize: 96,
    batch: 8,
    seed: 4,
  });
  story.step(2);
}, 120_000); // module load and a 2-layer trainer on a loaded machine

test('every word of the sentences the explorer shows is in the vocabulary', () => {
  const words = new Set(story.task.words);
  expect(words.size).toBe(story.task.words.length);
  expect(words.size).toBeGreaterThanOrEqual(300);
  const shown = [DEFAULT_SENTENCE, ...LECTURE_BATCH, ...ORDER_SENTENCES, SAMPLE_WORDS.join(' ')];
  const unknown = shown.flatMap((s) => tokenize(s).tokens.map((w) => w.toLowerCase())).filter((w) => !words.has(w));
  expect(unknown).toEqual([]);
  // The lecture's sentence reads as ids and back, word for word.
  const lecture = 'the dog chased the ball , but it could not catch it .'.split(' ');
  const ids = story.sequenceIds([...lecture, ...Array(64 - lecture.length).fill('.')]);
  expect(Array.from(ids.slice(0, lecture.length), (id) => story.task.words[id])).toEqual(lecture);
});

const CLASS = { he: 0, him: 0, his: 0, she: 1, her: 1, it: 2, its: 2, they: 3, them: 3, their: 3 };

// Expected group per row of one held-out sequence from its words alone (nouns' pronoun classes
// learnt from the pronouns the sentences use for them); rows whose class is not known: undefined.
function expectedGroups(words, nounClass, learn) {
  const n = words.length;
  const out = Array(n).fill('other');
  const cls = (i) => (i < n ? nounClass.get(words[i]) : undefined);
  const put = (q, kind, a, b) => {
    if (q + 1 >= n) return;
    const ca = cls(a);
    const cb = cls(b);
    out[q] = ca === undefined || cb === undefined ? undefined : ca !== cb ? kind : 'same pronoun';
  };
  const teach = (noun, pronoun) => {
    if (learn && pronoun !== undefined && CLASS[pronoun] !== undefined) nounClass.set(noun, CLASS[pronoun]);
  };
  for (let s = 0; s < n;) {
    const w = (i) => words[s + i];
    if (w(0) !== 'the') {
      if (w(1) !== undefined && w(1) !== 'went')
        throw new Error(`not a template at ${s}: ${words.slice(s, s + 8).join(' ')}`);
      teach(w(0), w(13));
      if (s + 7 < n) out[s + 6] = 'name';
      put(s + 12, 'subject', s + 7, s + 11);
      s += 18;
    } else if (s + 5 >= n) {
      break;
    } else if (w(2) === 'who') {
      teach(w(1), w(7));
      put(s + 6, 'possessive', s + 1, s + 5);
      s += 10;
    } else if (w(5) === ',') {
      teach(w(1), w(7));
      teach(w(4), w(11));
      put(s + 6, 'subject', s + 1, s + 4);
      put(s + 10, 'object', s + 4, s + 1);
      s += 13;
    } else if (w(5) === 'a') {
      teach(w(4), w(8));
      teach(w(1), w(10));
      put(s + 7, 'subject', s + 4, s + 1);
      put(s + 9, 'object', s + 1, s + 4);
      s += 12;
    } else {
      expect(['is', 'are']).toContain(w(5));
      const n1 = w(5) === 'are';
      const n2 = cls(s + 4) === undefined ? undefined : cls(s + 4) === 3;
      if (s + 5 < n) out[s + 4] = n2 === undefined ? undefined : n1 !== n2 ? 'agreement' : 'same pronoun';
      s += 8;
    }
  }
  return out;
}

test("the core's probe rows are the ones a plain reading of the held-out words finds", () => {
  const sequences = Array.from({ length: 96 }, (_, i) => story.heldOutSequence(i));
  const nounClass = new Map();
  const asWords = ({ ids }) => Array.from(ids, (id) => story.task.words[id]);
  for (const s of sequences) expectedGroups(asWords(s), nounClass, true);
  let checked = 0;
  const seen = new Set();
  for (const s of sequences) {
    const expected = expectedGroups(asWords(s), nounClass, false);
    const got = Array.from(s.groups, (g) => (g < 0 ? 'none' : story.task.groups[g]));
    for (let t = 0; t < got.length - 1; t += 1) {
      if (expected[t] === undefined) continue;
      expect(`${t}: ${got[t]}`).toBe(`${t}: ${expected[t]}`);
      seen.add(got[t]);
      checked += 1;
    }
    expect(got[got.length - 1]).toBe('none'); // the last row predicts nothing
  }
  expect(checked).toBeGreaterThan(0.95 * 96 * 63);
  for (const probe of PROBES) expect(seen.has(probe)).toBe(true);
});

test('evaluate() scores each probe over its candidate set; the roles are the probes', () => {
  const e = story.evaluate();
  for (const probe of PROBES) {
    expect(e.groups[probe].candidateRows).toBeGreaterThan(10);
    expect(e.groups[probe].candidateAccuracy).toBeGreaterThanOrEqual(0);
    expect(e.groups[probe].candidateAccuracy).toBeLessThanOrEqual(1);
  }
  expect(e.groups.other.candidateRows).toBeUndefined();
  const ROLE_PROBES = [
    'subjectAntecedent',
    'objectAntecedent',
    'possessiveAntecedent',
    'agreement',
    'nameCopy',
    'twoBack',
  ];
  expect(story.task.probes).toEqual(ROLE_PROBES);
  const roles = story.roleScores();
  expect(roles).toHaveLength(2);
  for (const head of roles.flat()) {
    for (const key of ['previousToken', ...ROLE_PROBES]) expect(head).toHaveProperty(key);
    expect(typeof head.role).toBe('string');
  }
});

// evaluate({ zeroHeads }) against the plain way: the head's rows of W_out set to zero.
function checkAblation(t, layer, head) {
  const before = t.evaluate();
  const ablated = t.evaluate({ zeroHeads: [{ layer, head }] });
  const weights = t.getWeights();
  const name = `blocks.${layer}.wOut`; // (heads x headDim, dModel): head h owns rows h*hd..
  const wOut = weights[name];
  expect(wOut).toHaveLength(t.options.dModel * t.options.dModel);
  const hd = t.options.dModel / t.options.heads;
  const D = t.options.dModel;
  t.setWeights({
    [name]: wOut.map((v, i) => (Math.floor(i / D) >= head * hd && Math.floor(i / D) < (head + 1) * hd ? 0 : v)),
  });
  const plain = t.evaluate();
  t.setWeights({ [name]: wOut });
  expect(ablated.loss).toBe(plain.loss);
  expect(ablated.groups).toEqual(plain.groups);
  expect(ablated.loss).not.toBe(before.loss);
  expect(t.evaluate().loss).toBe(before.loss); // the mask does not outlive the call
}

describe('ablation', () => {
  test('story: zeroing a head is zeroing its rows of W_out', () => {
    checkAblation(story, 1, 0);
    checkAblation(story, 0, 1);
    const both = story.evaluate({
      zeroHeads: [
        { layer: 0, head: 0 },
        { layer: 1, head: 1 },
      ],
    });
    expect(both.loss).not.toBe(story.evaluate().loss);
  });

  test('induction and verb-and-noun models too', () => {
    const induction = hw.createTrainer({
      task: 'induction',
      layers: 2,
      heads: 2,
      dModel: 16,
      mlpWidth: 0,
      evalSize: 32,
      batch: 4,
      seed: 1,
    });
    induction.step(3);
    checkAblation(induction, 1, 1);
    induction.dispose();
    const verbNoun = hw.createTrainer({ heads: 2, dModel: 16, evalSize: 64, seed: 2 });
    verbNoun.step(5);
    checkAblation(verbNoun, 0, 0);
    verbNoun.dispose();
  });

  test('bad zeroHeads are refused, naming the problem; the module keeps working', () => {
    const before = story.evaluate().loss;
    expect(() => story.evaluate({ zeroHeads: 'all' })).toThrow(TypeError);
    expect(() => story.evaluate({ zeroHeads: [3] })).toThrow(/zeroHeads\[0\] must be \{ layer, head \}/);
    expect(() => story.evaluate({ zeroHeads: [{ layer: 2, head: 0 }] })).toThrow(RangeError);
    expect(() => story.evaluate({ zeroHeads: [{ layer: 0, head: 2 }] })).toThrow(
      /zeroHeads\[0\]\.head must be a whole number from 0 to 1, got 2/,
    );
    expect(() => story.evaluate({ zeroHeads: [{ layer: 0.5, head: 0 }] })).toThrow(RangeError);
    expect(() => story.evaluate({ zeroHeads: [{ layer: '0', head: 0 }] })).toThrow(RangeError);
    expect(story.evaluate().loss).toBe(before);
  });
});

test("evalSize left out is the task's own (the core's table): every task's default trainer is made", () => {
  const row = hw.trainerOptions().find((r) => r.name === 'evalSize');
  expect([row.min, row.default]).toEqual([0, 0]);
  const want = { 'verb-noun': 2048, verb: 2048, order: 2048, induction: 512, story: 400 };
  for (const task of hw.tasks().map((t) => t.name)) {
    for (const given of [{}, { evalSize: 0 }]) {
      const t = hw.createTrainer({ task, ...given });
      expect(t.options.evalSize, task).toBe(want[task]);
      expect(t.heldOutSequence(want[task] - 1).ids.length).toBe(t.task.tokens);
      expect(() => t.heldOutSequence(want[task])).toThrow(RangeError);
      t.dispose();
    }
  }
  // The model the README's pool block trains, and the lecture's 2-layer one, with the defaults.
  for (const task of ['induction', 'story']) {
    const t = hw.createTrainer({ task, layers: 2, heads: 4, dModel: 64, mlpWidth: 0 });
    expect(t.evaluate().loss).toBeGreaterThan(0);
    t.dispose();
  }
  // Given, it is kept, and 2048 of the story's sequences are still refused, saying why.
  expect(hw.createTrainer({ task: 'story', evalSize: 3, dModel: 16, heads: 2 }).options.evalSize).toBe(3);
  expect(() => hw.createTrainer({ task: 'story', evalSize: 2048 })).toThrow(/choose a smaller evalSize/);
}, 120_000);
