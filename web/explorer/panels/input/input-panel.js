// Panel 1: the sentence, its tokens and their vectors; width, heads, mask, seed, presets; the
// dimension rule, live, and an explanation in words when it fails.
import { PanelFrame } from '../../panel-frame.js';
import { el, shapeText } from '../../dom.js';
import { heatmapFigure, heatmapTable } from '../../figures/heatmap.js';
import { DEFAULT_TEXT as LECTURE_TEXT, PRESETS, presetOf } from '../../lecture/presets.js';
import { divisorsOf } from '../../odd-input.js';

// The lecture's sentence: the sentence option's default, as the options schema gives it.

/** How long typing in a number field may pause before the value is taken as meant. */
export const TYPING_PAUSE_MS = 700;

const batchText = ({ batch, tokens }) =>
  batch > 1 ? `${batch} sentences of ${tokens} tokens, one batch` : `${tokens} token${tokens === 1 ? '' : 's'}`;

export class InputPanel extends PanelFrame {
  constructor(host) {
    super(
      'input',
      '1. Input',
      'A sentence becomes tokens; each distinct token gets one vector (the same wherever it stands). Choose the ' +
        'width, the number of heads, the causal mask and the seed of the weights.',
      host,
    );
    const field = (label, input) => el('label', { class: 'field' }, el('span', { text: label }), input);
    this.sentence = el('textarea', { rows: 2, spellcheck: false, 'aria-describedby': 'sentence-help' });
    this.preset = el(
      'select',
      {},
      ...Object.entries(PRESETS).map(([k, p]) => el('option', { value: k, text: p.label })),
      el('option', { value: 'custom', text: 'Custom' }),
    );
    this.width = el('input', { type: 'number', min: 1, step: 1, inputMode: 'numeric' });
    this.heads = el('input', { type: 'number', min: 1, step: 1, inputMode: 'numeric' });
    this.seed = el('input', { type: 'number', min: 0, step: 1, inputMode: 'numeric' });
    this.causal = el('input', { type: 'checkbox' });
    this.rule = el('p', { class: 'rule', 'aria-live': 'polite' });
    this.tokenList = el('div', { class: 'sentences' });
    const send = (partial) => host.setOptions(partial);
    const int = (input) => (input.value.trim() === '' ? NaN : Number(input.value));
    this.sentence.addEventListener('input', () => send({ sentence: this.sentence.value }));
    // Back to the lecture's sentence after trying others (its tokens are what the other panels tell).
    this.defaultSentence = el('button', {
      type: 'button',
      class: 'default-sentence',
      text: "The lecture's sentence",
      title: LECTURE_TEXT.replace(/\n/g, ' / '),
      onclick: () => send({ sentence: LECTURE_TEXT }),
    });
    this.preset.addEventListener('change', () => {
      const p = PRESETS[this.preset.value];
      if (p) send({ preset: this.preset.value, dModel: p.dModel, heads: p.heads });
    });
    // Width and heads are judged when the user is done: on change (Enter, leaving the field, the
    // spinner) or after a pause in typing, so typing 768 does not flash errors for 7 and 76.
    const whenDone = (input, key) => {
      let timer = null;
      const commit = () => {
        clearTimeout(timer);
        timer = null;
        send({ [key]: int(input) });
      };
      input.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(commit, TYPING_PAUSE_MS);
      });
      input.addEventListener('change', commit);
    };
    whenDone(this.width, 'dModel');
    whenDone(this.heads, 'heads');
    this.seed.addEventListener('input', () => {
      const v = int(this.seed);
      if (Number.isInteger(v) && v >= 0 && v <= 0xffffffff) send({ seed: v });
    });
    this.causal.addEventListener('change', () => send({ causal: this.causal.checked }));
    // On a slide the sentence and its button stay above the figure; the rest waits behind Details.
    const sentenceField = field('Sentence', this.sentence);
    sentenceField.classList.add('slide-keep');
    this.body.append(
      sentenceField,
      el('div', { class: 'sentence-choices slide-keep' }, this.defaultSentence),
      el('p', {
        id: 'sentence-help',
        class: 'help',
        text:
          'Words and punctuation marks become tokens; shown as text, never as markup. One sentence per line: ' +
          'lines of the same number of tokens are a batch, run together.',
      }),
      el(
        'div',
        { class: 'controls' },
        field('Preset', this.preset),
        field('Width d_model', this.width),
        field('Heads', this.heads),
        field('Seed', this.seed),
        el('label', { class: 'field check' }, this.causal, el('span', { text: 'Causal mask' })),
      ),
      this.rule,
      this.tokenList,
    );
  }

  update(o, c) {
    this.options = o;
    this.computed = c;
    const setIfIdle = (input, value) => {
      if (this.section.getRootNode().activeElement !== input) input.value = value;
    };
    setIfIdle(this.sentence, o.sentence);
    this.defaultSentence.disabled = o.sentence === LECTURE_TEXT;
    setIfIdle(this.width, Number.isFinite(o.dModel) ? String(o.dModel) : '');
    setIfIdle(this.heads, Number.isFinite(o.heads) ? String(o.heads) : '');
    setIfIdle(this.seed, String(o.seed));
    this.preset.value = presetOf(o.dModel, o.heads);
    this.causal.checked = o.causal;
    const sentences = c.sentences ?? [];
    this.tokenList.replaceChildren(
      ...sentences.map((tokens, b) =>
        el(
          'ol',
          { class: 'tokens', 'aria-label': sentences.length > 1 ? `Tokens of sentence ${b + 1}` : 'Tokens' },
          ...tokens.map((t) => el('li', { text: t })),
        ),
      ),
    );
    this.rule.dataset.valid = String(c.status === 'ok' || c.status === 'shapes-only');
    if (c.status === 'sentence') {
      this.rule.textContent = '';
      this.status(c.message, 'error');
    } else if (!Number.isInteger(o.dModel) || !Number.isInteger(o.heads) || o.dModel < 1 || o.heads < 1) {
      this.rule.textContent = 'Width and heads must be whole numbers of at least 1.';
      this.status('Waiting for a width and a number of heads.', 'error');
    } else if (c.status === 'invalid') {
      const ok = divisorsOf(o.dModel);
      this.rule.textContent =
        `Width ${o.dModel} cannot be split into ${o.heads} heads: each head gets width / ` +
        `heads features, so the number of heads must divide the width exactly (heads x head_dim = width). ` +
        `${ok.length ? `Heads that divide ${o.dModel}: ${ok.join(', ')}${ok.length === 12 ? ', ...' : ''}.` : ''} ` +
        `(The module says: ${c.message}.)`;
      this.status('This combination is not valid; the other panels wait for a valid one.', 'error');
    } else {
      const hd = c.headDim;
      this.rule.textContent = `width ${o.dModel} = ${o.heads} heads x head_dim ${hd}`;
      this.status(
        c.status === 'shapes-only'
          ? `Shapes only: ${c.message}. The shapes are computed without allocating anything; the computing ` +
              `panels show them instead of numbers.`
          : `${batchText(c.config)}; input x has shape ${shapeText([c.config.batch, c.config.tokens, o.dModel])}.`,
        c.status === 'shapes-only' ? 'warn' : '',
      );
    }
    this.draw();
  }

  draw() {
    const c = this.computed;
    if (!c || c.status !== 'ok') {
      this.clearFigures();
      this.sayPoint();
      return;
    }
    const { sentences, x, config } = c;
    const B = config.batch;
    const slide = this.slideFirst;
    const common = {
      values: x,
      rows: B * config.tokens,
      cols: config.dModel,
      rowLabels: sentences.flat(),
      title:
        B > 1
          ? `Token vectors x (B = ${B}, T = ${config.tokens}, d_model = ${config.dModel}), sentence after sentence`
          : `Token vectors x (T = ${config.tokens}, d_model = ${config.dModel})`,
    };
    this.showFigures([
      {
        figure: heatmapFigure({
          ...common,
          // A slide designed as one: the rows of x across it (cells as wide as it allows).
          maxWidth: slide ? this.drawWidth : Math.min(this.drawWidth, 560 * this.textScale),
          fill: slide,
          // On a slide the cells shrink to the frame (values too small to read give way to the tooltip).
          maxHeight: this.heightBelow(this.figureArea) - 8,
          textScale: this.textScale,
        }),
        table: () => heatmapTable(common),
      },
    ]);
  }

  /** What the slide says: the sentence's tokens and the shape of x, or why there is none. */
  pointText() {
    const [o, c] = [this.options, this.computed];
    if (!o || !c) return 'A sentence becomes tokens, and each token one vector.';
    if (c.status === 'sentence') return c.message;
    if (c.status === 'ok') {
      const [B, T, d] = [c.config.batch, c.config.tokens, o.dModel];
      const tokens = B > 1 ? `${B} sentences of ${T} tokens` : `${T} token${T === 1 ? '' : 's'}`;
      return `${tokens}: one vector of width ${d} per token, so x has shape ${shapeText([B, T, d])}.`;
    }
    if (c.status === 'invalid')
      return `Width ${o.dModel} cannot be split into ${o.heads} heads: heads x head_dim = width.`;
    if (c.status === 'shapes-only') return `${this.rule.textContent}: shapes only, too large to compute here.`;
    return this.rule.textContent;
  }

  exportData() {
    const c = this.computed ?? {};
    return {
      panel: 'input',
      options: this.options,
      status: c.status,
      message: c.message ?? null,
      tokens: c.tokens ?? [],
      sentences: c.sentences ?? [],
      config: c.config ?? null,
      x: c.x ?? null,
      shape: c.config ? [c.config.batch, c.config.tokens, c.config.dModel] : null,
    };
  }
}

export default {
  id: 'input',
  label: 'Input',
  // On a slide: the tokens and x's shape in a sentence, the sentence to edit, x across the frame.
  slide: { point: (view) => view.pointText() },
  View: InputPanel,
};
