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
// Differences this small are float32 rounding, not a change: 8 float32 steps (2^-20 relative) of
// the largest output, since the two sentences sum the same terms in another order.
const ROUNDING_STEPS = 2 ** -20;

/** The largest |output| over both sentences: the fixed end of every map's colour scale here. */
export function outputScale({ outputA, outputB }) {
  let m = 0;
  for (const v of outputA) m = Math.max(m, Math.abs(v));
  for (const v of outputB) m = Math.max(m, Math.abs(v));
  return m;
}

/** Below this a difference counts (and is drawn) as zero. */
export const float32Zero = (data) => outputScale(data) * ROUNDING_STEPS;

/** One sentence per word: the same or changed, and, with the mask, which words it sees in each. */
export function wordVerdicts(data, zero) {
  const { a, b } = data.tokens;
  const sees = (tokens, i) => `{${tokens.slice(0, i + 1).join(', ')}}`;
  return data.perWord.map((w) => {
    const changed = w.maxDiff >= zero;
    const verdict = changed ? `changed (max |difference| ${formatNumber(w.maxDiff)})` : 'the same vector';
    if (!data.config.causal) return `"${w.word}": ${verdict}.`;
    const setA = a
      .slice(0, w.inA + 1)
      .sort()
      .join();
    const setB = b
      .slice(0, w.inB + 1)
      .sort()
      .join();
    const why =
      setA === setB
        ? `it sees the same words, ${sees(a, w.inA)}, in both sentences`
        : `it sees ${sees(a, w.inA)} in the first sentence but ${sees(b, w.inB)} in the second`;
    return `"${w.word}": ${verdict}: ${why}.`;
  });
}

/**
 * The three maps (first sentence, second sentence's rows in the first's word order, difference),
 * all on one fixed colour scale, the outputs' largest |value|; differences below float32
 * rounding are drawn and printed as 0.
 */
export function orderMaps(data) {
  const { a } = data.tokens;
  const { dModel } = data.config;
  const scale = outputScale(data);
  const zero = float32Zero(data);
  const rowOf = (out, i) => out.subarray(i * dModel, (i + 1) * dModel);
  const common = { rows: a.length, cols: dModel, maxAbs: scale };
  return [
    { ...common, values: data.outputA, rowLabels: a, title: `"${SENTENCE_A}": outputs` },
    {
      ...common,
      values: new Float32Array(data.perWord.flatMap((p) => Array.from(rowOf(data.outputB, p.inB)))),
      rowLabels: a.map((word, i) => `${word} (#${data.perWord[i].inB + 1})`),
      title: `"${SENTENCE_B}": same words`,
    },
    {
      ...common,
      values: new Float32Array(
        data.perWord.flatMap((p) =>
          Array.from(rowOf(data.outputA, p.inA), (v, k) => v - data.outputB[p.inB * dModel + k]),
        ),
      ),
      rowLabels: a,
      zeroBelow: zero,
      title:
        `difference, word by word (the outputs' colour scale, +-${formatNumber(scale)}; below ` +
        `${formatNumber(zero)}, float32 rounding, drawn as 0)`,
    },
  ];
}

export class WordOrderPanel extends PanelFrame {
  constructor(host) {
    super(
      'order',
      '6. Word order',
      `"${SENTENCE_A}" against "${SENTENCE_B}": the same words in another order. Compare each word's output ` +
        `vector in the two sentences.`,
      host,
    );
    // The page's causal option, shown here too: checking it changes every panel's mask.
    this.mask = el('input', {
      type: 'checkbox',
      class: 'order-mask',
      onchange: () => host.onOptions({ causal: this.mask.checked }),
    });
    this.positions = el('input', { type: 'checkbox', class: 'order-positions', onchange: () => host.refresh('order') });
    this.result = el('p', { class: 'order-diff', 'aria-live': 'polite' });
    this.why = el('p', { class: 'order-why' });
    this.verdicts = el('ul', { class: 'order-verdicts', 'aria-label': 'Each word, the same or changed' });
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
      this.verdicts,
    );
  }

  /** What this panel's own control asks of the computation (the mask is the page's causal option). */
  inputs() {
    return { positions: this.positions.checked };
  }

  update(o, c) {
    this.options = o;
    this.mask.checked = o.causal;
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
    const zero = float32Zero(data);
    const same =
      maxDiff === 0
        ? ' (exactly the same vectors)'
        : maxDiff < zero
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
    this.verdicts.replaceChildren(...wordVerdicts(data, zero).map((text) => el('li', { text })));
    this.status(
      `Computed by the module just now: causal mask ${causal ? 'on' : 'off'}, positions ` +
        `${positions ? 'added' : 'off'}.`,
    );
    this.draw();
  }

  draw() {
    if (!this.data || this.data.error) return;
    const w = this.drawWidth >= 760 ? Math.floor(this.drawWidth / 3) - 12 : this.drawWidth;
    const maxHeight = this.heightBelow(this.figureArea) - 8;
    this.showFigures(
      orderMaps(this.data).map((m) => ({
        figure: heatmapFigure({ ...m, maxWidth: w, maxHeight, textScale: this.textScale }),
        table: () => heatmapTable(m),
      })),
      { row: true },
    );
  }

  exportData() {
    return { panel: 'order', ...(this.data ?? {}) };
  }
}
