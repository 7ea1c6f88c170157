// What the Learn panel (panel 7) trained, shown inside another panel beside that panel's own maps:
// the attention from "?" on the task's sample sequence, one heatmap row per head. The trained state
// lives in the computation owner's Learn session; a panel gets a frozen copy of it as
// `computed.learned` (null until a run is done) and draws it here. Before that, a sentence says
// what the trained heads would show and a Train button starts that same run in place (the Learn
// panel need not be on the page: a one-panel slide trains too), with its progress said here.
import { drawOnCanvases } from '../../panel-frame.js';
import { el } from '../../dom.js';
import { heatmapFigure, heatmapTable } from '../../figures/heatmap.js';
import { LEARN_STEPS } from './learn-verdict.js';

const headsName = (n) => `${n} head${n === 1 ? '' : 's'}`;
const listed = (items) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : items[0]);
const UNDER_WAY = ['training', 'paused', 'settling'];
const PROGRESS_EVERY_MS = 250;
const TRAIN = 'Train the heads';

/** What a run under way has done, in words: `state` is the Learn panel's summary(). */
export function progressText(state) {
  const heads = `${listed(state.headCounts.map(String))} heads`;
  if (state.state === 'settling') return `Trained ${heads}: measuring them on 2048 held-out sequences...`;
  const accuracy = state.runs
    .filter((r) => r.accuracy !== null && r.accuracy !== undefined)
    .map((r) => `${headsName(r.heads)} ${Math.round(100 * r.accuracy)}%`);
  const past = state.step > state.steps.min ? ', on until the held-out accuracy settles' : '';
  return (
    `${state.state === 'paused' ? 'Paused' : 'Training'} ${heads}: step ${state.step} of at least ` +
    `${state.steps.min}${past} (at most ${state.steps.max}).` +
    (accuracy.length ? ` Training accuracy: ${accuracy.join(', ')}.` : '')
  );
}

export class LearnedView {
  #drawnKey = ''; // the layout the maps were last drawn at, '' when they are to be drawn again
  #timer = 0;

  /**
   * host: the panel's host (palette, kept, view, options). maps(learned): the figures to draw,
   * [{ run, kind: 'trained' | 'untrained', title }]; text(learned): the sentence under them.
   * The maps' `area` is the panel's to place (beside its own figures on a slide).
   */
  constructor(host, { maps, text, untrained }) {
    this.host = host;
    this.maps = maps;
    this.text = text;
    this.untrainedText = untrained;
    this.learned = null;
    this.figures = [];
    this.tableMakers = [];
    this.note = el('p', { class: 'learned-note', 'aria-live': 'polite' });
    this.button = el('button', { type: 'button', class: 'train', text: TRAIN, onclick: () => this.#train() });
    this.progress = el('progress', { class: 'learned-progress', max: String(LEARN_STEPS), value: '0', hidden: true });
    this.area = el('div', { class: 'figures row learned-maps' });
    // The numbers drawn, for screen readers and tests; a table ignores width, so its box is hidden.
    this.table = el('table', { class: 'learned-table' }, this.#caption());
    this.element = el(
      'div',
      // slide-keep: on a slide designed as one, its Train button and progress bar stay (styles.js).
      { class: 'learned slide-keep', 'data-learned': 'false' },
      el('div', { class: 'controls' }, this.note, this.button, this.progress),
      el('div', { class: 'visually-hidden' }, this.table),
    );
    this.element.append(this.area);
  }

  update(learned) {
    this.learned = learned ?? null;
    this.element.dataset.learned = String(Boolean(this.learned));
    this.button.hidden = Boolean(this.learned);
    if (this.learned) {
      this.#stopProgress();
      this.note.textContent = this.text(this.learned);
    } else if (UNDER_WAY.includes(this.host.view('learn').headsSummary().state)) this.#training();
    else {
      this.#stopProgress();
      this.note.textContent = this.untrainedText;
      this.button.disabled = false;
      this.button.textContent = TRAIN;
    }
    this.#drawnKey = '';
  }

  /**
   * Draws the maps (once per result and layout: a hover redraw of the panel costs nothing here),
   * `across` a row in `width`, each at most maxHeight tall, text times textScale; returns the
   * makers of their tables.
   */
  draw(width, { across = width >= 640 ? 2 : 1, maxHeight = Infinity, textScale = 1, fill = false } = {}) {
    const key = JSON.stringify([width, across, maxHeight, textScale, fill]);
    if (key === this.#drawnKey) return this.tableMakers;
    this.#drawnKey = key;
    this.tableMakers = [];
    if (!this.learned) {
      this.figures = [];
      this.area.replaceChildren();
      this.table.replaceChildren(this.#caption());
      return this.tableMakers;
    }
    const { words } = this.learned;
    const shown = this.maps(this.learned);
    const n = Math.max(1, Math.min(across, shown.length));
    const each = n > 1 ? Math.floor((width - 12 * (n - 1)) / n) - 1 : width;
    const spec = ({ run, kind, title }) => ({
      values: Float32Array.from(run[kind].flat()),
      rows: run.heads,
      cols: words.length,
      rowLabels: run.labels?.[kind] ?? run[kind].map((_, h) => `head ${h + 1}`),
      colLabels: words,
      scale: 'probability',
      title,
    });
    const items = shown.map((m) => {
      const common = spec(m);
      return {
        figure: heatmapFigure({ ...common, maxWidth: each, maxHeight, textScale, fill }),
        table: () => heatmapTable(common),
        label: `${m.title}: a heatmap of ${headsName(m.run.heads)} by ${words.length} words; the table has the numbers`,
      };
    });
    this.figures = items.map((i) => i.figure);
    drawOnCanvases(this.area, items, this.host.palette());
    this.area.querySelectorAll('canvas').forEach((canvas, k) => {
      if (shown[k]) canvas.dataset.kind = shown[k].kind;
    });
    this.#fillTable(shown, words);
    this.tableMakers = items.map((i) => i.table);
    return this.tableMakers;
  }

  /** The height the maps took when last drawn (0 before a run is done). */
  get height() {
    return this.learned ? this.area.getBoundingClientRect().height : 0;
  }

  #fillTable(shown, words) {
    const head = el('tr', {}, el('th', { text: 'map, head' }), ...words.map((w) => el('th', { text: w })));
    const rows = shown.flatMap(({ run, kind, title }) =>
      run[kind].map((values, h) =>
        el(
          'tr',
          { 'data-kind': kind, 'data-heads': String(run.heads), 'data-head': String(h) },
          el('th', { text: `${title}, head ${h + 1}` }),
          ...values.map((v) => el('td', { text: v.toFixed(3) })),
        ),
      ),
    );
    this.table.replaceChildren(this.#caption(), head, ...rows);
  }

  #caption() {
    return el('caption', { text: 'Attention from "?", learned by training' });
  }

  // A run is under way (started here, in the Learn panel or by a deck): say how far it is, a few
  // times a second, until its result arrives through update().
  #training() {
    this.button.disabled = true;
    this.button.textContent = 'Training...';
    clearTimeout(this.#timer);
    const state = this.host.view('learn').headsSummary();
    if (!state || !UNDER_WAY.includes(state.state) || !this.element.isConnected) {
      this.#timer = 0;
      return;
    }
    this.note.textContent = progressText(state);
    this.progress.hidden = false;
    this.progress.value = Math.min(state.step, LEARN_STEPS);
    this.element.dataset.step = String(state.step);
    this.#timer = setTimeout(() => this.#training(), PROGRESS_EVERY_MS);
  }

  #stopProgress() {
    clearTimeout(this.#timer);
    this.#timer = 0;
    this.progress.hidden = true;
    delete this.element.dataset.step;
  }

  #train() {
    try {
      this.host.kept('learn'); // throws while the module is not loaded
      const learn = this.host.view('learn');
      learn.update(this.host.options()); // trains also when the Learn panel is hidden
      learn.trainHeads();
      this.#training();
    } catch (error) {
      this.note.textContent = `Cannot train: ${error.message}`;
    }
  }

  exportData() {
    return this.learned;
  }
}
