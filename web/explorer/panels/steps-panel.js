// Panel 3: the five steps of the fused version, each with its live shape, as run one by one
// through the public API by the page's computation; the split step shown as what happens to the
// memory layout (strides). Stepping only redraws.
import { PanelFrame } from '../panel-frame.js';
import { el, formatNumber, shapeText } from '../dom.js';
import { heatmapFigure, heatmapTable } from '../heatmap.js';
import { memoryLayoutFigure, stridesOf } from '../memory-layout.js';

export const STEPS = Object.freeze(['project', 'split', 'attend', 'merge', 'out-project']);
const WHAT = {
  project: 'one large product each: q = x @ Wq, k = x @ Wk, v = x @ Wv',
  split: 'view each of q, k, v as heads, then transpose(1, 2) so heads come before tokens',
  attend: 'per head: softmax(q k^T / sqrt(hd) + causal mask) v',
  merge: 'transpose back and view the heads side by side: the concatenation',
  'out-project': 'output = concat @ W_out: the heads are mixed',
};

export class StepsPanel extends PanelFrame {
  constructor(host) {
    super(
      'steps',
      '3. The five steps',
      'The fused version, as GPT runs it: project, split, attend, merge, out-project. Each shape is live for the ' +
        'current configuration.',
      host,
    );
    this.step = 0;
    this.list = el('ol', { class: 'steps' });
    this.previous = el('button', { type: 'button', text: 'Previous step', onclick: () => this.go(this.step - 1) });
    this.next = el('button', { type: 'button', text: 'Next step', onclick: () => this.go(this.step + 1) });
    this.strides = el('div', { class: 'strides' });
    this.check = el('p', { class: 'check' });
    this.body.append(this.list, el('div', { class: 'stepper' }, this.previous, this.next), this.check);
    // The figures and what the strides say about them go together (on a slide, the right column).
    const side = el('div', { class: 'side' });
    this.figureArea.replaceWith(side);
    side.append(this.figureArea, this.strides);
  }

  /** Shows step 0..4 (clamped): only a redraw, and only if asked and there is a result to draw. */
  go(step, { draw = true } = {}) {
    this.step = Math.max(0, Math.min(STEPS.length - 1, step));
    if (draw && this.computed) this.#show();
  }

  update(o, c) {
    this.options = o;
    this.computed = c;
    this.#show();
  }

  #show() {
    const c = this.computed;
    this.previous.disabled = this.step === 0;
    this.next.disabled = this.step === STEPS.length - 1;
    this.outputs = c?.status === 'ok' ? c.steps : null;
    if (!c || (c.status !== 'ok' && c.status !== 'shapes-only')) {
      this.list.replaceChildren();
      this.strides.replaceChildren();
      this.check.textContent = '';
      this.clearFigures();
      this.status(
        c?.message ? `Waiting for a valid configuration: ${c.message}` : 'Waiting for a valid configuration.',
        'error',
      );
      return;
    }
    const { tokens: T, heads: H } = c.config;
    const hd = c.headDim;
    this.list.replaceChildren(
      ...STEPS.map((step, i) =>
        el(
          'li',
          { class: i === this.step ? 'current' : '', 'aria-current': i === this.step ? 'step' : null },
          el('strong', { text: step }),
          el('span', { text: ` ${WHAT[step]}` }),
          el(
            'ul',
            {},
            ...c.trace
              .filter((e) => e.step === step)
              .map((e) =>
                el(
                  'li',
                  {},
                  el('code', { class: 'shape', text: shapeText(e.shape) }),
                  el('span', { text: ` ${e.name}` }),
                ),
              ),
          ),
        ),
      ),
    );
    this.list.classList.toggle('compact', c.status === 'ok');
    const s = stridesOf(T, H, hd);
    this.strides.replaceChildren(
      el('p', {
        text: `view (B, T, H, hd) = ${shapeText(s.view.shape)}, strides ${shapeText(s.view.strides)}: no data moves.`,
      }),
      el('p', {
        text:
          `transpose(1, 2) = ${shapeText(s.transposed.shape)}, strides ${shapeText(s.transposed.strides)}: ` +
          `still no data moves, but one head's next token is ${H * hd} floats away.`,
      }),
      el('p', {
        text:
          `contiguous (B, H, T, hd), strides ${shapeText(s.contiguous.strides)}: each head's (T, hd) block ` +
          `is one matrix.`,
      }),
      el('p', {
        text:
          `Why before q @ k^T: a matrix product multiplies the last two dimensions and batches over the ` +
          `rest. Before the transpose they are (H, hd) = (${H}, ${hd}), so each token would compare its heads with ` +
          `each other (${H} x ${H} scores). After it they are (T, hd) = (${T}, ${hd}) per head: ${T} x ${T} ` +
          `scores, tokens against tokens, one map per head.`,
      }),
    );
    if (c.status === 'shapes-only') {
      this.check.textContent = '';
      this.status(`Shapes only: ${c.message}.`, 'warn');
      this.showFigures([{ figure: memoryLayoutFigure(T, H, hd, this.drawWidth, this.textScale) }]);
      return;
    }
    if (this.outputs.error) {
      this.check.textContent = '';
      this.clearFigures();
      this.status(`The steps could not be computed: ${this.outputs.error}`, 'error');
      return;
    }
    const maxDiff = formatNumber(this.outputs.maxDiff);
    this.check.textContent = `Step by step through the API = forward(): max difference ${maxDiff}.`;
    this.status(`Step ${this.step + 1} of 5: ${STEPS[this.step]}.`);
    this.draw();
  }

  draw() {
    const c = this.computed;
    if (!c || c.status !== 'ok' || !this.outputs || this.outputs.error) return;
    const { tokens: T, heads: H, dModel: D } = c.config;
    const hd = c.headDim;
    const labels = c.tokens;
    const bands = Array.from({ length: H }, (_, h) => ({ from: h * hd, to: (h + 1) * hd, label: `head ${h + 1}` }));
    const o = this.outputs;
    const maxWidth = this.drawWidth;
    const view = {
      project: {
        values: o.projected.q,
        rows: T,
        cols: D,
        title: `project: q (T = ${T}, H*hd = ${D})`,
        columnBands: bands,
      },
      split: { values: o.split.q, rows: T, cols: hd, title: `split: head 1 of q, (T = ${T}, hd = ${hd})` },
      attend: {
        values: o.attended.attention,
        rows: T,
        cols: T,
        colLabels: labels,
        scale: 'probability',
        masked: c.config.causal ? (i, j) => j > i : null,
        title: 'attend: head 1 attention (T x T)',
        quantity: 'attention',
        scores: o.attended.scores,
        headDim: hd,
      },
      merge: { values: o.concat, rows: T, cols: D, title: `merge: concat (T = ${T}, H*hd = ${D})`, columnBands: bands },
      'out-project': { values: o.output, rows: T, cols: D, title: `out-project: output (T = ${T}, d_model = ${D})` },
    }[STEPS[this.step]];
    const common = { rowLabels: labels, ...view };
    const k = this.textScale;
    // On a slide the matrix gets half the height the strides' text leaves in its column.
    const room = this.heightBelow(this.figureArea) - this.strides.getBoundingClientRect().height;
    const maxHeight = Number.isFinite(room) ? Math.max(140, room * 0.5) : Infinity;
    this.showFigures([
      {
        figure: heatmapFigure({ ...common, maxWidth: Math.min(maxWidth, 640 * k), maxHeight, textScale: k }),
        table: () => heatmapTable(common),
      },
      {
        figure: memoryLayoutFigure(T, H, hd, maxWidth, k),
        label: 'Memory order of q before and after the split: cells coloured by head',
      },
    ]);
  }

  exportData() {
    const c = this.computed ?? {};
    return {
      panel: 'steps',
      step: STEPS[this.step],
      trace: c.trace ?? null,
      config: c.config ?? null,
      strides: c.headDim ? stridesOf(c.config.tokens, c.config.heads, c.headDim) : null,
      outputs: this.outputs ?? null,
    };
  }
}
