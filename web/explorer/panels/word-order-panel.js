// Panel 6: word order. Without positions and without the mask, attention treats a sentence as a
// set: "All dogs are animals" and "All animals are dogs" give each word the same output. The causal
// mask breaks that symmetry (a word sees a different set of earlier words), and so do sinusoidal
// positions added to the input: the bridge to the next lecture.
import { PanelFrame } from '../panel-frame.js';
import { el, formatNumber } from '../dom.js';
import { heatmapFigure, heatmapTable } from '../heatmap.js';
import { embedTokens, tokenKey } from '../token-embeddings.js';
import { withPositions } from '../positional-encoding.js';
import { tokenize } from '../tokenizer.js';

export const SENTENCE_A = 'All dogs are animals';
export const SENTENCE_B = 'All animals are dogs';
const MAX_WIDTH_HERE = 1024;
const ZERO = 1e-6;

export class WordOrderPanel extends PanelFrame {
  constructor(host) {
    super('order', '6. Word order', `"${SENTENCE_A}" against "${SENTENCE_B}": the same words in another order. Compare each word's output vector in the two sentences.`, host);
    this.mask = el('input', { type: 'checkbox', class: 'order-mask', onchange: () => this.recompute() });
    this.positions = el('input', { type: 'checkbox', class: 'order-positions', onchange: () => this.recompute() });
    this.result = el('p', { class: 'order-diff', 'aria-live': 'polite' });
    this.why = el('p', { class: 'order-why' });
    this.body.append(el('div', { class: 'controls' },
      el('label', { class: 'field check' }, this.mask, el('span', { text: 'Causal mask' })),
      el('label', { class: 'field check' }, this.positions, el('span', { text: 'Add sinusoidal positions to the input' }))),
      this.result, this.why);
  }

  update(o, c) {
    this.options = o;
    const usable = c?.status === 'ok' && o.dModel <= MAX_WIDTH_HERE;
    this.config = usable ? { dModel: o.dModel, heads: o.heads } : { dModel: 6, heads: 2 };
    const why = c?.status === 'ok' ? 'is wider than this panel computes' : c?.status === 'shapes-only' ? 'is too large to compute here' : 'is not valid';
    this.note = usable ? '' : ` (the lecture's width 6 and 2 heads: the current configuration ${why})`;
    const key = JSON.stringify([this.config, o.seed, this.note]);
    if (key === this.key) return; // the two sentences are fixed: only these inputs matter
    this.key = key;
    this.recompute();
  }

  recompute() {
    const hw = this.host.hw();
    const { dModel, heads } = this.config;
    const a = tokenize(SENTENCE_A).tokens;
    const b = tokenize(SENTENCE_B).tokens;
    const T = a.length;
    const causal = this.mask.checked;
    const positions = this.positions.checked;
    const input = (tokens) => { const x = embedTokens(hw, tokens, dModel); return positions ? withPositions(x, T, dModel) : x; };
    const layer = hw.createAttention({ batch: 1, tokens: T, dModel, heads, causal, seed: this.options.seed });
    let yA; let yB;
    try { yA = layer.forward(input(a)); yB = layer.forward(input(b)); } finally { layer.dispose(); }
    // Row i of bMatched is the output of a[i]'s word where it stands in sentence B.
    const bMatched = new Float32Array(yA.length);
    const diffs = new Float32Array(yA.length);
    const perWord = a.map((word, i) => {
      const j = b.map(tokenKey).indexOf(tokenKey(word));
      bMatched.set(yB.subarray(j * dModel, (j + 1) * dModel), i * dModel);
      let m = 0;
      for (let k = 0; k < dModel; k += 1) { const d = yA[i * dModel + k] - yB[j * dModel + k]; diffs[i * dModel + k] = d; m = Math.max(m, Math.abs(d)); }
      return { word, inA: i, inB: j, maxDiff: m };
    });
    const maxDiff = Math.max(...perWord.map((w) => w.maxDiff));
    this.data = { sentences: [SENTENCE_A, SENTENCE_B], tokens: { a, b }, config: { batch: 1, tokens: T, dModel, heads, causal, seed: this.options.seed }, positions, outputA: yA, outputB: yB, perWord, maxDiff };
    this.result.dataset.value = String(maxDiff);
    const same = maxDiff === 0 ? ' (exactly the same vectors)'
      : maxDiff < ZERO ? ' (the same vectors up to float32 rounding: the sums run over the words in another order)' : '';
    this.result.textContent = `max |difference| over every word's output = ${formatNumber(maxDiff)}${same}. Width ${dModel}, ${heads} heads${this.note}.`;
    if (!causal && !positions) {
      this.why.textContent = 'Without positions and without the mask, attention sees a set of tokens, not a sequence: every word looks at the same words with the same weights in both sentences, so its output is the same. The layer cannot tell who is the animal.';
    } else if (causal && !positions) {
      this.why.textContent = `With the causal mask a word sees only itself and the words before it: "dogs" sees {All, dogs} in the first sentence but all four words in the second. The mask itself leaks position, so the outputs differ.`;
    } else {
      this.why.textContent = 'Sinusoidal positions added to the input make each token vector depend on where it stands, so the same word gets different vectors and the symmetry breaks. This is the bridge to the next lecture: positional encodings.';
    }
    this.status(`Computed by the module just now: causal mask ${causal ? 'on' : 'off'}, positions ${positions ? 'added' : 'off'}.`);
    this.draw();
  }

  draw() {
    if (!this.data) return;
    const { a, b } = this.data.tokens;
    const { dModel } = this.data.config;
    const w = this.drawWidth >= 760 ? Math.floor(this.drawWidth / 3) - 12 : this.drawWidth;
    const maps = [
      { values: this.data.outputA, rows: a.length, cols: dModel, rowLabels: a, title: `"${SENTENCE_A}": outputs` },
      { values: new Float32Array(this.data.perWord.flatMap((p) => Array.from(this.data.outputB.subarray(p.inB * dModel, (p.inB + 1) * dModel)))), rows: a.length, cols: dModel, rowLabels: a.map((word, i) => `${word} (#${this.data.perWord[i].inB + 1})`), title: `"${SENTENCE_B}": same words` },
      { values: new Float32Array(this.data.perWord.flatMap((p) => Array.from(this.data.outputA.subarray(p.inA * dModel, (p.inA + 1) * dModel), (v, k) => v - this.data.outputB[p.inB * dModel + k]))), rows: a.length, cols: dModel, rowLabels: a, title: 'difference, word by word' },
    ];
    void b;
    this.showFigures(maps.map((m) => ({ figure: heatmapFigure({ ...m, maxWidth: w }), table: () => heatmapTable(m) })), { row: true });
  }

  exportData() { return { panel: 'order', ...(this.data ?? {}) }; }
}
