// Panel 8: sharing keys and values (issue 37). On the lecture's sentence, a layer of 8 query heads
// whose K/V heads the reader chooses (the divisors of 8): the query heads' maps in one box per K/V
// head they share, the equality with multi-head attention as the module computed it, the KV cache
// growing token by token as the layer decodes the sentence, and the published models' cache per
// token from hw.cacheBytes; beside them, multi-head latent attention on the same sentence (its two
// forms' difference and its cache per token). Numbers: kv-numbers.js; figures: kv-figures.js.
// "Time generation": the next token's time with and without the cache at GPT-2 width, measured in a
// worker (kv-timing.js, kv-timing-numbers.js; its figure kv-timing-figure.js).
import { PanelFrame } from '../../panel-frame.js';
import { el, formatNumber } from '../../dom.js';
import { heatmapTable } from '../../figures/heatmap.js';
import { KV_HEADS, KV_SENTENCE, MLA_LATENT, MLA_ROPE, kvChoices, kvNumbers, latentNumbers } from './kv-numbers.js';
import {
  cacheGrowthFigure,
  formatBytes,
  groupFigure,
  presetBarsFigure,
  rowLabelWidth,
  sharingFigure,
} from './kv-figures.js';
import { KV_SHARING_RUN, sharingRows, sharingText } from './kv-sharing.js';
import SHARING_RESULTS from './kv-sharing-results.js';
import { KvRuns } from './kv-timing.js';
import { GENERATION_CONFIG, generationSentence, msText, rateText } from './kv-timing-numbers.js';
import { generationFigure, TIMING_TITLE } from './kv-timing-figure.js';

const CHOICES = kvChoices();
// What sharing costs trained models: shipped results (scripts/make-kv-sharing.mjs), compared at
// KV_SHARING_RUN.compared steps and at the last.
const SHARING_STEP = KV_SHARING_RUN.compared;
const SHARING_ROWS = sharingRows(SHARING_RESULTS, SHARING_STEP);
const SHARING_LAST = sharingRows(SHARING_RESULTS);

const table = (caption, head, rows) =>
  el(
    'table',
    {},
    el('caption', { text: caption }),
    el('tr', {}, ...head.map((text) => el('th', { text }))),
    ...rows.map((r) => el('tr', {}, ...r.map((text) => el('td', { text: String(text) })))),
  );

const heads = (n) => `${n} K/V head${n === 1 ? '' : 's'}`;
const KIND = { 1: 'multi-query', [KV_HEADS]: 'multi-head' };

/** The slide's point: what sharing does, and the multi-head equality, with the module's numbers. */
export function kvPoint(d) {
  if (!d || d.error) return `${KV_HEADS} query heads can share fewer keys and values.`;
  const { kvHeads } = d;
  const equal = `max |difference| ${formatNumber(d.equal.maxDiff)}`;
  if (kvHeads === KV_HEADS)
    return `${KV_HEADS} K/V heads for ${KV_HEADS} query heads is multi-head attention: ${equal}.`;
  const shared = `${kvHeads} K/V head${kvHeads > 1 ? 's' : ''}`;
  return (
    `${KV_HEADS} query heads share ${shared}: a ${KV_HEADS / kvHeads}x smaller KV cache, the output moved by ` +
    `${formatNumber(d.moved.maxDiff)} (with ${KV_HEADS}: ${equal} from multi-head).`
  );
}

/** The equality, the move and the decode check, in words, from the numbers the module gave. */
export function kvSentences(data) {
  const { kvHeads, equal, moved, decode, tokens, cache } = data;
  const H = KV_HEADS;
  const equality =
    `${H} K/V heads for ${H} query heads is multi-head attention: max |difference| of the outputs ` +
    `${formatNumber(equal.maxDiff)}${equal.maxDiff === 0 ? ' (identical, bit for bit)' : ''}.`;
  const move =
    kvHeads === H
      ? `Each query head has its own keys and values (${H} K/V heads): nothing is shared.`
      : `${kvHeads} K/V head${kvHeads > 1 ? 's' : ''} (each the mean of its group's ${H / kvHeads} keys and ` +
        `values, as when a multi-head model is converted to GQA): the output moves by max |difference| ` +
        `${formatNumber(moved.maxDiff)}, against outputs up to ${formatNumber(moved.scale)}.`;
  const last = cache.at(-1);
  const steps =
    `Decoding the sentence one token at a time, ${tokens.length} steps, the cache grows to ` +
    `${formatBytes(last.bytes)} (${last.length} positions x ${heads(kvHeads)} x K and V, float32)` +
    `${kvHeads === H ? '' : `, against ${formatBytes(last.mhaBytes)} with ${H}`}. The ${tokens.length} decode ` +
    `steps equal the full causal forward pass: max |difference| ${formatNumber(decode.maxDiff)}.`;
  return { equality, move, steps };
}

/** Multi-head latent attention beside it, in words, from the numbers the module gave. */
export function latentSentence(latent) {
  const { forms, decode, perToken } = latent;
  return (
    `Multi-head latent attention (DeepSeek-V2), ${KV_HEADS} heads reading one latent of ${MLA_LATENT} numbers ` +
    `and one RoPE key of ${MLA_ROPE} per token: its explicit form (every head's keys and values up-projected) ` +
    `and its absorbed form (the up-projections folded into the queries and the output) differ by max ` +
    `|difference| ${formatNumber(forms.maxDiff)}, against outputs up to ${formatNumber(forms.scale)}. ` +
    `Its cache holds ${perToken.numbers} numbers per token (${formatBytes(perToken.bytes)}) against ` +
    `multi-head's ${perToken.mhaNumbers} (${formatBytes(perToken.mhaBytes)}, K and V); decoding equals ` +
    `the forward pass within ${formatNumber(decode.maxDiff)}.`
  );
}

export class KvPanel extends PanelFrame {
  constructor(host) {
    super(
      'kv',
      '9. Sharing keys and values',
      `"${KV_SENTENCE}" through a layer of ${KV_HEADS} query heads: grouped-query attention lets groups of ` +
        'query heads share one key and value head, and multi-query attention all of them, so that the KV ' +
        'cache kept while generating is smaller.',
      host,
    );
    this.slider = el('input', {
      type: 'range',
      class: 'kv-heads',
      min: '0',
      max: String(CHOICES.length - 1),
      step: '1',
      'aria-label': 'K/V heads',
      oninput: () => host.setOptions({ kvHeads: CHOICES[Number(this.slider.value)] }),
    });
    this.readout = el('span', { class: 'kv-readout', 'aria-live': 'polite' });
    this.equal = el('p', { class: 'kv-equal' });
    this.moved = el('p', { class: 'kv-moved' });
    this.steps = el('p', { class: 'kv-decode' });
    this.latent = el('p', { class: 'kv-latent' });
    this.about = el('p', {
      class: 'kv-about',
      text:
        "Maps: each query head's attention (causal), boxed by the K/V head it reads. Bars: the cache per token " +
        'of published models, computed by hw.cacheBytes from their shapes (docs/kv.md cites the sources).',
    });
    this.trained = el('p', { class: 'kv-trained', text: sharingText(SHARING_ROWS, SHARING_LAST) });
    this.timeButton = el('button', {
      type: 'button',
      class: 'kv-time',
      text: 'Time generation',
      onclick: () => this.timeGeneration(),
    });
    this.timingLine = el('p', { class: 'kv-timing', 'aria-live': 'polite' });
    this.timing = null;
    this.body.append(
      el(
        'div',
        { class: 'controls slide-keep' },
        el('label', { class: 'field' }, el('span', { text: 'K/V heads' }), this.slider),
        this.readout,
      ),
      this.equal,
      this.moved,
      this.steps,
      this.latent,
      this.about,
      this.trained,
      el('div', { class: 'controls', role: 'group', 'aria-label': 'Generation timing' }, this.timeButton),
      this.timingLine,
    );
  }

  /**
   * "Time generation": the next token with and without the cache at GPT-2 width, in a worker
   * (kv-timing.js). A press while a run is under way does nothing; returns the run's summary.
   */
  timeGeneration() {
    const busy = ['starting', 'running'];
    if (this.timing && busy.includes(this.timing.state)) return this.timingSummary();
    try {
      this.timing = this.host.kept('kv').generationTiming({ onChange: () => this.#timingChanged() });
    } catch (error) {
      this.timing = null;
      this.#sayTiming(`Cannot time generation: ${error.message}`, 'failed');
      return this.timingSummary();
    }
    this.timing.start();
    this.#timingChanged();
    return this.timingSummary();
  }

  /** { state, done, total, rows, error } of the last timing run. */
  timingSummary() {
    const t = this.timing;
    if (!t) return { state: 'idle' };
    return { state: t.state, done: t.done, total: t.plan.length, rows: t.rows, error: t.error };
  }

  #sayTiming(text, state) {
    this.timingLine.textContent = text;
    this.timingLine.classList.toggle('error', state === 'failed');
    this.section.dataset.timing = state;
  }

  #timingChanged() {
    const t = this.timing;
    if (!t || t.disposed) return;
    this.timeButton.disabled = t.state === 'starting' || t.state === 'running';
    if (t.state === 'failed') return this.#sayTiming(`Timing generation failed: ${t.error}`, 'failed');
    if (t.state === 'done') {
      const cores = globalThis.navigator?.hardwareConcurrency;
      this.#sayTiming(generationSentence(t.rows, { cores }), 'done');
      this.timingLine.dataset.rows = JSON.stringify(t.rows);
      // On a slide with its Details open, the figures are laid out when they are shown again.
      if (this.section.classList.contains('details-open')) this.redrawOnFigures = true;
      else this.draw();
      return;
    }
    this.#sayTiming(`Timing generation in a worker: ${t.doing} (${t.done} of ${t.plan.length} done).`, t.state);
  }

  update(o, c) {
    const index = CHOICES.indexOf(o.kvHeads);
    this.slider.value = String(index < 0 ? 0 : index);
    const data = c?.kv;
    const latent = c?.mla;
    if (data === this.data && latent === this.latentData) return;
    this.data = data;
    this.latentData = latent && !latent.error ? latent : null;
    if (!data || data.error) {
      this.clearFigures();
      this.status(data?.error ? `This panel could not be computed: ${data.error}` : 'Waiting for the module.', 'error');
      return;
    }
    const { kvHeads } = data;
    this.slider.setAttribute('aria-valuetext', `${kvHeads} K/V heads for ${KV_HEADS} query heads`);
    this.readout.textContent = `${kvHeads} of ${KV_HEADS}: ${KIND[kvHeads] ?? 'grouped-query'}`;
    const said = kvSentences(data);
    this.equal.textContent = said.equality;
    this.equal.dataset.maxDiff = String(data.equal.maxDiff);
    this.moved.textContent = said.move;
    this.moved.dataset.maxDiff = String(data.moved.maxDiff);
    this.steps.textContent = said.steps;
    this.steps.dataset.maxDiff = String(data.decode.maxDiff);
    this.latent.textContent = this.latentData ? latentSentence(this.latentData) : '';
    this.latent.dataset.maxDiff = String(this.latentData?.forms.maxDiff ?? '');
    this.status('Computed by the module just now.');
    this.draw();
  }

  draw() {
    const data = this.data;
    if (!data || data.error) return;
    const k = this.textScale;
    const W = this.drawWidth;
    const { kvHeads, tokens, attention } = data;
    const group = KV_HEADS / kvHeads;
    const wide = W >= 700;
    const room = this.heightBelow(this.figureArea);
    // Wide: every map in one row, boxes side by side; the cache and the presets under them, side by
    // side. Narrow (a phone): boxes of at most 4 maps a row, each figure under the one before.
    // A box's frame and padding, and the gap between boxes (the figures' 0.75rem at the slide's size).
    const inner = Math.ceil(5 * k);
    const box = 2 * inner + 2 + Math.ceil(12 * k) + 4;
    const perRow = wide ? group : Math.min(group, W >= 520 ? 4 : 2);
    // Row labels (the tokens, thinned to the lecture's words) on the first map of each box's rows;
    // with more than two boxes, on the first box only (so that the maps keep their size).
    const labelW = rowLabelWidth(tokens, k);
    const labelledBoxes = kvHeads <= 2 ? kvHeads : 1;
    let mapSize = wide
      ? Math.floor((W - kvHeads * box - (KV_HEADS - kvHeads) * inner - labelledBoxes * labelW) / KV_HEADS) - 2
      : Math.min(Math.round(170 * k), Math.floor((W - box - labelW - (perRow - 1) * inner) / perRow) - 2);
    if (Number.isFinite(room)) mapSize = Math.min(mapSize, Math.floor(room * 0.5) - Math.round(50 * k));
    mapSize = Math.max(40, mapSize);
    const items = [];
    for (let g = 0; g < kvHeads; g += 1) {
      const queryHeads = data.kvHeadOf.flatMap((kv, h) => (kv === g ? [h] : []));
      const labelled = g < labelledBoxes;
      const figure = groupFigure({ kv: g, queryHeads, attention, tokens, mapSize, perRow, textScale: k, labelled });
      items.push({
        figure,
        label: `K/V head ${g + 1}, shared by query heads ${queryHeads.map((h) => h + 1).join(', ')}: their maps`,
        table: () =>
          el(
            'div',
            {},
            ...queryHeads.map((h) =>
              heatmapTable({
                values: attention,
                offset: h * tokens.length * tokens.length,
                rows: tokens.length,
                cols: tokens.length,
                rowLabels: tokens,
                colLabels: tokens,
                title: `Query head ${h + 1} (K/V head ${g + 1}) attention`,
              }),
            ),
          ),
      });
    }
    const half = wide ? Math.floor(W / 2) - 16 : W;
    const lower = Number.isFinite(room) ? Math.max(120, room - mapSize - 80 * k) : 180 * k;
    const growth = cacheGrowthFigure({
      cache: data.cache,
      latent: this.latentData,
      kvHeads,
      heads: KV_HEADS,
      maxWidth: half,
      height: lower / k,
      textScale: k,
    });
    const presets = presetBarsFigure({ presets: data.presets, maxWidth: half, textScale: k });
    items.push(
      {
        figure: growth,
        label: `The KV cache after each of the ${tokens.length} tokens, in bytes`,
        table: () =>
          table(
            'KV cache after each decode step (float32)',
            ['token', 'positions', `bytes, ${kvHeads} K/V heads`, `bytes, ${KV_HEADS} K/V heads`, 'bytes, latent'],
            data.cache.map((c, t) => [c.token, c.length, c.bytes, c.mhaBytes, this.latentData?.cache[t] ?? '']),
          ),
      },
      {
        figure: presets,
        label: 'KV cache per token of published models, fp16',
        table: () =>
          table(
            'KV cache per token (fp16), computed by hw.cacheBytes',
            ['model', 'cache', 'bytes per token'],
            data.presets.flatMap((p) => p.bars.map((b) => [p.label, b.name, b.bytes])),
          ),
      },
    );
    // Off a slide (no frame to fit), what sharing costs trained models, under the presets.
    if (!Number.isFinite(room)) items.push(this.#sharingItem(half, k));
    const timed = this.timing?.state === 'done' ? this.timing.rows : null;
    if (timed) {
      // On a slide the timing takes the presets' place (their bars stay in the tables), so that
      // the panel still fits its frame; elsewhere it goes under them.
      if (Number.isFinite(room)) items.pop();
      items.push({
        figure: generationFigure({ rows: timed, maxWidth: half, textScale: k }),
        label: `${TIMING_TITLE}, with and without the KV cache, measured in a worker just now`,
        table: () =>
          table(
            `The next token at GPT-2 width (dModel ${GENERATION_CONFIG.dModel}, ${GENERATION_CONFIG.heads} heads), ` +
              'measured in a worker: medians, wall-clock ms',
            ['T', 'with the cache: ms', 'tokens/s', 'without (forward over T): ms', 'tokens/s', 'ratio'],
            timed.map((r) => [
              r.T,
              msText(r.cachedMs),
              rateText(r.cachedPerSecond),
              msText(r.forwardMs),
              rateText(r.forwardPerSecond),
              r.ratio.toFixed(1),
            ]),
          ),
      });
    }
    this.showFigures(items, { row: true });
  }

  #sharingItem(maxWidth, k) {
    const probes = SHARING_ROWS[0].skills.map((s) => s.label);
    return {
      figure: sharingFigure({
        rows: SHARING_ROWS,
        step: SHARING_STEP,
        queryHeads: KV_SHARING_RUN.options.heads,
        maxWidth,
        textScale: k,
      }),
      label:
        `Trained with ${KV_SHARING_RUN.kvHeads.join(', ')} K/V heads: held-out accuracy per probe ` +
        `at step ${SHARING_STEP}`,
      table: () =>
        table(
          `Trained (${KV_SHARING_RUN.describe}): mean held-out accuracy (lowest-highest of the seeds)`,
          ['step', 'K/V heads', 'parameters', 'cached numbers a token', ...probes],
          [...SHARING_ROWS, ...SHARING_LAST].map((r, i) => [
            i < SHARING_ROWS.length ? SHARING_STEP : KV_SHARING_RUN.steps.at(-1),
            `${r.kvHeads} (${r.name})`,
            r.parameters,
            r.cachePerToken,
            ...r.skills.map((s) => `${s.mean.toFixed(2)} (${s.low.toFixed(2)}-${s.high.toFixed(2)})`),
          ]),
        ),
    };
  }

  showDetails(open) {
    super.showDetails(open);
    if (open || !this.redrawOnFigures) return;
    this.redrawOnFigures = false;
    this.draw();
  }

  /** The element was disconnected: the owner stopped the timing run (its keeps were freed). */
  unload() {
    this.timing = null;
    this.timeButton.disabled = false;
  }

  exportData() {
    const d = this.data ?? {};
    return {
      panel: 'kv',
      sentence: d.sentence,
      tokens: d.tokens,
      config: d.config,
      kvHeadOf: d.kvHeadOf,
      equal: d.equal,
      moved: d.moved,
      decode: d.decode,
      cache: d.cache,
      presets: d.presets,
      latent: this.latentData,
      generation: this.timing?.state === 'done' ? { config: GENERATION_CONFIG, rows: this.timing.rows } : null,
      trained: { run: KV_SHARING_RUN, compared: SHARING_ROWS, last: SHARING_LAST },
    };
  }
}

export default {
  id: 'kv',
  label: 'Sharing keys and values',
  aliases: ['gqa', 'kv-cache'],
  // The K/V heads of the panel's layer of KV_HEADS query heads: one of its divisors.
  options: [{ name: 'kv-heads', fallback: 2, choices: CHOICES }],
  parts: ['kv', 'mla'],
  numbers: {
    kv: {
      key: (o) => [o.seed, o.kvHeads],
      run: (ctx) => kvNumbers(ctx, { seed: ctx.o.seed, kvHeads: ctx.o.kvHeads }),
    },
    // Multi-head latent attention beside it: the same for every K/V head count.
    mla: { key: (o) => [o.seed], run: (ctx) => latentNumbers(ctx, { seed: ctx.o.seed }) },
  },
  slide: { point: (view) => kvPoint(view.data) },
  // "Time generation" runs in a worker of the page's (kv-timing.js), kept between renders.
  keeps: (hw, settings) => new KvRuns(hw, settings),
  View: KvPanel,
};
