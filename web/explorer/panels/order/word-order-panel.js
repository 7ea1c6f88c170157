// Panel 6: word order, a view of the page's computation (its mask and position kind are inputs
// to it). The claim first: without positions and without the mask, attention treats a sentence
// as a set, so "All dogs are animals" and "All animals are dogs" give each word the same output.
// Then the two sources of order: the causal mask, and a position kind computed by the core, each
// shown where it enters (x, q and k, or the scores).
import { PanelFrame } from '../../panel-frame.js';
import { el, formatNumber } from '../../dom.js';
import { largestAbs } from '../../arrays.js';
import { heatmapFigure, heatmapTable } from '../../figures/heatmap.js';
import { ORDER_SENTENCES, orderNumbers } from './order-numbers.js';

export const [SENTENCE_A, SENTENCE_B] = ORDER_SENTENCES;
// Differences this small are float32 rounding, not a change: 8 float32 steps (2^-20 relative) of
// the largest output, since the two sentences sum the same terms in another order.
const ROUNDING_STEPS = 2 ** -20;
// The order-positions option: a kind's name as the core spells it (the core says which it knows).
const positionKindName = (raw, name) =>
  /^[a-z][a-z0-9-]{0,31}$/.test(raw.trim())
    ? { value: raw.trim() }
    : { note: `${name}=${JSON.stringify(raw.slice(0, 40))} was ignored: use a position kind (none, rope, ...).` };

/** The largest |output| over both sentences: the fixed end of the outputs' colour scale. */
export function outputScale({ outputA, outputB }) {
  let m = 0;
  for (const v of outputA) m = Math.max(m, Math.abs(v));
  for (const v of outputB) m = Math.max(m, Math.abs(v));
  return m;
}

/** Below this a difference is float32 rounding. */
export const float32Zero = (data) => outputScale(data) * ROUNDING_STEPS;

/**
 * How the difference map prints and colours: decimals enough for two significant digits of the
 * largest difference, and one threshold, below which a cell is drawn and printed as 0 and a word
 * is not called changed (float32 rounding, or less than half the last printed digit).
 */
export function differenceScale(data) {
  const rounding = float32Zero(data);
  if (data.maxDiff < rounding) return { scale: outputScale(data), digits: 1, zero: rounding, own: false };
  const digits = Math.min(6, Math.max(1, 1 - Math.floor(Math.log10(data.maxDiff))));
  return { scale: data.maxDiff, digits, zero: Math.max(rounding, 0.5 * 10 ** -digits), own: true };
}

/** One sentence per word: the same or changed, and, with the mask, which words it sees in each. */
export function wordVerdicts(data, zero = differenceScale(data).zero) {
  const { a, b } = data.tokens;
  const rounding = float32Zero(data);
  const sees = (tokens, i) => `{${tokens.slice(0, i + 1).join(', ')}}`;
  return data.perWord.map((w) => {
    const verdict =
      w.maxDiff >= zero
        ? `changed (max |difference| ${formatNumber(w.maxDiff)})`
        : w.maxDiff >= rounding
          ? `the same to the figure's precision (max |difference| ${formatNumber(w.maxDiff)})`
          : 'the same vector';
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
 * The three maps (first sentence, second sentence's rows in the first's word order, difference).
 * The outputs share one colour scale; the difference has its own (its largest |value|) whenever
 * it is more than rounding, printed to two significant digits, with the same zero as the verdicts.
 */
export function orderMaps(data) {
  const { a } = data.tokens;
  const { dModel } = data.config;
  const scale = outputScale(data);
  const diff = differenceScale(data);
  const rowOf = (out, i) => out.subarray(i * dModel, (i + 1) * dModel);
  const common = { rows: a.length, cols: dModel };
  return [
    { ...common, maxAbs: scale, values: data.outputA, rowLabels: a, title: `"${SENTENCE_A}": outputs` },
    {
      ...common,
      maxAbs: scale,
      values: new Float32Array(data.perWord.flatMap((p) => Array.from(rowOf(data.outputB, p.inB)))),
      rowLabels: a.map((word, i) => `${word} (#${data.perWord[i].inB + 1})`),
      title: `"${SENTENCE_B}": same words`,
    },
    {
      ...common,
      maxAbs: diff.scale,
      digits: diff.digits,
      values: new Float32Array(
        data.perWord.flatMap((p) =>
          Array.from(rowOf(data.outputA, p.inA), (v, k) => v - data.outputB[p.inB * dModel + k]),
        ),
      ),
      rowLabels: a,
      zeroBelow: diff.zero,
      title: diff.own
        ? `difference (own scale +-${formatNumber(diff.scale)}; below ${formatNumber(diff.zero)}: 0)`
        : `difference: all below ${formatNumber(diff.zero)} (float32 rounding), drawn as 0`,
    },
  ];
}

/** For a position kind: the maps that show where it enters and what makes it work. */
export function kindMaps(data) {
  const { entersAt, config } = data;
  const { tokens: T, dModel: D, heads: H } = config;
  const k = data.kind;
  const labels = Array.from({ length: k.tableTokens ?? 0 }, (_, i) => String(i));
  if (entersAt === 'input') {
    const n = k.tableTokens;
    return [
      {
        rows: n,
        cols: D,
        values: k.table,
        rowLabels: labels,
        title: `P (${n} x ${D}): rows 0-${T - 1} are added to x`,
      },
      { rows: n, cols: n, values: k.dots, rowLabels: labels, colLabels: labels, title: 'P(i) . P(j)' },
    ];
  }
  if (entersAt === 'queries and keys') {
    const masked = config.causal ? (i, j) => j > i : null;
    const common = { rows: T, cols: T, rowLabels: data.tokens.a, colLabels: data.tokens.a, masked };
    return [
      { ...common, values: k.scores.subarray(0, T * T), title: `head 1 scores, words at positions 0-${T - 1}` },
      {
        ...common,
        values: k.scoresShifted.subarray(0, T * T),
        title: `the same words at positions ${k.shift}-${k.shift + T - 1}`,
      },
    ];
  }
  if (entersAt === 'scores') {
    return Array.from({ length: H }, (_, h) => ({
      rows: T,
      cols: T,
      values: k.scoreBias.subarray(h * T * T, (h + 1) * T * T),
      rowLabels: data.tokens.a,
      colLabels: data.tokens.a,
      digits: 2,
      title: `head ${h + 1}: bias -${formatNumber(k.slopes[h])} |i - j| on the scores`,
    }));
  }
  return [];
}

/**
 * Where the kind enters and what makes it work, in words: the core's label and description of the
 * kind (data.positionKind), then what its place of entry shows, with the numbers the core gave.
 */
export function kindText(data) {
  const k = data.kind;
  const { label, about, learnedTable } = data.positionKind;
  const Label = label[0].toUpperCase() + label.slice(1);
  switch (data.entersAt) {
    case 'input': {
      // Float32 rounding apart, a table of |i - j| alone has the same product all along a diagonal.
      const spread = diagonalSpread(k);
      const distance = spread <= 1e-4 * largestAbs(k.dots) ? 'depends only on |i - j|' : 'follows no distance';
      return (
        `${Label} (${about}): P(t) is added to x before Wq, Wk, Wv. P(i) . P(j) ${distance} (spread along a ` +
        `diagonal ${formatNumber(spread)})${learnedTable ? '; there is no row beyond the table' : ''}.`
      );
    }
    case 'queries and keys': {
      // "Stay" only within float32 rounding of the scores (2^-20 of the largest); more is said as a change.
      const largest = largestAbs(k.scores.filter(Number.isFinite));
      const d = formatNumber(k.maxShiftDiff);
      return (
        `${Label} (${about}): a score depends only on the offset. Moved ${k.shift} places on, ` +
        (k.maxShiftDiff <= largest * ROUNDING_STEPS
          ? `the scores stay (max |difference| ${d}: float32 rounding).`
          : `the scores change (max |difference| ${d}, more than float32 rounding of scores up to ` +
            `${formatNumber(largest)}).`)
      );
    }
    case 'scores':
      return `${Label}: nothing enters x, q, k or v; ${about}: ${k.slopes.map((m) => formatNumber(m)).join(', ')}.`;
    default:
      return '';
  }
}

// The largest spread (max - min) of P(i) . P(j) along one diagonal |i - j| = const.
function diagonalSpread({ dots, tableTokens: n }) {
  let spread = 0;
  for (let offset = 0; offset < n; offset += 1) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i + offset < n; i += 1) {
      const v = dots[i * n + i + offset];
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    spread = Math.max(spread, hi - lo);
  }
  return spread;
}

/**
 * The slide's point: whether the two orders give each word the same output, with the module's
 * largest difference (the same threshold as the verdicts: float32 rounding).
 */
export function orderPoint({ data }) {
  if (!data || data.error) return 'Without positions or a mask, attention sees a set of words, not a sequence.';
  const d = formatNumber(data.maxDiff);
  if (data.maxDiff < float32Zero(data))
    return (
      `Without positions or a mask, attention sees a set: each word's output is the same in both ` +
      `orders (max |difference| ${d}).`
    );
  const kind = data.positionKind.name === 'none' ? null : data.positionKind.label;
  const by = [data.config.causal ? 'the causal mask' : null, kind].filter(Boolean).join(' and ');
  return `With ${by}, the same words in another order give other outputs (max |difference| ${d}).`;
}

// On a slide: the maps in columns (the two sentences' outputs and their difference in the first,
// the kind's maps in the second), each column's maps sharing its height; cells as wide and as tall
// as that leaves (a word's output is a row of dModel numbers: wider cells read as well as square ones).
// The columns share a grid of SLOTS rows: each first-column map spans SLOTS / 3 of them, each of the
// kind's maps SLOTS / its count. Returns the figures and the rows each spans.
const SLOTS = 6;
function slideLayout(maps, width, height, textScale, gap) {
  const columns = [maps.slice(0, 3), maps.slice(3)].filter((column) => column.length);
  const share = columns.length > 1 ? [0.58, 0.42] : [1];
  const slot = (height - gap * (SLOTS - 1)) / SLOTS;
  const spans = columns.flatMap((column) => column.map(() => Math.floor(SLOTS / column.length)));
  const figures = columns.flatMap((column, c) => {
    const w = Math.floor((width - gap * (columns.length - 1)) * share[c]) - 4;
    const span = Math.floor(SLOTS / column.length);
    const h = Math.floor(span * slot + (span - 1) * gap) - 1;
    return column.map((m) => {
      // The figure's labels and title around a grid of one-pixel cells, then the cells in what is left.
      const bare = heatmapFigure({ ...m, maxWidth: w, textScale, cellSize: [1, 1] });
      const grid = bare.items.find((it) => it.kind === 'grid');
      const below = bare.height - grid.y - m.rows * grid.cellH;
      const cellW = Math.max(4, Math.floor((w - grid.x - 8) / m.cols));
      const cellH = Math.max(4, Math.floor((h - grid.y - below) / m.rows));
      const figure = (ch) => {
        const square = m.rows === m.cols; // P(i) . P(j) and the scores stay square
        const size = square ? [Math.min(cellW, ch), Math.min(cellW, ch)] : [cellW, Math.min(ch, cellW)];
        return heatmapFigure({ ...m, maxWidth: w, textScale, cellSize: size });
      };
      // A few tries: larger cells may turn column labels from upright to slanted or flat.
      let ch = cellH;
      let best = figure(ch);
      for (let pass = 0; pass < 4; pass += 1) {
        const step = best.height < h ? Math.floor((h - best.height) / m.rows) : -Math.ceil((best.height - h) / m.rows);
        if (step === 0 || (step > 0 && ch >= cellW)) break;
        const next = figure(Math.max(4, ch + step));
        if (next.height > h && best.height <= h) break;
        [ch, best] = [Math.max(4, ch + step), next];
      }
      return best;
    });
  });
  return { figures, spans };
}

export class WordOrderPanel extends PanelFrame {
  constructor(host) {
    super('order', '6. Word order', `"${SENTENCE_A}" against "${SENTENCE_B}": the same words in another order.`, host);
    this.claim = el('p', { class: 'order-claim' });
    // This panel's own mask (off: the claim), apart from the page's causal option.
    // This panel's own options (order-mask, order-positions): a change recomputes its part.
    this.mask = el('input', {
      type: 'checkbox',
      class: 'order-mask',
      onchange: () => host.setOptions({ orderMask: this.mask.checked }),
    });
    this.kind = el('select', {
      class: 'order-kind',
      onchange: () => host.setOptions({ orderPositions: this.kind.value || 'none' }),
    });
    this.kind.append(el('option', { value: 'none', text: 'none' }));
    this.result = el('p', { class: 'order-diff', 'aria-live': 'polite' });
    this.why = el('p', { class: 'order-why' });
    this.verdicts = el('ul', { class: 'order-verdicts', 'aria-label': 'Each word, the same or changed' });
    this.body.append(
      this.claim,
      el(
        'div',
        { class: 'controls slide-keep' },
        el('label', { class: 'field check' }, this.mask, el('span', { text: 'Causal mask' })),
        el('label', { class: 'field' }, el('span', { text: 'Positions' }), this.kind),
      ),
      this.result,
      this.why,
      this.verdicts,
    );
  }

  update(o, c) {
    this.options = o;
    this.mask.checked = o.orderMask;
    this.#offerKinds(c?.order?.kinds, o.orderPositions);
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
    const { maxDiff, claim } = data;
    const bound = claim.scale * ROUNDING_STEPS;
    this.claim.dataset.maxDiff = String(claim.maxDiff);
    this.claim.dataset.bound = String(bound);
    this.claim.dataset.wordGap = String(claim.wordGap);
    this.claim.textContent =
      `Without positions and without the mask, each word's output is the same in both sentences: largest ` +
      `difference ${formatNumber(claim.maxDiff)}, within float32 rounding (at most ${formatNumber(bound)}, 2^-20 of ` +
      `the largest output), while any two words differ by at least ${formatNumber(claim.wordGap)} (width ` +
      `${dModel}, ${heads} heads, word vectors in +-${data.inputScale}). Attention sees a set, not a sequence.`;
    this.result.dataset.value = String(maxDiff);
    const diff = differenceScale(data);
    const same =
      maxDiff === 0
        ? ' (exactly the same vectors)'
        : maxDiff < float32Zero(data)
          ? ' (float32 rounding: the sums run over the words in another order)'
          : '';
    this.result.textContent =
      `Mask ${causal ? 'on' : 'off'}, positions ${data.positionKind.label}: max |difference| over every word's ` +
      `output = ${formatNumber(maxDiff)}${same}.`;
    const mask = causal
      ? 'With the causal mask a word sees only itself and the words before it (below): a source of order of ' +
        'its own. Haviv et al. (2022) found causal language models without positions still learn position. '
      : '';
    // Mask and positions off: the claim above already says why.
    this.why.textContent = mask + kindText(data);
    this.why.hidden = this.why.textContent === '';
    this.verdicts.replaceChildren(...wordVerdicts(data, diff.zero).map((text) => el('li', { text })));
    this.status('Computed by the module just now.');
    this.draw();
  }

  // The kinds the module offers (known once the part is computed); the chosen one is the option's.
  #offerKinds(kinds, chosen) {
    if (kinds && this.kind.options.length !== kinds.length)
      this.kind.replaceChildren(...kinds.map(({ name, label }) => el('option', { value: name, text: label })));
    const offered = [...this.kind.options].map((option) => option.value);
    this.kind.value = offered.includes(chosen) ? chosen : 'none';
  }

  draw() {
    if (!this.data || this.data.error) return;
    const maps = [...orderMaps(this.data), ...kindMaps(this.data)];
    const table = (m) => () => heatmapTable({ ...m, digits: Math.max(4, m.digits ?? 0) });
    const room = this.heightBelow(this.figureArea);
    // On a slide with a kind's maps: two columns, filled top to bottom (see slideLayout).
    const columns = this.slideFirst && maps.length > 3;
    this.figureArea.classList.toggle('grid', columns);
    this.figureArea.style.gridAutoFlow = columns ? 'column' : '';
    this.figureArea.style.gridTemplateRows = columns ? `repeat(${SLOTS}, auto)` : '';
    if (this.slideFirst) {
      const gap = parseFloat(getComputedStyle(this.figureArea).rowGap) || 0;
      const { figures, spans } = slideLayout(maps, this.drawWidth, room - 8, this.textScale, Math.ceil(gap));
      this.showFigures(maps.map((m, i) => ({ figure: figures[i], table: table(m) })));
      const canvases = this.figureArea.querySelectorAll(':scope > canvas:not([hidden])');
      canvases.forEach((canvas, i) => (canvas.style.gridRow = columns ? `span ${spans[i]}` : ''));
      this.fitToFrame(); // with the rows each canvas spans now set
      return;
    }
    const perRow = Math.min(maps.length, this.drawWidth >= 900 ? 3 : this.drawWidth >= 440 ? 2 : 1);
    const w = perRow > 1 ? Math.floor(this.drawWidth / perRow) - 12 : this.drawWidth;
    // Side by side (a slide), the maps share the height left; one under another (a phone), the page scrolls.
    const rows = Math.ceil(maps.length / perRow);
    const maxHeight = perRow > 1 ? Math.floor((room - 8) / rows) - 8 : Infinity;
    this.showFigures(
      maps.map((m) => ({
        figure: heatmapFigure({ ...m, maxWidth: w, maxHeight, textScale: this.textScale }),
        table: table(m),
      })),
      { row: true },
    );
  }

  exportData() {
    return { panel: 'order', ...(this.data ?? {}) };
  }
}

export default {
  id: 'order',
  label: 'Word order',
  aliases: ['word-order', 'words'],
  // The panel's own mask (off: the claim), apart from the page's causal option, and position kind
  // (one of the core's; the module refuses a name it does not know, in the panel's status line).
  options: [
    { name: 'order-mask', fallback: false },
    { name: 'order-positions', fallback: 'none', read: positionKindName },
  ],
  slide: { point: orderPoint },
  parts: ['order'],
  numbers: {
    order: {
      key: (o) => [o.seed, o.orderMask, o.orderPositions],
      run: (ctx) => orderNumbers(ctx, { seed: ctx.o.seed, causal: ctx.o.orderMask, positions: ctx.o.orderPositions }),
    },
  },
  View: WordOrderPanel,
};
