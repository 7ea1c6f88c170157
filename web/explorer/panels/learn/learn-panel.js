// Panel 7: learn. 1 head and 2 heads (or 1, 2 and 4) at the same width, trained side by side from one
// button, in slices of a few milliseconds per animation frame; live curves, the attention from "?" on the
// lecture's sentence, and a verdict in words once every model's held-out accuracy has settled
// (learn-verdict.js). Pauses out of view. Seed, width and heads are the page's options (learn-seed, ...).
import { PanelFrame } from '../../panel-frame.js';
import { el } from '../../dom.js';
import { curveFigure, mapsFigure } from './learn-charts.js';
import { INDUCTION_INTRO, InductionView } from './induction-view.js';
import { STORY_INTRO, StoryView } from './story-view.js';
import { LearnRuns, learnedPart } from './learn-numbers.js';
import {
  CHECK_EVERY,
  DEFAULT_LEARN_EXPERIMENT,
  DEFAULT_LEARN_HEADS,
  DEFAULT_LEARN_SEED,
  DEFAULT_LEARN_WIDTH,
  LEARN_EXPERIMENTS,
  LEARN_HEAD_CHOICES,
  LEARN_STEPS,
  LEARN_WIDTHS,
  MAX_LEARN_STEPS,
  SAMPLE_WORDS,
} from './learn-verdict.js';

const SLICE_MS = 5;
// The designed heights of a curve's plot and of a row of bars (times the text scale), and how far a
// slide may shrink them to fit its height.
const CURVE_HEIGHT = 150;
const BAR_HEIGHT = 70;
const MIN_SCALE = 0.5;
const pct = (v) => (v === null ? '-' : `${(100 * v).toFixed(1)}%`);
const headsName = (n) => `${n} head${n === 1 ? '' : 's'}`;
const HEAD_CHOICE_TEXT = { '1,2': '1 and 2', '1,2,4': '1, 2 and 4' };
const EXPERIMENT_TEXT = { heads: '1 head vs 2 heads', layers: '1 layer vs 2 layers', story: '1, 2 and 4 heads: story' };
// The experiments drawn from shipped checkpoints (their view, its intro); 'heads' is the panel's own.
const CHECKPOINT_VIEWS = {
  layers: { View: InductionView, intro: INDUCTION_INTRO },
  story: { View: StoryView, intro: STORY_INTRO },
};
const headsIntro = () =>
  `1 head and 2 heads (or 1, 2 and 4) at the same width, trained side by side on "latest verb and latest ` +
  `noun": at "?" the model names the most recent verb and the most recent noun (64 answers, chance 1.6%). ` +
  `The maps show where "?" looks in "${SAMPLE_WORDS.join(' ')}".`;

export class LearnPanel extends PanelFrame {
  #layoutCache = null;

  constructor(host) {
    super('learn', '7. Watch heads learn', headsIntro(), host);
    this.experiment = 'heads';
    this.state = 'idle'; // idle, training, paused, done
    this.session = null;
    this.frame = 0;
    this.away = false;
    const button = (text, onclick) => el('button', { type: 'button', text, onclick });
    this.trainButton = button('Train', () => (this.state === 'training' ? this.pause() : this.start()));
    this.stepButton = button('Step', () => this.stepOnce());
    this.resetButton = button('Reset', () => this.reset());
    // Seed, width and heads are the page's options (learn-seed, learn-width, learn-heads): a change
    // goes to the element, which hands the options back through update().
    this.options = host.options();
    this.seedInput = el('input', { type: 'number', min: 0, step: 1 });
    this.seedInput.addEventListener('change', () => this.#setOption('learn-seed', this.seedInput.value));
    this.control = el('input', { type: 'checkbox' });
    this.control.addEventListener('change', () => this.#resetHeads());
    const choices = (values, text) => values.map((v) => el('option', { value: String(v), text: text(v) }));
    this.widthSelect = el('select', {}, ...choices(LEARN_WIDTHS, String));
    this.widthSelect.addEventListener('change', () => this.#setOption('learn-width', this.widthSelect.value));
    this.headsSelect = el('select', {}, ...choices(Object.keys(LEARN_HEAD_CHOICES), (v) => HEAD_CHOICE_TEXT[v]));
    this.headsSelect.addEventListener('change', () => this.#setOption('learn-heads', this.headsSelect.value));
    // The experiment (learn-experiment): its field sits first in the shown experiment's controls.
    this.experimentSelect = el('select', {}, ...choices(LEARN_EXPERIMENTS, (v) => EXPERIMENT_TEXT[v]));
    this.experimentSelect.addEventListener('change', () =>
      this.#setOption('learn-experiment', this.experimentSelect.value),
    );
    this.#showOptions();
    // On a slide the buttons stay; the fields, the readout and the verdict wait behind Details.
    const field = (label, input) => el('label', { class: 'field details-only' }, el('span', { text: label }), input);
    this.experimentField = field('Experiment', this.experimentSelect);
    // The checkpoint experiments' views ("1 layer vs 2 layers", the story's), each made when its
    // experiment is first shown (its controls are not in the page before); `induction` is the shown one.
    this.views = {};
    this.induction = null;
    this.readout = el('p', { class: 'learn-readout details-only', 'aria-live': 'off' });
    this.verdict = el('p', { class: 'learn-verdict details-only', role: 'status' });
    this.sharesTable = el('table', { class: 'learn-shares' });
    this.headsControls = el(
      'div',
      { class: 'controls', role: 'group', 'aria-label': 'Training' },
      this.trainButton,
      this.stepButton,
      this.resetButton,
      field('Seed', this.seedInput),
      field('Width', this.widthSelect),
      field('Heads', this.headsSelect),
      el(
        'label',
        { class: 'field check details-only' },
        this.control,
        el('span', { text: 'Control: ask only for the verb' }),
      ),
      this.experimentField,
    );
    this.headsPart = el(
      'div',
      { class: 'learn-heads slide-keep' },
      this.headsControls,
      this.readout,
      this.verdict,
      // A table ignores width: its box is the one that is visually hidden.
      el('div', { class: 'visually-hidden details-only' }, this.sharesTable),
    );
    this.body.append(this.headsPart);
  }

  /**
   * Whether the panel shows an experiment of shipped checkpoints (learn-experiment=layers: 1 layer
   * vs 2 layers; story: 1, 2 and 4 heads on the story task), drawn by `induction`.
   */
  get layers() {
    return this.experiment in CHECKPOINT_VIEWS;
  }

  // Shows one experiment's controls, text and figures; the others' training pauses.
  #showExperiment(experiment) {
    if (experiment === this.experiment && this.headsPart.hidden === experiment in CHECKPOINT_VIEWS) return;
    const spec = CHECKPOINT_VIEWS[experiment];
    if (spec) this.#pauseHeads();
    this.experiment = experiment;
    this.headsPart.hidden = Boolean(spec);
    if (spec && !this.views[experiment]) {
      this.views[experiment] = new spec.View(this);
      this.body.append(this.views[experiment].element);
    }
    for (const [name, view] of Object.entries(this.views)) if (name !== experiment) view.show(false);
    this.induction = spec ? this.views[experiment] : null;
    this.induction?.show(true);
    // First among the checkpoints' two buttons; last after the heads experiment's seed, width and heads.
    if (spec) this.induction.controls.prepend(this.experimentField);
    else this.headsControls.append(this.experimentField);
    this.section.querySelector('.intro').textContent = spec ? spec.intro : headsIntro();
    this.#layoutCache = null;
    if (!spec) this.#setState(this.state);
  }

  config() {
    const o = this.options;
    return {
      seed: o.learnSeed,
      variant: this.control.checked ? 'verb' : 'verb-noun',
      dModel: o.learnWidth,
      headCounts: LEARN_HEAD_CHOICES[o.learnHeads],
    };
  }

  // A control read through the options' own reader: an unusable value is named and put back.
  #setOption(name, raw) {
    try {
      this.host.setConfig({ [name]: String(raw) });
    } catch (error) {
      this.status(error.message, 'error');
      this.#showOptions();
    }
  }

  #showOptions() {
    const o = this.options;
    this.seedInput.value = String(o.learnSeed);
    this.widthSelect.value = String(o.learnWidth);
    this.headsSelect.value = o.learnHeads;
    this.experimentSelect.value = o.learnExperiment;
  }

  // The options from the element; a new seed, width or heads starts a new run.
  #useOptions(o) {
    this.options = o;
    this.#showOptions();
    if (!this.session) return;
    const want = this.config();
    const have = this.session.config;
    const same = ['seed', 'dModel', 'variant'].every((k) => want[k] === have[k]);
    if (!same || want.headCounts.join() !== have.headCounts.join()) this.#resetHeads();
  }

  update(o) {
    if (o) this.#useOptions(o);
    this.#showExperiment(this.options.learnExperiment);
    if (this.layers) this.induction.update();
    else if (!this.session) this.#newSession();
    else this.draw();
  }

  #newSession() {
    try {
      this.session = this.host.kept(this.id).learnSession(this.config());
    } catch (error) {
      this.session = null;
      this.status(`Cannot train: ${error.message}`, 'error');
      return false;
    }
    this.verdict.textContent = '';
    this.#setState('idle');
    this.draw();
    return true;
  }

  #setState(state) {
    this.state = state;
    if (!this.layers) this.section.dataset.learnState = state;
    this.trainButton.textContent = state === 'training' ? 'Pause' : 'Train';
    this.trainButton.disabled = state === 'done';
    this.stepButton.disabled = state === 'done';
  }

  /** Starts (or resumes) training; returns the state. */
  start() {
    if (this.layers) return this.induction.start();
    return this.trainHeads();
  }

  /**
   * Starts (or resumes) the "1 head vs 2 heads" run whichever experiment is shown (the panels that
   * show its trained heads ask for it); returns its summary.
   */
  trainHeads() {
    if (!this.session && !this.#newSession()) return this.headsSummary();
    if (this.state === 'done') return this.headsSummary();
    const first = this.session.step === 0 && this.state !== 'training';
    this.#setState('training');
    this.#loop();
    if (first) this.host.changed('learned'); // the panels that show the trained heads say a run is under way
    return this.headsSummary();
  }

  pause() {
    if (this.layers) return this.induction.pause();
    return this.#pauseHeads();
  }

  #pauseHeads() {
    if (this.state !== 'training') return this.headsSummary();
    cancelAnimationFrame(this.frame);
    this.#setState('paused');
    return this.headsSummary();
  }

  reset() {
    if (this.layers) return this.induction.reset();
    return this.#resetHeads();
  }

  #resetHeads() {
    cancelAnimationFrame(this.frame);
    const trained = Boolean(this.session?.verdict);
    this.session = null;
    this.#newSession();
    if (trained) this.host.changed('learned');
    return this.summary();
  }

  stepOnce() {
    if (!this.session && !this.#newSession()) return;
    this.#pauseHeads();
    if (!this.session.checkStep()) this.session.slice(0);
    this.#redraw();
  }

  /** The element was disconnected and its module's runs freed: a reconnect starts a new one. */
  unload() {
    this.suspend();
    this.session = null;
  }

  /** The element left the view: stop the frames; wake() picks up where it stopped. */
  suspend() {
    cancelAnimationFrame(this.frame);
    this.away = true;
    this.induction?.suspend();
  }

  wake() {
    this.away = false;
    this.induction?.wake();
    if (this.session?.runs[0].trainer.disposed) this.session = null;
    if (this.state === 'training') this.#loop();
    if (this.state === 'settling') this.#settle();
  }

  // A frame either trains or draws, never both, so that neither adds to the other in one task: two
  // frames of training (one slice of about SLICE_MS each), then one that refreshes the maps and
  // redraws (about 20 redraws a second), and a last draw when the run ends.
  #loop() {
    cancelAnimationFrame(this.frame);
    if (this.away) return;
    this.frame = requestAnimationFrame(() => {
      if (this.state !== 'training' || this.away || !this.session) return;
      const t0 = performance.now();
      this.frames = (this.frames ?? 0) + 1;
      // A held-out check (one module call) takes a frame of its own.
      const checked = !this.session.done && this.session.checkStep();
      const drawFrame = !checked && (this.frames % 3 === 0 || this.session.done);
      if (drawFrame) this.#redraw();
      else if (!checked) this.session.slice(SLICE_MS);
      const ms = performance.now() - t0;
      // The panel's own work per frame, for the budget tests and bench/.
      const d = this.section.dataset;
      const key = drawFrame ? 'maxDrawMs' : 'maxSliceMs';
      d[key] = Math.max(ms, Number(d[key] ?? 0)).toFixed(1);
      if (this.state === 'training') this.#loop();
    });
  }

  #redraw() {
    const s = this.session;
    s.refreshMaps();
    if (!this.layers) this.draw();
    if (s.done) this.#settle();
  }

  // The held-out evaluation, one module call per frame (each one is 5-25 ms).
  #settle() {
    const s = this.session;
    this.state = 'settling';
    if (!this.layers) {
      this.section.dataset.learnState = 'settling';
      this.status('Measuring the answers on 2048 held-out sequences...');
    }
    this.frame = requestAnimationFrame(() => {
      if (this.session !== s) return;
      if (this.away) {
        this.frame = 0;
        return;
      }
      const verdict = s.settleStep();
      if (!verdict) {
        this.#settle();
        return;
      }
      this.verdict.textContent = this.headsSummary().verdict;
      this.verdict.dataset.stuck = String(verdict.stuck);
      this.#setState('done');
      this.draw();
      this.host.changed('learned');
    });
  }

  /** What the slide says (its point): the shown experiment's result in a sentence. */
  pointText() {
    if (this.layers) return this.induction.pointText();
    const s = this.session;
    if (!s) return 'Press Train: 1 head and 2 heads learn to name the latest verb and noun.';
    if (s.verdict) return s.verdict.point;
    if (s.step === 0) {
      const runs = s.runs.map((r) => headsName(r.heads)).join(' and ');
      return `Press Train: ${runs}, side by side, learn to name the latest verb and noun at "?" (chance 1.6%).`;
    }
    const accuracies = s.runs.map((r) => `${headsName(r.heads)} ${pct(r.accuracy)}`).join(', ');
    return `Step ${s.step}, naming the latest verb and noun (training, smoothed): ${accuracies}.`;
  }

  /** A plain summary for getState and slide messages. */
  summary() {
    if (this.layers) return this.induction.summary();
    return this.headsSummary();
  }

  /** The "1 head vs 2 heads" run's summary, whichever experiment is shown. */
  headsSummary() {
    const s = this.session;
    return {
      state: this.state,
      step: s?.step ?? 0,
      // At least LEARN_STEPS, at most MAX_LEARN_STEPS: each model trains on until it settles.
      steps: { min: LEARN_STEPS, max: MAX_LEARN_STEPS },
      ...(s ? s.config : this.config()),
      runs: (s?.runs ?? []).map((r) => ({ heads: r.heads, accuracy: r.accuracy, loss: r.loss, result: r.result })),
      verdict: s?.verdict ? `${s.verdict.text} ${s.verdict.settled}` : null,
    };
  }

  draw() {
    if (this.layers) {
      this.induction.draw();
      return;
    }
    const s = this.session;
    if (!s) return;
    this.section.dataset.step = String(s.step);
    this.section.dataset.trainMs = s.trainMs.toFixed(1);
    this.section.dataset.accuracy = s.runs.map((r) => (r.accuracy ?? 0).toFixed(4)).join(' ');
    const accuracies = s.runs.map((r) => `${headsName(r.heads)} ${pct(r.accuracy)}`).join(', ');
    const settled = s.runs.filter((r) => r.settled && !s.done).map((r) => headsName(r.heads));
    this.readout.textContent =
      `Step ${s.step} (${s.trainMs.toFixed(0)} ms of training). Training accuracy, smoothed: ${accuracies}.` +
      (settled.length ? ` Settled, no longer training: ${settled.join(', ')}.` : '');
    this.status(
      this.state === 'done'
        ? 'Done: the verdict on 2048 held-out sequences.'
        : `${this.state === 'training' ? 'Training' : 'Ready'}: ${s.config.headCounts.join(', ')} heads, ` +
            `seed ${s.config.seed}, width ${s.config.dModel}` +
            `${s.config.variant === 'verb' ? ', control task (latest verb only)' : ''}. Each model trains ` +
            `${LEARN_STEPS} steps, then on until its held-out accuracy (checked every ${CHECK_EVERY} steps) ` +
            `stops rising, at most ${MAX_LEARN_STEPS}.`,
    );
    this.#fillTable();
    // The x axis grows past LEARN_STEPS in steps of 500 while a model trains on.
    const maxSteps = Math.max(LEARN_STEPS, Math.ceil(s.step / 500) * 500);
    const layout = this.#layout(s.runs);
    this.figureArea.classList.add('grid');
    this.figureArea.style.setProperty('--columns', String(layout.across));
    this.showFigures(this.#items(s.runs, maxSteps, layout));
  }

  /**
   * The figures, each { figure, span }: the two curves, then the maps of each run. With two a row, an
   * odd last map (the 4 heads' heatmap) takes the whole row.
   */
  #items(runs, maxSteps, { across, width, full, scale }) {
    const textScale = this.textScale;
    const curve = { runs, maxSteps, maxWidth: width, textScale, height: CURVE_HEIGHT * scale };
    const rowHeight = BAR_HEIGHT * scale;
    const last = across === 2 && runs.length % 2 === 1 ? runs.length - 1 : -1;
    return [
      { figure: curveFigure({ ...curve, key: 'accuracy', title: 'Accuracy' }) },
      { figure: curveFigure({ ...curve, key: 'loss', title: 'Loss', yMax: 5 }) },
      ...runs.map((run, r) => {
        const maxWidth = r === last ? full : width;
        return {
          figure: mapsFigure({ run, words: SAMPLE_WORDS, maxWidth, textScale, rowHeight }),
          span: r === last ? 2 : 0,
        };
      }),
    ];
  }

  /**
   * How the figures stand: `across` a row, each at most `width` wide (`full` for one that spans the
   * row), the curves' plots and the bars' rows `scale` times their designed height. All in one row on
   * a wide page (four, or five with 4 heads), two a row where one figure fits half the width (a
   * slide, a laptop; three a row on a slide with three runs), else one. On a slide the heights shrink (to MIN_SCALE at
   * most) until the rows fit the height left, so that the text keeps the slide's size; fitToFrame
   * takes up what rounding leaves.
   */
  #layout(runs) {
    const k = this.textScale;
    const full = this.drawWidth;
    const available = this.heightBelow(this.figureArea);
    const key = [full, available, k, runs.map((r) => r.heads).join()].join('|');
    if (this.#layoutCache?.key === key) return this.#layoutCache.layout;
    const style = getComputedStyle(this.figureArea);
    const gap = parseFloat(style.rowGap) || 12;
    const narrowest = Math.max(
      ...this.#items(runs, LEARN_STEPS, { across: 1, width: 0, full: 0, scale: 1 }).map((i) => i.figure.width),
    );
    const fits = (n) => n === 1 || (full - gap * (n - 1)) / n >= narrowest;
    // On a slide three runs' five figures go three a row: two rows fit its height, three do not.
    const threeRows = Number.isFinite(available) && runs.length > 2;
    const across = [2 + runs.length, ...(threeRows ? [3] : []), 2, 1].find(fits);
    const width = across === 1 ? full : Math.floor((full - gap * (across - 1)) / across);
    // The height of the figures at `scale`, row by row.
    const height = (scale) => {
      const rows = [];
      let used = across;
      for (const { figure, span } of this.#items(runs, LEARN_STEPS, { across, width, full, scale })) {
        if (used + (span || 1) > across) [used, rows[rows.length]] = [0, 0];
        used += span || 1;
        rows[rows.length - 1] = Math.max(rows.at(-1), figure.height);
      }
      return rows.reduce((a, b) => a + b, 0) + gap * (rows.length - 1);
    };
    let scale = 1;
    // 4 px to spare for rounding, and the figure area's bottom margin (fitToFrame keeps both).
    const room = available - 4 - (parseFloat(style.marginBottom) || 0);
    const [h1, h0] = Number.isFinite(available) ? [height(1), height(MIN_SCALE)] : [0, 0];
    // Shrunk only where that makes them fit (beside the text on a 16:9 slide); below the text on a
    // phone held upright the panel scrolls, and the figures keep their designed heights.
    if (h1 > room && h0 <= room * 1.25) {
      // Heights grow linearly with the scale: one solve, then small steps for the rounding.
      scale = Math.max(MIN_SCALE, Math.min(1, MIN_SCALE + ((1 - MIN_SCALE) * (room - h0)) / (h1 - h0)));
      for (let pass = 0; pass < 4 && scale > MIN_SCALE && height(scale) > room; pass += 1)
        scale = Math.max(MIN_SCALE, scale - 0.03);
    }
    const layout = { across, width, full, scale };
    this.#layoutCache = { key, layout };
    return layout;
  }

  // The attention from "?" as numbers, for screen readers and tests.
  #fillTable() {
    const rows = [];
    const head = el('tr', {}, el('th', { text: 'run, head' }), ...SAMPLE_WORDS.map((w) => el('th', { text: w })));
    for (const run of this.session.runs) {
      run.maps.forEach((values, h) => {
        const cells = values.map((v) => el('td', { text: v.toFixed(3) }));
        const tr = el('tr', { 'data-heads': String(run.heads), 'data-head': String(h) }, el('th', {}), ...cells);
        tr.firstChild.textContent = `${run.heads} head${run.heads === 1 ? '' : 's'}, head ${h + 1}`;
        rows.push(tr);
      });
    }
    this.sharesTable.replaceChildren(el('caption', { text: 'Attention from "?"' }), head, ...rows);
  }

  exportData() {
    if (this.layers) return this.induction.exportData();
    return { panel: 'learn', ...this.summary(), words: SAMPLE_WORDS, maps: this.session?.runs.map((r) => r.maps) };
  }
}

export default {
  id: 'learn',
  label: 'Learn',
  options: [
    // The runs' own seed and width (the task's model, not the layer above), and the runs side by side.
    { name: 'learn-seed', range: [0, 0xffffffff], fallback: DEFAULT_LEARN_SEED },
    { name: 'learn-width', choices: LEARN_WIDTHS, fallback: DEFAULT_LEARN_WIDTH },
    { name: 'learn-heads', choices: Object.keys(LEARN_HEAD_CHOICES), fallback: DEFAULT_LEARN_HEADS },
    // Which experiment the panel shows: 1 head vs 2 heads, 1 layer vs 2 layers (induction), or 1, 2
    // and 4 heads on the story task.
    { name: 'learn-experiment', choices: LEARN_EXPERIMENTS, fallback: DEFAULT_LEARN_EXPERIMENT },
    // How "Train live" of 1 layer vs 2 layers trains: a worker per model, or each model's batches
    // split across the page's shared pool (induction-live.js).
    { name: 'learn-split', choices: ['model', 'data'], fallback: 'model' },
  ],
  numbers: { learned: learnedPart },
  keeps: (hw, settings) => new LearnRuns(hw, settings),
  // On a slide: the shown experiment's result in a sentence, its figures, its train button.
  slide: { point: (view) => view.pointText() },
  // The training, for slide decks: start (or resume), pause, reset, and its state.
  commands: {
    startTraining: { run: ({ view }) => view.start(), needsModule: true },
    pauseTraining: { run: ({ view }) => view.pause() },
    resetTraining: { run: ({ view }) => view.reset(), needsModule: true },
    trainingState: { run: ({ view }) => view.summary(), message: 'getTraining' },
  },
  View: LearnPanel,
};
