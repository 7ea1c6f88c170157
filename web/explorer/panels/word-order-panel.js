// Panel 6: word order, a view of the page's computation (its two checkboxes are inputs to it).
// Without positions and without the mask, attention treats a sentence as a set: "All dogs are
// animals" and "All animals are dogs" give each word the same output. The causal mask breaks that
// symmetry (a word sees a different set of earlier words), and so do sinusoidal positions added to
// the input: the bridge to the next lecture.
import { PanelFrame } from '../panel-frame.js';
import { el, formatNumber } from '../dom.js';
import { heatmapFigure, heatmapTable } from '../heatmap.js';
import { ORDER_SENTENCES } from '../computation.js';

export const [SENTENCE_A, SENTENCE_B] = ORDER_SENTENCES;
const ZERO = 1e-6;

export class WordOrderPanel extends PanelFrame {
  constructor(host) {
    super(
      'order',
      '6. Word order',
      `"${SENTENCE_A}" against "${SENTENCE_B}": the same words in another order. Compare each word's output ` +
        `vector in the two sentences.`,
      host,
    );
    this.mask = el('input', { type: 'checkbox', class: 'order-mask', onchange: () => host.refresh('order') });
    this.positions = el('input', { type: 'checkbox', class: 'order-positions', onchange: () => host.refresh('order') });
    this.result = el('p', { class: 'order-diff', 'aria-live': 'polite' });
    this.why = el('p', { class: 'order-why' });
    this.body.append(
      el(
        'div',
        { class: 'controls' },
        el('label', { class: 'field check' }, this.mask, el('span', { text: 'Causal mask' })),
        el(
          'label',
          { class: 'field check' },
          this.positions,
          el('span', { text: 'Add sinusoidal positions to the input' }),
        ),
      ),
      this.result,
      this.why,
    );
  }

  /** What this panel's own controls ask of the computation. */
  inputs() {
    return { causal: this.mask.checked, positions: this.positions.checked };
  }

  update(o, c) {
    this.options = o;
    const data = c?.order;
    if (data === this.data) return; // the two sentences are fixed: only the order part matters
    this.data = data;
    if (!data || data.error) {
      this.result.textContent = '';
      delete this.result.dataset.value;
      this.clearFigures();
      this.status(data?.error ? `This panel could not be computed: ${data.error}` : 'Waiting for the module.', 'error');
      return;
    }
    const { dModel, heads, causal } = data.config;
    const { positions, maxDiff } = data;
    const note = data.fallback
      ? ` (the lecture's width 6 and 2 heads: the current configuration ${data.fallback})`
      : '';
    this.result.dataset.value = String(maxDiff);
    const same =
      maxDiff === 0
        ? ' (exactly the same vectors)'
        : maxDiff < ZERO
          ? ' (the same vectors up to float32 rounding: the sums run over the words in another order)'
          : '';
    this.result.textContent =
      `max |difference| over every word's output = ${formatNumber(maxDiff)}${same}. ` +
      `Width ${dModel}, ${heads} heads${note}.`;
    if (!causal && !positions) {
      this.why.textContent =
        'Without positions and without the mask, attention sees a set of tokens, not a sequence: every word ' +
        'looks at the same words with the same weights in both sentences, so its output is the same. The layer ' +
        'cannot tell who is the animal.';
    } else if (causal && !positions) {
      this.why.textContent =
        `With the causal mask a word sees only itself and the words before it: "dogs" sees ` +
        `{All, dogs} in the first sentence but all four words in the second. The mask itself leaks position, so ` +
        `the outputs differ.`;
    } else {
      this.why.textContent =
        'Sinusoidal positions added to the input make each token vector depend on where it stands, so the same ' +
        'word gets different vectors and the symmetry breaks. This is the bridge to the next lecture: positional ' +
        'encodings.';
    }
    this.status(
      `Computed by the module just now: causal mask ${causal ? 'on' : 'off'}, positions ` +
        `${positions ? 'added' : 'off'}.`,
    );
    this.draw();
  }

  draw() {
    if (!this.data || this.data.error) return;
    const { a, b } = this.data.tokens;
    const { dModel } = this.data.config;
    const w = this.drawWidth >= 760 ? Math.floor(this.drawWidth / 3) - 12 : this.drawWidth;
    const maps = [
      { values: this.data.outputA, rows: a.length, cols: dModel, rowLabels: a, title: `"${SENTENCE_A}": outputs` },
      {
        values: new Float32Array(
          this.data.perWord.flatMap((p) =>
            Array.from(this.data.outputB.subarray(p.inB * dModel, (p.inB + 1) * dModel)),
          ),
        ),
        rows: a.length,
        cols: dModel,
        rowLabels: a.map((word, i) => `${word} (#${this.data.perWord[i].inB + 1})`),
        title: `"${SENTENCE_B}": same words`,
      },
      {
        values: new Float32Array(
          this.data.perWord.flatMap((p) =>
            Array.from(
              this.data.outputA.subarray(p.inA * dModel, (p.inA + 1) * dModel),
              (v, k) => v - this.data.outputB[p.inB * dModel + k],
            ),
          ),
        ),
        rows: a.length,
        cols: dModel,
        rowLabels: a,
        title: 'difference, word by word',
      },
    ];
    void b;
    this.showFigures(
      maps.map((m) => ({ figure: heatmapFigure({ ...m, maxWidth: w }), table: () => heatmapTable(m) })),
      { row: true },
    );
  }

  exportData() {
    return { panel: 'order', ...(this.data ?? {}) };
  }
}
