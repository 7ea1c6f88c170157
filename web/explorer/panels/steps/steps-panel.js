// Panel 3: the five steps of the fused version, each with its live shape, as run one by one
// through the public API by the page's computation; the split step shown as what happens to the
// memory layout (strides), the attend step as every head's scores before and after the softmax,
// the out-projection as the product concat @ W_out = output. Stepping only redraws.
import { PanelFrame } from '../../panel-frame.js';
import { el, formatNumber, shapeText } from '../../dom.js';
import { heatmapFigure, heatmapTable } from '../../figures/heatmap.js';
import { memoryLayoutFigure, stridesOf } from './memory-layout.js';
import { attendLayout, attendMapItems, MAX_ATTEND_HEADS, scoresScale } from './attend-maps.js';
import { CROP_SIZE, headBands, isPooled, outProjectFigure } from '../../figures/out-project-figure.js';
import { maxAbsDiff } from '../../arrays.js';

export const STEPS = Object.freeze(['project', 'split', 'attend', 'merge', 'out-project']);
const clampStep = (step) => Math.max(0, Math.min(STEPS.length - 1, step));
// The step option: its index (0..4) or its name.
function readStep(raw, name) {
  const text = raw.trim();
  const at = STEPS.includes(text) ? STEPS.indexOf(text) : /^[0-4]$/.test(text) ? Number(text) : -1;
  if (at >= 0) return { value: at };
  return { note: `${name}=${JSON.stringify(raw.slice(0, 40))} was ignored: use 0 to 4 or ${STEPS.join(', ')}.` };
}
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
    this.note = el('p', { class: 'step-note' }); // what the current step's figure shows
    this.body.append(this.list, el('div', { class: 'stepper' }, this.previous, this.next), this.check);
    // The figures, the note on what they show and what the strides say about them go together (on a
    // slide, the right column).
    const side = el('div', { class: 'side' });
    this.figureArea.replaceWith(side);
    side.append(this.note, this.figureArea, this.strides);
  }

  /** Goes to step 0..4 (clamped): the step option, which the element hands back through update(). */
  go(step) {
    this.host.setOptions({ step: clampStep(step) });
  }

  update(o, c) {
    this.options = o;
    this.step = o.step;
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
      this.note.textContent = '';
      this.clearFigures();
      this.status(
        c?.message ? `Waiting for a valid configuration: ${c.message}` : 'Waiting for a valid configuration.',
        'error',
      );
      return;
    }
    const { tokens: T, heads: H, batch: B } = c.config;
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
    const s = stridesOf(T, H, hd, B);
    const explained = [
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
    ];
    // The strides and why the transpose comes before q @ k^T explain the split: shown with it.
    const explains = STEPS[this.step] === 'split' ? explained : [];
    this.strides.replaceChildren(...(c.status === 'ok' ? explains : explained));
    if (c.status === 'shapes-only') {
      this.check.textContent = '';
      this.note.textContent = '';
      this.#layOut(null);
      this.status(`Shapes only: ${c.message}.`, 'warn');
      this.showFigures([{ figure: memoryLayoutFigure(T, H, hd, this.drawWidth, this.textScale) }]);
      return;
    }
    if (this.outputs.error) {
      this.check.textContent = '';
      this.note.textContent = '';
      this.clearFigures();
      this.status(`The steps could not be computed: ${this.outputs.error}`, 'error');
      return;
    }
    const maxDiff = formatNumber(this.outputs.maxDiff);
    this.check.textContent = `Step by step through the API = forward(): max difference ${maxDiff}.`;
    const batch =
      c.sentences.length > 1
        ? ` The batch: ${c.sentences.map((words, i) => `${i + 1}. "${words.join(' ')}"`).join(', ')}.`
        : '';
    this.status(`Step ${this.step + 1} of 5: ${STEPS[this.step]}.${batch}`);
    this.draw();
  }

  draw() {
    const c = this.computed;
    if (!c || c.status !== 'ok' || !this.outputs || this.outputs.error) return;
    const step = STEPS[this.step];
    if (step === 'attend') this.#drawAttend(c);
    else if (step === 'out-project') this.#drawOutProject(c);
    else this.#drawMatrix(c, step);
  }

  // A grid of maps (attend) or the usual column of figures.
  #layOut(grid) {
    const style = this.figureArea.style;
    style.display = grid ? 'grid' : '';
    style.gridTemplateColumns = grid ? `repeat(${grid.perRow}, ${grid.size}px)` : '';
    style.gap = grid ? `${grid.gap}px` : '';
  }

  // Project, split and merge: one heatmap; the split also as memory order.
  #drawMatrix(c, step) {
    const { tokens: T, heads: H, dModel: D, batch: B } = c.config;
    const hd = c.headDim;
    const o = this.outputs;
    const bands = headBands(H, hd);
    const batch = B > 1 ? `(B, T, H*hd) = ${shapeText([B, T, D])}` : `(T = ${T}, H*hd = ${D})`;
    const all = { rows: B * T, rowLabels: c.sentences.flat(), columnBands: bands };
    const view = {
      project: { values: o.projected.q, cols: D, title: `project: q ${batch}`, ...all },
      split: {
        values: o.split.q,
        rows: T,
        cols: hd,
        rowLabels: c.tokens,
        title: `split: head 1 of q, (T = ${T}, hd = ${hd})`,
      },
      merge: { values: o.concat, cols: D, title: `merge: concat ${batch}`, ...all },
    }[step];
    this.note.textContent = {
      project: B > 1 ? `The ${B} sentences one under the other: one product for the whole batch.` : '',
      split: B > 1 ? `Sentence 1 of ${B}.` : '',
      merge: B > 1 ? `The ${B} sentences one under the other.` : '',
    }[step];
    this.#layOut(null);
    const k = this.textScale;
    // On a slide the matrix gets half the height the strides' text leaves in its column (less the
    // figures' margin and the 4 spare px fitToFrame keeps, as the other panels).
    const room = this.heightBelow(this.figureArea) - this.strides.getBoundingClientRect().height - 8;
    const first = this.slideFirst; // designed as a slide: the figures alone under the point
    const maxHeight = Number.isFinite(room) ? Math.max(140, room * (first ? 1 : 0.5)) : Infinity;
    // On a slide the project step is its three products side by side: q, k and v, one large product each.
    if (first && step === 'project') {
      const each = Math.floor((this.drawWidth - 24) / 3);
      const maps = ['q', 'k', 'v'].map((name) => ({
        ...view,
        values: o.projected[name],
        title: `${name} = x @ W${name}`,
      }));
      this.showFigures(
        maps.map((m) => ({
          figure: heatmapFigure({ ...m, maxWidth: each, maxHeight, textScale: k }),
          table: () => heatmapTable(m),
        })),
        { row: true },
      );
      return;
    }
    // On a slide the split is its memory diagram alone: beside the strides' text there is no room
    // for both at a readable size (head 1's numbers stay in the tables and the JSON export).
    // Designed as a slide, the split has the frame's width: head 1 of q above its memory diagram.
    const slideSplit = step === 'split' && Number.isFinite(room) && !first;
    const memory = step === 'split' ? memoryLayoutFigure(T, H, hd, this.drawWidth, k) : null;
    const height = first && memory ? Math.max(140, room - memory.height - 24) : maxHeight;
    const items = [
      {
        figure: heatmapFigure({
          ...view,
          maxWidth: Math.min(this.drawWidth, 640 * k),
          maxHeight: height,
          textScale: k,
        }),
        table: () => heatmapTable(view),
      },
    ].filter(() => !slideSplit);
    if (step === 'split') {
      items.push({
        figure: memory,
        label: 'Memory order of q before and after the split: cells coloured by head',
      });
    }
    this.showFigures(items);
  }

  // Every head of sentence 1: scores before the softmax (scaled, masked), attention after it.
  #drawAttend(c) {
    const { tokens: T, heads: H, batch: B, causal } = c.config;
    const hd = c.headDim;
    const shown = Math.min(H, MAX_ATTEND_HEADS);
    const attended = this.outputs.attended;
    const maxAbs = scoresScale(attended.scores, shown, T, causal);
    const which = B > 1 ? `Sentence 1 of ${B}. ` : '';
    const scale = maxAbs > 0 ? `one scale, -${formatNumber(maxAbs)} purple to ${formatNumber(maxAbs)} orange` : 'all 0';
    const drawn = shown < H ? ` The first ${shown} of ${H} heads are drawn; all are in the JSON export.` : '';
    const mask = causal ? '; grey: masked, minus infinity' : '';
    // The note sits above the maps: set before the height they may take is measured.
    this.note.textContent =
      `${which}Per head: the scores q . k / sqrt(${hd}) before the softmax (${scale}${mask}), then the ` +
      `attention after it (each row sums to 1).${drawn}`;
    const k = this.textScale;
    const height = this.heightBelow(this.figureArea) - this.strides.getBoundingClientRect().height;
    const mapsAt = (layout) =>
      attendMapItems({ attended, T, H: shown, hd, causal, tokens: c.tokens, size: layout.size, textScale: k }).items;
    let layout = attendLayout(this.drawWidth, shown, { height, chrome: 60 * k });
    let items = mapsAt(layout);
    // A map's title and labels took more height than guessed (titles wrap at large type): lay out again.
    const chrome = Math.max(...items.map((it) => it.figure.height - layout.size));
    if (Number.isFinite(height) && chrome > 60 * k) {
      layout = attendLayout(this.drawWidth, shown, { height, chrome });
      items = mapsAt(layout);
    }
    this.#layOut(layout);
    this.showFigures(items);
  }

  // concat @ W_out = output as a product; a W_out too large to draw cell by cell also as a crop.
  #drawOutProject(c) {
    const { tokens: T, heads: H, dModel: D, batch: B } = c.config;
    const hd = c.headDim;
    const C = H * hd;
    const o = this.outputs;
    const bands = headBands(H, hd);
    const cropped = isPooled(C, D);
    const crop = Math.min(CROP_SIZE, C);
    // The note sits above the product: set before the height it may take is measured.
    this.note.textContent =
      `Each of the ${B * T} rows of concat (${B} x ${T} tokens) times W_out gives that row of the output.` +
      (cropped
        ? ` W_out is too large to draw cell by cell: its block averages are all close to 0 (random weights ` +
          `cancel out), so under it the top-left ${crop} x ${Math.min(CROP_SIZE, D)} weights are drawn one by one.`
        : '');
    const { figure } = outProjectFigure({
      concat: o.concat,
      wOut: c.wOut,
      output: o.output,
      rows: B * T,
      C,
      D,
      shapes: { concat: [B, T, C], wOut: [C, D], output: [B, T, D] },
      rowLabels: c.sentences.flat(),
      bands,
      maxWidth: this.drawWidth,
      maxHeight: this.heightBelow(this.figureArea) * 0.8,
      textScale: this.textScale,
    });
    this.#layOut(null);
    const matrix = (values, rows, cols, title) => () => heatmapTable({ values, rows, cols, title });
    this.showFigures([
      {
        figure,
        label: `output = concat @ W_out: concat (${B * T} x ${C}), W_out (${C} x ${D}), output (${B * T} x ${D})`,
        table: matrix(o.output, B * T, D, 'output = concat @ W_out'),
      },
    ]);
    this.addTables(matrix(c.wOut, C, D, 'W_out'));
  }

  exportData() {
    const c = this.computed ?? {};
    return {
      panel: 'steps',
      step: STEPS[this.step],
      trace: c.trace ?? null,
      config: c.config ?? null,
      strides: c.headDim ? stridesOf(c.config.tokens, c.config.heads, c.headDim, c.config.batch) : null,
      outputs: this.outputs ?? null,
    };
  }
}

// The five steps through the public API, one call each, checked against forward().
function fiveSteps({ base, layer, part }) {
  const l = layer();
  const projected = l.project(base.x);
  const split = l.split(projected);
  const attended = l.attend(split, { intermediates: true });
  const concat = l.merge(attended.context);
  const output = l.outProject(concat);
  return { projected, split, attended, concat, output, maxDiff: maxAbsDiff(output, part('fused').output) };
}

// The stepper, for slide decks (and their postMessage methods of the same names).
const goTo = ({ set }, step) => {
  if (!Number.isInteger(step)) throw new TypeError('step must be a whole number from 0 to 4');
  return set({ step: clampStep(step) });
};

/**
 * The slide's point: the step shown, what it does and the shape it leaves; first, when the layer is
 * too large to compute (GPT-3), that only its shapes are shown and why.
 */
function stepsPoint(view) {
  const c = view.computed;
  if (c?.status === 'shapes-only') return `Shapes only: ${c.message}. ${stepText(view)}`;
  return stepText(view);
}

function stepText(view) {
  const name = STEPS[view.step];
  const shapes = (view.computed?.trace ?? []).filter((e) => e.step === name).map((e) => shapeText(e.shape));
  const last = shapes.length ? `: ${shapes[shapes.length - 1]}` : '';
  return `Step ${view.step + 1} of 5, ${name}${last}. ${WHAT[name][0].toUpperCase()}${WHAT[name].slice(1)}.`;
}

export default {
  id: 'steps',
  slide: { point: stepsPoint },
  label: 'Five steps',
  aliases: ['five-steps'],
  // getState() shows the step as its index, with its name and the names of all five beside it.
  options: [{ name: 'step', fallback: 0, read: readStep, query: (v) => (v === 0 ? null : STEPS[v]) }],
  state: (o) => ({ stepName: STEPS[o.step], steps: [...STEPS] }),
  parts: ['fused', 'steps', 'wOut'],
  numbers: { steps: { layer: true, run: fiveSteps } },
  commands: {
    nextStep: { run: (ctx) => goTo(ctx, ctx.options.step + 1) },
    previousStep: { run: (ctx) => goTo(ctx, ctx.options.step - 1) },
    goToStep: { run: goTo, params: (p) => [p?.step] },
  },
  View: StepsPanel,
};
