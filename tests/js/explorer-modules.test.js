// The explorer's page-side modules in Node (Vitest, no browser): tokenizer, options, positions,
// teaching weights, SVG export.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { loadHeadwise } from '../../web/headwise.js';
import { sentenceBatch, tokenize } from '../../web/explorer/lecture/tokenizer.js';
import { optionsFromQuery, queryOf } from '../../web/explorer/options.js';
import { designTeachingWeights } from '../../web/explorer/panels/why/teaching-weights.js';
import { embedTokens, tokenVector } from '../../web/explorer/lecture/token-embeddings.js';
import { DEFAULT_SENTENCE } from '../../web/explorer/lecture/presets.js';

const hw = await loadHeadwise({
  wasmBinary: await readFile(new URL('../../web/build/headwise-core.wasm', import.meta.url)),
});

test('tokenizer: words, punctuation, emoji; limits', () => {
  assert.deepEqual(tokenize(DEFAULT_SENTENCE).tokens, [
    'The',
    'dog',
    'chased',
    'the',
    'ball',
    ',',
    'but',
    'it',
    'could',
    'not',
    'catch',
    'it',
  ]);
  assert.deepEqual(tokenize("don't <b>stop</b>").tokens, ["don't", '<', 'b', '>', 'stop', '<', '/', 'b', '>']);
  assert.deepEqual(sentenceBatch('   \n  '), { error: 'The sentence is empty: type at least one word.' });
  const many = sentenceBatch('a '.repeat(50_000), 64);
  assert.match(many.error, /^The sentence has 50,000 tokens; this explorer draws at most 64/);
  assert.match(sentenceBatch('a b\nc d\ne', 4).error, /^The 3 sentences have 5 tokens; this explorer draws at most 4/);
  assert.equal(tokenize('a '.repeat(50_000), 65).tokens.length, 65, 'keeps only what it needs');
});

test('a batch: one sentence per line, blank lines skipped, all of one length', () => {
  assert.deepEqual(sentenceBatch('The dog chased the ball,\r\n\n  but it could not catch it\n'), {
    sentences: [
      ['The', 'dog', 'chased', 'the', 'ball', ','],
      ['but', 'it', 'could', 'not', 'catch', 'it'],
    ],
  });
  assert.deepEqual(sentenceBatch('one line only').sentences, [['one', 'line', 'only']]);
  assert.deepEqual(sentenceBatch('a b\rc d', 4).sentences, [
    ['a', 'b'],
    ['c', 'd'],
  ]);
  assert.equal(
    sentenceBatch('All dogs are animals\nAll animals are dogs .').error,
    'Each line is one sentence of the batch, and the sentences of a batch need the same number of tokens; ' +
      'these have 4, 5. Make the lines the same length, or join them into one line.',
  );
});

test('token vectors: one per distinct token, whatever its position, case-insensitive', () => {
  const x = embedTokens(hw, ['The', 'dog', 'the'], 6);
  assert.deepEqual(x.subarray(0, 6), x.subarray(12, 18));
  assert.notDeepEqual(x.subarray(0, 6), x.subarray(6, 12));
  assert.deepEqual(tokenVector(hw, 'dog', 6), x.subarray(6, 12));
});

test('options: URL parameters, defaults, refusals in words, round trip', () => {
  const { options, notes } = optionsFromQuery('?panel=heads&preset=gpt2&heads=12&causal=0&seed=7&slide=1');
  assert.deepEqual(
    {
      panel: options.panel,
      dModel: options.dModel,
      heads: options.heads,
      causal: options.causal,
      seed: options.seed,
      slide: options.slide,
      preset: options.preset,
    },
    { panel: 'heads', dModel: 768, heads: 12, causal: false, seed: 7, slide: true, preset: 'gpt2' },
  );
  assert.deepEqual(notes, []);
  const bad = optionsFromQuery('?width=1.5&heads=-2&seed=x&preset=gpt9');
  assert.equal(bad.notes.length, 4);
  assert.equal(bad.options.dModel, 6);
  const custom = optionsFromQuery('?width=8&heads=4&sentence=Hello%20world');
  assert.equal(custom.options.preset, 'custom');
  assert.deepEqual(optionsFromQuery(queryOf(custom.options)).options, custom.options);
});

test('designed weights: one head splits between ball and catch, two heads take one each', () => {
  const { tokens } = tokenize(DEFAULT_SENTENCE);
  const T = tokens.length;
  const x = embedTokens(hw, tokens, 6);
  const lastRow = (targets) => {
    const w = designTeachingWeights(hw, tokens, 'it', 6, targets);
    const layer = hw.createAttention({ batch: 1, tokens: T, dModel: 6, heads: targets.length, seed: 1 });
    try {
      layer.setWeights({ wq: w.wq, wk: w.wk });
      const { attention } = layer.forward(x, { intermediates: true });
      return targets.map((_, h) => Array.from(attention.subarray((h * T + T - 1) * T, (h * T + T) * T)));
    } finally {
      layer.dispose();
    }
  };
  const ball = tokens.indexOf('ball');
  const catchAt = tokens.indexOf('catch');
  const [one] = lastRow([['ball', 'catch']]);
  assert.ok(
    Math.abs(one[ball] - one[catchAt]) < 1e-3 && one[ball] > 0.45,
    `one head: ball ${one[ball]}, catch ${one[catchAt]}`,
  );
  const [h1, h2] = lastRow([['ball'], ['catch']]);
  assert.ok(h1[ball] > 0.95 && h2[catchAt] > 0.95, `two heads: ${h1[ball]}, ${h2[catchAt]}`);
  assert.equal(hw.liveLayers(), 0);
});

test('SVG export: user text is escaped, never markup', async () => {
  const { Figure } = await import('../../web/explorer/figures/figure.js');
  const f = new Figure(100, 40, 'title <b>');
  f.text(0, 10, '<script>alert(1)</script> & "x"');
  const svg = f.toSVG();
  assert.ok(!svg.includes('<script>') && !svg.includes('<b>'));
  assert.ok(svg.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;'));
});
