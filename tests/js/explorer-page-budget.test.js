// The page's budgets. Its bytes: the explorer bundle, built here from the sources, with index.html
// within the gzipped budget bench/explorer-budgets.js states. Its compute (compute-budget.js) and
// its sliced render (render-slices.js): every preset a user can pick either fits the budget or is
// refused at once with a message that names the limit and tells the truth about it; a render runs a
// few slices per task and stops when superseded.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PAGE_BUDGET_GZIP_BYTES, pageSize } from '../../bench/explorer-budgets.js';
import { loadHeadwise } from '../../web/headwise.js';
import { ExplorerComputation, PANEL_PARTS } from '../../web/explorer/computation.js';
import {
  attentionCells,
  forwardMultiplyAdds,
  layerWeights,
  PAGE_BUDGET,
  PAGE_MAX_WIDTH,
  pageBudgetProblem,
} from '../../web/explorer/compute-budget.js';
import { defaultOptions } from '../../web/explorer/options.js';
import { PRESETS } from '../../web/explorer/lecture/presets.js';
import { BUDGET_MS, partSteps, runSlices } from '../../web/explorer/render-slices.js';
import { countingModule } from './counting-module.js';

const config = (dModel, heads, tokens = 12) => ({ batch: 1, tokens, dModel, heads, causal: true, seed: 1 });

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// Needs the module (scripts/build-wasm.sh), as the bundle does; the bundle itself is built here, so a
// stale web/build/explorer/ cannot pass for the sources.
test("the page's bytes: index.html and the explorer bundle, gzipped, within the budget", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'headwise-page-'));
  try {
    copyFileSync(join(ROOT, 'web/index.html'), join(dir, 'index.html'));
    await build({
      configFile: join(ROOT, 'scripts/explorer-bundle.config.js'),
      logLevel: 'warn',
      build: { outDir: join(dir, 'build/explorer') },
    });
    const size = pageSize(`${dir}/`);
    console.log(`page: ${size.raw} bytes, ${size.gzip} gzipped (budget ${PAGE_BUDGET_GZIP_BYTES})`);
    expect(size.gzip, JSON.stringify(size.files)).toBeLessThanOrEqual(PAGE_BUDGET_GZIP_BYTES);
    // The pool's worker is a file of its own, loaded when training starts (build-explorer.sh).
    expect(readFileSync(join(dir, 'build/explorer/explorer.js'), 'utf8')).not.toContain(
      'this worker needs the wasm in its init message',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

describe('the page budget', () => {
  test('the toy and GPT-2 fit, with the default sentence and with 64 tokens; so does width 1024 at 64 tokens', () => {
    for (const tokens of [12, 64]) {
      expect(pageBudgetProblem(config(PRESETS.toy.dModel, PRESETS.toy.heads, tokens))).toBe(null);
      expect(pageBudgetProblem(config(PRESETS.gpt2.dModel, PRESETS.gpt2.heads, tokens))).toBe(null);
      expect(pageBudgetProblem(config(PAGE_MAX_WIDTH, 16, tokens))).toBe(null);
    }
  });

  test('counts weights and multiply-adds as the layer does', () => {
    expect(layerWeights({ dModel: 768, concatWidth: 768 })).toBe(4 * 768 * 768);
    // Four (12 x 768) @ (768 x 768) products, then q k^T and attention @ v over 12 x 12 per head.
    expect(forwardMultiplyAdds({ batch: 1, tokens: 12, dModel: 768, concatWidth: 768 })).toBe(
      4 * 12 * 768 * 768 + 2 * 12 * 12 * 768,
    );
    expect(PAGE_BUDGET.weights).toBe(layerWeights({ dModel: PAGE_MAX_WIDTH, concatWidth: PAGE_MAX_WIDTH }));
  });

  test('width 4096 with 64 heads (and anything wider than 1024) is refused, naming the limit', () => {
    expect(pageBudgetProblem(config(4096, 64))).toBe(
      'width 4096 has 67,108,864 weights; this page computes layers of up to 4,194,304 (width 1024), since a ' +
        'larger one freezes it for a quarter of a second or more; the npm API (createAttention) computes it',
    );
    expect(pageBudgetProblem(config(PAGE_MAX_WIDTH + 2, 2))).toMatch(/^width 1026 has 4,210,704 weights; /);
    expect(pageBudgetProblem(config(12288, 96))).toMatch(/^width 12288 has /);
  });

  test('a long sentence at GPT-2 is refused with the number of tokens that would fit, and that number fits', () => {
    const message = pageBudgetProblem(config(768, 12, 200));
    expect(message).toMatch(
      /^a forward pass of 200 tokens at width 768 is 533,299,200 multiply-adds, more than the 300,000,000 this page/,
    );
    const fit = Number(message.match(/at this size it computes up to (\d+) tokens \(shorten the sentence\)$/)[1]);
    expect(fit).toBe(118);
    expect(pageBudgetProblem(config(768, 12, fit))).toBe(null);
    expect(pageBudgetProblem(config(768, 12, fit + 1))).toMatch(/computes up to 118 tokens/);
  });

  test('many heads over a long sentence are refused by their attention maps; the toy takes 512 tokens', () => {
    expect(pageBudgetProblem(config(6, 2, 512))).toBe(null);
    expect(pageBudgetProblem(config(64, 8, 500))).toBe(
      '8 heads over 500 tokens make 2,000,000 attention weights (heads x T x T), more than the 524,288 (2 heads ' +
        'of 512 tokens) this page computes and draws in one go; at this size it computes up to 256 tokens ' +
        '(shorten the sentence)',
    );
    expect(pageBudgetProblem(config(64, 8, 256))).toBe(null);
    expect(attentionCells({ batch: 2, heads: 3, tokens: 4 })).toBe(96);
    const batch2 = pageBudgetProblem({ ...config(6, 2, 512), batch: 2 });
    expect(batch2).toMatch(/^2 sentences x 2 heads over 512 tokens make 1,048,576 attention weights \(sentences x /);
    expect(batch2).toMatch(/at this size it computes up to 362 tokens/);
  });
});

describe('the owner refuses what the page would freeze on', () => {
  let realHw;
  beforeAll(async () => {
    realHw = await loadHeadwise();
  });
  afterAll(() => expect(realHw.liveLayers()).toBe(0));

  test('width 4096 with 64 heads: shapes only, the limit named, no layer created; then GPT-2 computes', () => {
    const counting = countingModule(realHw);
    const computation = new ExplorerComputation(counting.hw);
    const parts = ['fused', 'loop', 'steps', 'wOut'];
    try {
      const wide = computation.compute({ ...defaultOptions(), dModel: 4096, heads: 64 }, { parts });
      expect(wide.status).toBe('shapes-only');
      expect(wide.message).toMatch(/this page computes layers of up to 4,194,304 \(width 1024\)/);
      expect(wide.trace.length).toBeGreaterThan(0);
      expect(wide.fused).toBeUndefined();
      expect(counting.calls.map((c) => c.method).sort()).toEqual(['check', 'shapeTrace']);
      const gpt2 = computation.compute({ ...defaultOptions(), dModel: 768, heads: 12 }, { parts });
      expect(gpt2.status).toBe('ok');
      expect(gpt2.loop.maxDiff).toBeLessThan(1e-5);
    } finally {
      computation.dispose();
    }
  });
});

describe('the sliced render', () => {
  test('the owner work before a panel is drawn: the base first, then one new part per slice', () => {
    const parts = { input: [], why: ['why'], steps: ['fused', 'steps'], heads: ['fused', 'wOut'] };
    expect(partSteps(['steps'], [], parts)).toEqual([[], ['fused'], ['fused', 'steps']]);
    expect(partSteps(['heads'], ['fused', 'steps'], parts)).toEqual([
      ['fused', 'steps'],
      ['fused', 'steps', 'wOut'],
    ]);
    expect(partSteps(['input', 'why'], [], parts)).toEqual([[], ['why']]);
    // The page's own table: every part of every panel is computed before that panel is drawn.
    const all = Object.keys(PANEL_PARTS);
    expect(new Set(partSteps(all, [], PANEL_PARTS).at(-1))).toEqual(new Set(Object.values(PANEL_PARTS).flat()));
  });

  // A clock that each slice moves on by its own cost; `later` queues the next task.
  function fakeRun(costs, { stopAfter = Infinity } = {}) {
    let clock = 0;
    const tasks = [[]];
    const queue = [];
    let done = 0;
    let ran = 0;
    const slices = costs.map((ms, k) => () => {
      clock += ms;
      ran += 1;
      tasks.at(-1).push(k);
    });
    runSlices(slices, {
      now: () => clock,
      later: (task) => queue.push(task),
      isCurrent: () => ran < stopAfter,
      onDone: () => {
        done += 1;
      },
    });
    while (queue.length) {
      tasks.push([]);
      queue.shift()();
    }
    return { tasks: tasks.filter((t) => t.length), done };
  }

  test('small slices share a task until it has lasted BUDGET_MS; a large one waits for the next task', () => {
    const small = BUDGET_MS / 4;
    const { tasks, done } = fakeRun([small, small, 30, small, 40, small, small]);
    expect(tasks).toEqual([
      [0, 1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(done).toBe(1);
  });

  test('one slice per task when each is large; a small render in one task', () => {
    expect(fakeRun([30, 30, 30]).tasks).toEqual([[0], [1], [2]]);
    expect(fakeRun([1, 1, 1, 1]).tasks).toEqual([[0, 1, 2, 3]]);
  });

  test('a newer render stops the run: no further slice, no onDone', () => {
    const { tasks, done } = fakeRun([30, 30, 30, 30], { stopAfter: 2 });
    expect(tasks).toEqual([[0], [1]]);
    expect(done).toBe(0);
  });
});
