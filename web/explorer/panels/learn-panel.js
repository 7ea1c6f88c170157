// Panel 7: learn. 1 head and 2 heads at the same width, trained side by side from one button, in
// slices of a few milliseconds per animation frame; live curves, the attention from "?" on the
// lecture's sentence, and a verdict in words when the run settles. Pauses out of view.
import { PanelFrame } from '../panel-frame.js';
import { el } from '../dom.js';
import { curveFigure, mapsFigure } from '../learn-charts.js';
import { DEFAULT_LEARN_SEED, LEARN_STEPS, SAMPLE_WORDS } from '../learn-verdict.js';

const SLICE_MS = 5;
const pct = (v) => (v === null ? '-' : `${(100 * v).toFixed(1)}%`);

export class LearnPanel extends PanelFrame {
  constructor(host) {
    super(
      'learn',
      '7. Watch heads learn',
      `1 head and 2 heads, width 32, trained side by side on "latest verb and latest noun": at "?" the model ` +
        `names the most recent verb and the most recent noun (64 answers, chance 1.6%). The maps show where "?" ` +
        `looks in "${SAMPLE_WORDS.join(' ')}".`,
      host,
    );
    this.state = 'idle'; // idle, training, paused, done
    this.session = null;
    this.frame = 0;
    this.away = false;
    const button = (text, onclick) => el('button', { type: 'button', text, onclick });
    this.trainButton = button('Train', () => (this.state === 'training' ? this.pause() : this.start()));
    this.stepButton = button('Step', () => this.stepOnce());
    this.resetButton = button('Reset', () => this.reset());
    this.seedInput = el('input', { type: 'number', min: 0, step: 1, value: String(DEFAULT_LEARN_SEED) });
    this.seedInput.addEventListener('change', () => this.reset());
    this.control = el('input', { type: 'checkbox' });
    this.control.addEventListener('change', () => this.reset());
    this.widthSelect = el(
      'select',
      {},
      ...[16, 32, 64].map((w) => el('option', { value: String(w), text: String(w) })),
    );
    this.widthSelect.value = '32';
    this.widthSelect.addEventListener('change', () => this.reset());
    const field = (label, input) => el('label', { class: 'field' }, el('span', { text: label }), input);
    this.readout = el('p', { class: 'learn-readout', 'aria-live': 'off' });
    this.verdict = el('p', { class: 'learn-verdict', role: 'status' });
    this.sharesTable = el('table', { class: 'learn-shares' });
    this.body.append(
      el(
        'div',
        { class: 'controls', role: 'group', 'aria-label': 'Training' },
        this.trainButton,
        this.stepButton,
        this.resetButton,
        field('Seed', this.seedInput),
        field('Width', this.widthSelect),
        el('label', { class: 'field check' }, this.control, el('span', { text: 'Control: ask only for the verb' })),
      ),
      this.readout,
      this.verdict,
      // A table ignores width: its box is the one that is visually hidden.
      el('div', { class: 'visually-hidden' }, this.sharesTable),
    );
  }

  config() {
    const seed = Number(this.seedInput.value);
    return {
      seed: Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? seed : DEFAULT_LEARN_SEED,
      variant: this.control.checked ? 'verb' : 'verb-noun',
      dModel: Number(this.widthSelect.value),
    };
  }

  update() {
    if (!this.session) this.#newSession();
    else this.draw();
  }

  #newSession() {
    try {
      this.session = this.host.learnSession(this.config());
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
    this.section.dataset.learnState = state;
    this.trainButton.textContent = state === 'training' ? 'Pause' : 'Train';
    this.trainButton.disabled = state === 'done';
    this.stepButton.disabled = state === 'done';
  }

  /** Starts (or resumes) training; returns the state. */
  start() {
    if (!this.session && !this.#newSession()) return this.summary();
    if (this.state === 'done') return this.summary();
    this.#setState('training');
    this.#loop();
    return this.summary();
  }

  pause() {
    if (this.state !== 'training') return this.summary();
    cancelAnimationFrame(this.frame);
    this.#setState('paused');
    return this.summary();
  }

  reset() {
    cancelAnimationFrame(this.frame);
    this.session = null;
    this.#newSession();
    return this.summary();
  }

  stepOnce() {
    if (!this.session && !this.#newSession()) return;
    this.pause();
    this.session.slice(0);
    this.#afterSlice();
  }

  /** The element left the view: stop the frames; wake() picks up where it stopped. */
  suspend() {
    cancelAnimationFrame(this.frame);
    this.away = true;
  }

  wake() {
    this.away = false;
    if (this.session?.runs[0].trainer.disposed) this.session = null;
    if (this.state === 'training') this.#loop();
    if (this.state === 'settling') this.#settle();
  }

  #loop() {
    cancelAnimationFrame(this.frame);
    if (this.away) return;
    this.frame = requestAnimationFrame(() => {
      if (this.state !== 'training' || this.away || !this.session) return;
      const t0 = performance.now();
      this.session.slice(SLICE_MS);
      const t1 = performance.now();
      this.#afterSlice();
      const d = this.section.dataset;
      d.maxSliceMs = Math.max(t1 - t0, Number(d.maxSliceMs ?? 0)).toFixed(1);
      // The panel's own work in this frame (training, maps, drawing), for the budget tests.
      const ms = performance.now() - t0;
      this.section.dataset.maxFrameMs = Math.max(ms, Number(this.section.dataset.maxFrameMs ?? 0)).toFixed(1);
      if (this.state === 'training' && !this.session.done) this.#loop();
    });
  }

  // The maps and figures are redrawn every third frame while training (about 20 times a second):
  // enough to watch, and it leaves most of each frame to the page.
  #afterSlice() {
    const s = this.session;
    this.slices = (this.slices ?? 0) + 1;
    if (!s.done && this.state === 'training' && this.slices % 3 !== 1) return;
    s.refreshMaps();
    this.draw();
    if (s.done) this.#settle();
  }

  // The held-out evaluation, one module call per frame (each one is 5-25 ms).
  #settle() {
    const s = this.session;
    this.state = 'settling';
    this.section.dataset.learnState = 'settling';
    this.status('Measuring on 2048 held-out sequences...');
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
      this.verdict.textContent = verdict.text;
      this.verdict.dataset.stuck = String(verdict.stuck);
      this.#setState('done');
      this.draw();
    });
  }

  /** A plain summary for getState and slide messages. */
  summary() {
    const s = this.session;
    return {
      state: this.state,
      step: s?.step ?? 0,
      steps: LEARN_STEPS,
      ...(s ? s.config : this.config()),
      runs: (s?.runs ?? []).map((r) => ({ heads: r.heads, accuracy: r.accuracy, loss: r.loss, result: r.result })),
      verdict: s?.verdict?.text ?? null,
    };
  }

  draw() {
    const s = this.session;
    if (!s) return;
    const [a, b] = s.runs;
    this.section.dataset.step = String(s.step);
    this.section.dataset.trainMs = s.trainMs.toFixed(1);
    this.section.dataset.accuracy = s.runs.map((r) => (r.accuracy ?? 0).toFixed(4)).join(' ');
    this.readout.textContent =
      `Step ${s.step} of ${LEARN_STEPS} (${s.trainMs.toFixed(0)} ms of training). Training accuracy, smoothed: ` +
      `1 head ${pct(a.accuracy)}, 2 heads ${pct(b.accuracy)}.`;
    this.status(
      this.state === 'done'
        ? 'Done: accuracy on 2048 held-out sequences below.'
        : `${this.state === 'training' ? 'Training' : 'Ready'}: seed ${s.config.seed}, width ${s.config.dModel}` +
            `${s.config.variant === 'verb' ? ', control task (latest verb only)' : ''}.`,
    );
    this.#fillTable();
    const width = this.drawWidth;
    // Four figures in a row on a wide slide, two on a laptop, one on a phone.
    const across = width >= 1100 ? 4 : width >= 640 ? 2 : 1;
    const half = Math.floor(width / across) - (across > 1 ? 12 : 0);
    const maxSteps = LEARN_STEPS;
    const textScale = this.textScale;
    const curve = { runs: s.runs, maxSteps, maxWidth: half, textScale };
    const items = [
      { figure: curveFigure({ ...curve, key: 'accuracy', title: 'Accuracy' }) },
      { figure: curveFigure({ ...curve, key: 'loss', title: 'Loss', yMax: 5 }) },
      ...s.runs.map((run) => ({ figure: mapsFigure({ run, words: SAMPLE_WORDS, maxWidth: half, textScale }) })),
    ];
    this.showFigures(items, { row: true });
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
    return { panel: 'learn', ...this.summary(), words: SAMPLE_WORDS, maps: this.session?.runs.map((r) => r.maps) };
  }
}
