// One Learn run: 1 head and 2 heads at the same width, trained side by side in slices of a few
// milliseconds (the page stays responsive). Made by the computation owner from the public API's
// createTrainer; the panel drives it and draws its curves and maps.
import { LEARN_STEPS, SAMPLE_WORDS, settledNote, smooth, verdictOf } from './learn-verdict.js';

const CURVE_EVERY = 4; // steps between the points of a curve

let sessionsMade = 0;

export class LearnSession {
  constructor(hw, { seed, variant, dModel, headCounts = [1, 2] }) {
    /** Tells this run from the one before (what a panel has drawn, a remembered result). */
    this.id = ++sessionsMade;
    this.config = Object.freeze({ seed, variant, dModel, headCounts: Object.freeze([...headCounts]) });
    this.runs = headCounts.map((heads) => ({
      heads,
      trainer: hw.createTrainer({ heads, dModel, seed, variant }),
      curve: [], // { step, loss, accuracy } smoothed
      loss: null,
      accuracy: null,
      maps: null,
      result: null,
    }));
    this.step = 0;
    this.trainMs = 0;
    this.verdict = null;
    this.refreshMaps();
    // The same models before any step: random weights, for the panels that show the difference.
    for (const run of this.runs) run.untrainedMaps = run.maps;
  }

  get done() {
    return this.step >= LEARN_STEPS;
  }

  /** Trains for about budgetMs (at least one chunk); returns the steps taken. */
  slice(budgetMs = 5) {
    if (this.done) return 0;
    const t0 = performance.now();
    let taken = 0;
    // One step per call, alternating the runs, so the budget is checked often even while the
    // module still runs its first (baseline) code.
    while (!this.done && (taken === 0 || performance.now() - t0 < budgetMs)) {
      for (const run of this.runs) {
        const r = run.trainer.step(1);
        run.loss = smooth(run.loss, r.loss, 0.97);
        run.accuracy = smooth(run.accuracy, r.accuracy, 0.97);
      }
      this.step += 1;
      taken += 1;
      if (this.step % CURVE_EVERY === 0 || this.done) {
        for (const run of this.runs) run.curve.push({ step: this.step, loss: run.loss, accuracy: run.accuracy });
      }
    }
    this.trainMs += performance.now() - t0;
    return taken;
  }

  /** Attention from "?" on the sample sequence, per head of each run. */
  refreshMaps() {
    for (const run of this.runs) run.maps = run.trainer.attentionFrom(SAMPLE_WORDS).heads.map((h) => Array.from(h));
  }

  /**
   * Held-out accuracy and head shares (each ~5-25 ms), one module call per call so that each
   * can have its own frame; returns the verdict after the last one, null before.
   */
  settleStep() {
    if (this.verdict) return this.verdict;
    const run = this.runs.find((r) => !r.result || !r.result.shares);
    if (!run) return this.verdict;
    if (!run.result) {
      run.result = { heads: run.heads, accuracy: run.trainer.evaluate().accuracy, shares: null };
    } else {
      run.result.shares = run.trainer.headShares();
    }
    if (this.runs.every((r) => r.result?.shares)) {
      const verdict = verdictOf(
        this.runs.map((r) => r.result),
        this.config.variant,
      );
      this.verdict = Object.freeze({ ...verdict, settled: settledNote(this.runs, this.step) });
    }
    return this.verdict;
  }

  dispose() {
    for (const run of this.runs) run.trainer.dispose();
  }
}
