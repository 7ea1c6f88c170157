// The heads panel's story section: the shipped story model (story-heads.js) on the page's sentence,
// the lecture's own by default. Its words read against the model's vocabulary (unknown ones marked,
// the vocabulary a click away), one map per head titled by the role the core measured, what each
// head looks at from the rows that predict a pronoun, and a control that switches a head off and
// says, in numbers from the checkpoint's ablation table, which skill falls and which stays.
import { drawOnCanvases } from '../../panel-frame.js';
import { el } from '../../dom.js';
import { heatmapFigure } from '../../figures/heatmap.js';
import { ablationOf, ablationText, pronounRows, rowTop, storyReadingText } from './story-heads.js';

const two = (v) => v.toFixed(2);
const ANTECEDENT = /antecedent/;

/** The section; update(sentence) draws it (loading the model the first time). */
export class StorySection {
  #kept;
  #palette;
  #refresh;
  #loading = false;
  #error = '';
  #zeroed = null; // the head switched off: its index, or null before the model is there

  /** kept: the heads panel's TrainedModels; palette(): the page's colours; refresh(): draw again. */
  constructor(kept, { palette, refresh }) {
    this.#kept = kept;
    this.#palette = palette;
    this.#refresh = refresh;
    this.reading = el('p', { class: 'story-reading', 'aria-live': 'polite' });
    this.tokens = el('p', { class: 'story-tokens' });
    this.vocabulary = el('details', { class: 'story-vocabulary' });
    this.maps = el('div', { class: 'figures story-maps' });
    // Two maps a row (set through the CSSOM: a strict style-src allows it).
    Object.assign(this.maps.style, { display: 'grid', gridTemplateColumns: 'repeat(2, max-content)', gap: '8px' });
    this.rows = el('p', { class: 'story-rows' });
    this.switches = el('div', { class: 'story-switches', role: 'group', 'aria-label': 'Switch off a head' });
    this.ablation = el('p', { class: 'story-ablation', 'aria-live': 'polite' });
    this.element = el(
      'div',
      { class: 'story-heads' },
      el('h3', { text: "The story model's heads on your sentence" }),
      this.reading,
      this.tokens,
      this.vocabulary,
      this.maps,
      this.rows,
      this.switches,
      this.ablation,
    );
    this.figures = [];
  }

  update(sentence) {
    const kept = this.#kept;
    if (!kept.story) {
      if (this.#error) this.reading.textContent = `The story model could not be loaded: ${this.#error}.`;
      else {
        this.reading.textContent = 'Loading the story model (web/checkpoints/story-4-heads.json)...';
        this.#load();
      }
      return;
    }
    const s = kept.storyOn(sentence);
    const { reading, maps, T, roles, checkpoint } = s;
    const o = checkpoint.options;
    const skills = checkpoint.evaluation.groups;
    this.reading.textContent =
      `${checkpoint.name}: ${o.layers} layer of ${o.heads} heads of ${o.dModel / o.heads}, trained ` +
      `${checkpoint.steps} steps on lecture-like English (${kept.story.words.length} words; held-out accuracy ` +
      `over the candidates: subject pronoun ${two(skills.subject.candidateAccuracy)}, object pronoun ` +
      `${two(skills.object.candidateAccuracy)}). Your sentence: ${storyReadingText(reading)}.`;
    // The words as read: an unknown one struck through (and said in its title), spaces between.
    this.tokens.replaceChildren(
      ...reading.tokens.flatMap((r, i) => {
        const span = el('span', {
          class: `story-token ${r.how}`,
          text: r.token,
          title: r.how === 'unknown' ? 'not in the vocabulary: left out' : 'in the vocabulary',
        });
        if (r.how === 'unknown') Object.assign(span.style, { textDecoration: 'line-through wavy', fontWeight: '700' });
        return i ? [' ', span] : [span];
      }),
    );
    if (!this.vocabulary.firstChild) {
      this.vocabulary.append(
        el('summary', { text: `Its vocabulary (${kept.story.words.length} words)` }),
        el('p', { class: 'story-words', text: kept.story.words.join(' ') }),
      );
    }
    const n = Math.max(1, reading.count);
    const labels = reading.words.slice(0, n);
    const items = maps.map((map, h) => {
      const values = new Float32Array(n * n);
      for (let i = 0; i < n; i += 1) values.set(map.subarray(i * T, i * T + n), i * n);
      return {
        figure: heatmapFigure({
          values,
          rows: n,
          cols: n,
          rowLabels: labels,
          colLabels: labels,
          scale: 'probability',
          masked: (i, j) => j > i,
          title: `head ${h + 1}: ${roles[h].role}`,
          maxWidth: 320,
        }),
        label: `Story model head ${h + 1} (${roles[h].role}) attention on your sentence, ${n} by ${n}`,
      };
    });
    drawOnCanvases(this.maps, items, this.#palette());
    this.figures = items.map((i) => i.figure);
    const rows = pronounRows(reading);
    this.rows.textContent = rows.length
      ? rows
          .map(({ row, word, next }) => {
            const each = maps.map((map, h) => {
              const top = rowTop(map, T, row, reading.words);
              return `head ${h + 1} ${two(top.weight)} on "${top.word}"`;
            });
            return `From "${word}" (before "${next}"): ${each.join(', ')}.`;
          })
          .join(' ')
      : 'No word of your sentence comes before a pronoun: the rows that need an antecedent are those before one.';
    this.#zeroed ??= Math.max(
      0,
      roles.findIndex((r) => ANTECEDENT.test(r.role)),
    );
    this.switches.replaceChildren(
      ...roles.map((r, h) =>
        el('button', {
          type: 'button',
          class: 'story-switch',
          text: `Switch off head ${h + 1} (${r.role})`,
          'aria-pressed': String(h === this.#zeroed),
          onclick: () => {
            this.#zeroed = h;
            this.update(sentence);
          },
        }),
      ),
    );
    const table = ablationOf(checkpoint, 0, this.#zeroed);
    this.ablation.textContent = table
      ? ablationText(table, `head ${this.#zeroed + 1} (${roles[this.#zeroed].role})`) +
        " (held-out accuracy over the candidates, the checkpoint's ablation table; every other head on.)"
      : 'This checkpoint has no ablation table.';
  }

  #load() {
    if (this.#loading) return;
    this.#loading = true;
    this.#kept.loadStory().then(
      () => {
        this.#loading = false;
        this.#refresh();
      },
      (error) => {
        this.#loading = false;
        this.#error = error.message;
        this.#refresh();
      },
    );
  }
}
