// What the Learn panel (panel 7) trained, shown inside another panel beside that panel's own maps:
// the attention from "?" on the task's sample sequence, one heatmap row per head. The trained state
// lives in the computation owner's Learn session; a panel gets a frozen copy of it as
// `computed.learned` (null until a run is done) and draws it here. Before that, a sentence says
// what the trained heads would show and a button trains on demand.
import { drawOnCanvases } from './panel-frame.js';
import { el } from './dom.js';
import { heatmapFigure, heatmapTable } from './heatmap.js';

const headsName = (n) => `${n} head${n === 1 ? '' : 's'}`;

export class LearnedView {
  #drawnKey = ''; // the width the maps were last drawn at, '' when they are to be drawn again

  /**
   * host: the panel's host (palette, train, trainingState). maps(learned): the figures to draw,
   * [{ run, kind: 'trained' | 'untrained', title }]; text(learned): the sentence under them.
   */
  constructor(host, { maps, text, untrained }) {
    this.host = host;
    this.maps = maps;
    this.text = text;
    this.untrainedText = untrained;
    this.learned = null;
    this.figures = [];
    this.tableMakers = [];
    this.note = el('p', { class: 'learned-note' });
    this.button = el('button', { type: 'button', text: 'Train in panel 7', onclick: () => this.#train() });
    this.area = el('div', { class: 'figures row learned-maps' });
    // The numbers drawn, for screen readers and tests; a table ignores width, so its box is hidden.
    this.table = el('table', { class: 'learned-table' }, this.#caption());
    this.element = el(
      'div',
      { class: 'learned', 'data-learned': 'false' },
      el('div', { class: 'controls' }, this.note, this.button),
      this.area,
      el('div', { class: 'visually-hidden' }, this.table),
    );
  }

  update(learned) {
    this.learned = learned ?? null;
    this.element.dataset.learned = String(Boolean(this.learned));
    this.button.hidden = Boolean(this.learned);
    if (this.learned) this.note.textContent = this.text(this.learned);
    else if (['training', 'paused', 'settling'].includes(this.host.trainingState?.().state)) this.#training();
    else {
      this.note.textContent = this.untrainedText;
      this.button.disabled = false;
    }
    this.#drawnKey = '';
  }

  /**
   * Draws the maps (once per result and width: a hover redraw of the panel costs nothing here);
   * returns the makers of their tables.
   */
  draw(width) {
    if (`${width}` === this.#drawnKey) return this.tableMakers;
    this.#drawnKey = `${width}`;
    this.tableMakers = [];
    if (!this.learned) {
      this.figures = [];
      this.area.replaceChildren();
      this.table.replaceChildren(this.#caption());
      return this.tableMakers;
    }
    const { words } = this.learned;
    const shown = this.maps(this.learned);
    const each = width >= 640 ? Math.floor(width / shown.length) - 12 : width;
    const spec = ({ run, kind, title }) => ({
      values: Float32Array.from(run[kind].flat()),
      rows: run.heads,
      cols: words.length,
      rowLabels: run[kind].map((_, h) => `head ${h + 1}`),
      colLabels: words,
      scale: 'probability',
      title,
    });
    const items = shown.map((m) => {
      const common = spec(m);
      return {
        figure: heatmapFigure({ ...common, maxWidth: each }),
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
    return el('caption', { text: 'Attention from "?", learned in panel 7' });
  }

  #training() {
    this.note.textContent = 'Training in panel 7: the trained heads appear here when its run is done.';
    this.button.disabled = true;
  }

  #train() {
    try {
      this.host.train();
      this.#training();
    } catch (error) {
      this.note.textContent = `Cannot train: ${error.message}`;
    }
  }

  exportData() {
    return this.learned;
  }
}
