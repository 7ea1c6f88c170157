// One Learn run: 1 head and 2 heads (or 1, 2 and 4) at the same width, trained side by side in
// slices of a few milliseconds (the page stays responsive). Made by the computation owner from the
// public API's createTrainer; the panel drives it and draws its curves and maps. Every CHECK_EVERY
// steps each model is measured on its held-out set (one module call per frame); a model that has
// settled (learn-verdict.js) stops training, and when all have, the verdict is measured.
import {
  CHECK_EVERY,
  hasSettled,
  MAX_LEARN_STEPS,
  SAMPLE_WORDS,
  settledNote,
  smooth,
  verdictOf,
} from './learn-verdict.js';

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
      steps: 0,
      curve: [], // { step, loss, accuracy } smoothed
      checks: [], // { step, accuracy } on the held-out set
      settled: false,
      loss: null,
      accuracy: null,
      maps: null,
      result: null,
    }));
    this.trainMs = 0;
    this.verdict = null;
    this.refreshMaps();
    // The same models before any step: random weights, for the panels that show the difference.
    for (const run of this.runs) run.untrainedMaps = run.maps;
  }

  /** The steps of the model that has trained longest. */
  get step() {
    return Math.max(...this.runs.map((r) => r.steps));
  }

  /** Every model has settled (or reached MAX_LEARN_STEPS). */
  get done() {
    return this.runs.every((r) => r.settled);
  }

  /** Models that have reached a check and wait for their held-out measurement. */
  get checking() {
    return this.runs.some((r) => this.#dueCheck(r));
  }

  #dueCheck(run) {
    return !run.settled && run.steps > 0 && run.steps % CHECK_EVERY === 0 && run.checks.at(-1)?.step !== run.steps;
  }

  /**
   * Trains for about budgetMs (at least one step); returns the steps taken. Stops at a check
   * (see checkStep): the models that are still training go in step with each other.
   */
  slice(budgetMs = 5) {
    if (this.done || this.checking) return 0;
    const t0 = performance.now();
    let taken = 0;
    const training = this.runs.filter((r) => !r.settled);
    // One step per call, alternating the runs, so the budget is checked often even while the
    // module still runs its first (baseline) code.
    while (!this.checking && (taken === 0 || performance.now() - t0 < budgetMs)) {
      for (const run of training) {
        const r = run.trainer.step(1);
        run.steps += 1;
        run.loss = smooth(run.loss, r.loss, 0.97);
        run.accuracy = smooth(run.accuracy, r.accuracy, 0.97);
        if (run.steps % CURVE_EVERY === 0) run.curve.push({ step: run.steps, loss: run.loss, accuracy: run.accuracy });
      }
      taken += 1;
    }
    this.trainMs += performance.now() - t0;
    return taken;
  }

  /** One model's held-out measurement at a check (5-25 ms); whether one was due. */
  checkStep() {
    const run = this.runs.find((r) => this.#dueCheck(r));
    if (!run) return false;
    const t0 = performance.now();
    run.checks.push({ step: run.steps, accuracy: run.trainer.evaluate().accuracy });
    run.settled = hasSettled(run.checks) || run.steps >= MAX_LEARN_STEPS;
    this.trainMs += performance.now() - t0;
    return true;
  }

  /** Attention from "?" on the sample sequence, per head of each run. */
  refreshMaps() {
    for (const run of this.runs) run.maps = run.trainer.attentionFrom(SAMPLE_WORDS).heads.map((h) => Array.from(h));
  }

  /**
   * After training: per model the head shares, then its held-out answers (evaluate(): the share
   * with the right verb and with the right noun), one module call (5-25 ms) per call so that each
   * can have its own frame; returns the verdict after the last one, null before.
   */
  settleStep() {
    if (this.verdict || !this.done) return this.verdict;
    const run = this.runs.find((r) => !r.result?.answers);
    if (!run.result) {
      run.result = { heads: run.heads, accuracy: run.checks.at(-1).accuracy, shares: run.trainer.headShares() };
    } else {
      const { accuracy, parts } = run.trainer.evaluate();
      run.result.answers = {
        answers: run.trainer.options.evalSize,
        rightVerb: parts.verb,
        rightNoun: parts.noun ?? null,
        right: accuracy,
      };
    }
    if (this.runs.every((r) => r.result?.answers)) {
      const verdict = verdictOf(
        this.runs.map((r) => r.result),
        this.config.variant,
      );
      this.verdict = Object.freeze({ ...verdict, settled: settledNote(this.runs) });
    }
    return this.verdict;
  }

  dispose() {
    for (const run of this.runs) run.trainer.dispose();
  }
}
