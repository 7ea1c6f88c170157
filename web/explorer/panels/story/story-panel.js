// Panel 8: the lecture's sentence read by a model trained on lecture-like English (the shipped
// checkpoint story-4-heads, docs/story.md). The page's sentence is read word by word against the
// model's vocabulary (an unknown word marked and left out, never read as another word; the
// vocabulary a click away); per head, titled by the role the core measured, its rows from the words
// that predict a pronoun ("but", "catch") and from the last pronoun, values printed; and a switch per
// head that says, from the checkpoint's ablation table, which skill falls without it and which stays,
// drawn as bars beside the whole model's.
import { PanelFrame } from '../../panel-frame.js';
import { el } from '../../dom.js';
import { heatmapFigure, heatmapTable } from '../../figures/heatmap.js';
import { barsFigure } from '../../figures/charts.js';
import { LECTURE_WORDS } from '../../lecture/presets.js';
import {
  ablationOf,
  ablationText,
  antecedentHead,
  keyRows,
  pronounRows,
  rowTop,
  STORY_CHECKPOINT,
  STORY_SKILLS,
  storyPoint,
  storyReadingText,
} from './story-reading.js';
import { StoryModel, storyPart } from './story-model.js';

const two = (v) => v.toFixed(2);
const SHORT = Object.fromEntries(STORY_SKILLS.map(([skill, label]) => [skill, label.replace(' pronoun', '')]));

/** Each head's rows worth reading (keyRows) as a heatmap's options: rows x the sentence's words. */
export function headRowMaps(s) {
  const { reading, maps, T, roles } = s;
  const n = Math.max(1, reading.count);
  const rows = keyRows(reading);
  const words = reading.words.slice(0, n);
  return maps.map((map, h) => {
    const values = new Float32Array(rows.length * n);
    rows.forEach(({ row }, i) => values.set(map.subarray(row * T, row * T + n), i * n));
    return {
      values,
      rows: rows.length,
      cols: n,
      rowLabels: rows.map((r) => r.label),
      colLabels: words,
      scale: 'probability',
      digits: 2,
      masked: (i, j) => j > rows[i].row,
      // Labelled first where labels thin out: the words this head looks at most from its rows.
      keyWords: [...new Set(rows.map(({ row }) => rowTop(map, T, row, reading.words).word)), ...LECTURE_WORDS],
      title: `head ${h + 1}: ${roles[h].role}`,
    };
  });
}

export class StoryPanel extends PanelFrame {
  #loading = false;
  #error = '';
  #zeroed = null; // the head switched off (its index), chosen when the model is there

  constructor(host) {
    super(
      'story',
      "8. The lecture's sentence, read by trained heads",
      "A model trained in this core on lecture-like English (pronouns, agreement, names) reads the page's sentence: " +
        'where each head looks from the words before a pronoun, and what the model loses without a head.',
      host,
    );
    this.reading = el('p', { class: 'story-reading', 'aria-live': 'polite' });
    this.tokens = el('p', { class: 'story-tokens', 'aria-label': 'Your sentence as the model reads it' });
    this.input = el('input', {
      type: 'text',
      class: 'story-input',
      'aria-label': 'A sentence for the story model',
      maxLength: 400,
    });
    this.inputNote = el('span', { class: 'story-input-note', role: 'status' });
    this.words = el('p', { class: 'story-words', hidden: true });
    this.wordsToggle = el('button', {
      type: 'button',
      class: 'story-words-toggle',
      'aria-expanded': 'false',
      text: 'Its vocabulary',
      onclick: () => this.#showWords(this.words.hidden),
    });
    this.rowsText = el('p', { class: 'story-rows' });
    this.switches = el('div', {
      class: 'controls story-switches slide-keep',
      role: 'group',
      'aria-label': 'Switch off a head',
    });
    this.switches.style.alignItems = 'center';
    this.ablation = el('p', { class: 'story-ablation', 'aria-live': 'polite' });
    const form = el(
      'form',
      {
        class: 'controls story-form',
        onsubmit: (event) => {
          event.preventDefault();
          this.#read(this.input.value);
        },
      },
      this.input,
      el('button', { type: 'submit', text: 'Read' }),
      this.wordsToggle,
      this.inputNote,
    );
    form.style.alignItems = 'center';
    Object.assign(this.input.style, { flex: '1 1 12rem', minWidth: '0' });
    Object.assign(this.words.style, { overflowWrap: 'anywhere' });
    this.body.append(this.reading, this.tokens, form, this.words, this.rowsText, this.switches, this.ablation);
  }

  // A typed sentence becomes the page's (every panel reads the same one).
  #read(text) {
    try {
      this.host.setConfig({ sentence: text });
      this.inputNote.textContent = '';
    } catch (error) {
      this.inputNote.textContent = error.message;
    }
  }

  #showWords(open) {
    this.words.hidden = !open;
    this.wordsToggle.setAttribute('aria-expanded', String(open));
  }

  #load() {
    if (this.#loading || this.#error) return;
    this.#loading = true;
    this.host
      .kept(this.id)
      .load()
      .then(
        () => {
          this.#loading = false;
          this.host.refresh(this.id);
        },
        (error) => {
          this.#loading = false;
          this.#error = error.message;
          this.host.refresh(this.id);
        },
      );
  }

  update(o, c) {
    this.options = o;
    if (this.input.getRootNode().activeElement !== this.input) this.input.value = o.sentence.replace(/\s+/g, ' ');
    const s = c?.story;
    if (s === null || s === undefined) {
      if (s === null) this.whenNear(() => this.#load()); // the model, once near the view
      this.s = null;
      this.clearFigures();
      this.status(
        this.#error
          ? `The story model could not be loaded: ${this.#error}.`
          : `Loading the story model (${STORY_CHECKPOINT})...`,
        this.#error ? 'error' : '',
      );
      return;
    }
    if (s.error) {
      this.s = null;
      this.clearFigures();
      this.status(`This panel could not be computed: ${s.error}`, 'error');
      return;
    }
    if (s === this.s) return;
    this.s = s;
    this.#zeroed ??= antecedentHead(s.roles);
    this.#say();
    this.draw();
  }

  // The paragraphs, the words as read and the switches (the numbers are the checkpoint's and the drawn ones).
  #say() {
    const s = this.s;
    const { reading, options: o, evaluation } = s;
    const g = evaluation.groups;
    this.status('');
    this.reading.textContent =
      `${s.name}: ${o.layers} layer of ${o.heads} heads of ${o.dModel / o.heads}, trained ${s.steps} steps on ` +
      `lecture-like English (${s.words.length} words; held-out accuracy over the candidates: subject pronoun ` +
      `${two(g.subject.candidateAccuracy)}, object pronoun ${two(g.object.candidateAccuracy)}). Your sentence: ` +
      `${storyReadingText(reading)}.`;
    // The words as read: an unknown one struck through, bold, and said in its title.
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
    this.wordsToggle.textContent = `Its vocabulary (${s.words.length} words)`;
    if (this.words.textContent === '') this.words.textContent = s.words.join(' ');
    const rows = pronounRows(reading);
    this.rowsText.textContent = rows.length
      ? rows
          .map(({ row, word, next }) => {
            const each = s.maps.map((map, h) => {
              const top = rowTop(map, s.T, row, reading.words);
              return `head ${h + 1} ${two(top.weight)} on "${top.word}"`;
            });
            return `From "${word}" (before "${next}"): ${each.join(', ')}.`;
          })
          .join(' ')
      : 'No word of your sentence comes before a pronoun: the rows that need an antecedent are those before one.';
    this.switches.replaceChildren(
      el('span', { text: 'Switch off:' }),
      ...s.roles.map((r, h) =>
        el('button', {
          type: 'button',
          class: 'story-switch',
          text: `head ${h + 1}`,
          title: r.role,
          'aria-label': `Switch off head ${h + 1} (${r.role})`,
          'aria-pressed': String(h === this.#zeroed),
          onclick: () => this.#switch(h),
        }),
      ),
    );
    const table = this.table();
    this.ablation.textContent = table
      ? ablationText(table, `head ${this.#zeroed + 1} (${s.roles[this.#zeroed].role})`) +
        " (held-out accuracy over the candidates, the checkpoint's ablation table; every other head on.)"
      : 'This checkpoint has no ablation table.';
  }

  #switch(h) {
    this.#zeroed = h;
    this.#say();
    this.draw();
  }

  /** The head switched off (its index). */
  get zeroed() {
    return this.#zeroed;
  }

  /** The checkpoint's ablation rows for the head switched off (ablationOf), or null. */
  table() {
    return this.s ? ablationOf({ ablation: this.s.ablation, evaluation: this.s.evaluation }, 0, this.#zeroed) : null;
  }

  draw() {
    const s = this.s;
    if (!s) return;
    const k = this.textScale;
    const width = this.drawWidth;
    const heads = headRowMaps(s);
    const table = this.table();
    // Wide (a slide, a wide page): the heads two by two, the bars beside them over both rows (a grid
    // of 3 columns); narrow (a phone): one figure under another, the page scrolls.
    const wide = width >= 900;
    const room = this.heightBelow(this.figureArea);
    const fits = Number.isFinite(room);
    const maxHeight = wide && fits ? Math.floor(room / 2) - 16 : Infinity;
    // A bar row's height: on a slide the two rows and their labels share the room.
    const barsHeight = wide && fits ? Math.max(60, Math.floor((room / k - 100) / 2)) : 70;
    let bars = null;
    if (table) {
      const name = `head ${this.#zeroed + 1} off`;
      bars = barsFigure({
        rows: [
          { name: `all ${s.roles.length} heads`, values: table.map((r) => r.whole) },
          { name, values: table.map((r) => r.without) },
        ],
        labels: table.map((r) => SHORT[r.skill]),
        // Short: the title sets the figure's least width (the head's role is its map's title).
        title: 'Held-out accuracy',
        maxWidth: wide ? Math.floor(0.28 * width) : width,
        height: barsHeight,
        textScale: k,
      });
    }
    // The two columns of heads share what the bars leave (and the grid's gaps, 12 px each).
    const w = wide ? Math.floor((width - (bars?.width ?? 0) - 40) / 2) : width;
    const items = heads.map((m, h) => ({
      // Labels 15% smaller on a slide (16.5 px at 1280x720), so every word of the sentence keeps its
      // column label in a map a third of the slide wide; no values in the cells there (they would be
      // smaller than a slide's least text: the point says the values of the rows it names).
      figure: heatmapFigure({
        ...m,
        maxWidth: w,
        maxHeight,
        textScale: k > 1 ? Math.max(1, 0.85 * k) : k,
        showValues: k > 1 ? false : undefined,
      }),
      label: `Head ${h + 1} (${s.roles[h].role}): its attention from the rows that need a pronoun's antecedent`,
      table: () => heatmapTable({ ...m, digits: 4 }),
    }));
    if (bars) items.push({ figure: bars, label: bars.title });
    this.figureArea.classList.toggle('grid', wide);
    this.figureArea.style.setProperty('--columns', wide ? '3' : '1');
    this.showFigures(items);
    // The bars in the third column, over both rows of heads; then fitted to the frame again.
    const barsCanvas = this.figureArea.querySelectorAll(':scope > canvas')[heads.length];
    if (barsCanvas) Object.assign(barsCanvas.style, { gridColumn: wide ? '3' : '', gridRow: wide ? '1 / span 2' : '' });
    this.fitToFrame();
  }

  exportData() {
    const s = this.s;
    if (!s) return super.exportData();
    return {
      panel: 'story',
      checkpoint: s.name,
      reading: s.reading,
      roles: s.roles.map((r) => r.role),
      rows: headRowMaps(s).map((m) => ({
        title: m.title,
        rows: m.rowLabels,
        words: m.colLabels,
        values: [...m.values],
      })),
      zeroed: this.#zeroed,
      ablation: this.table(),
    };
  }
}

export default {
  id: 'story',
  label: 'Story',
  aliases: ['lecture', 'story-heads'],
  slide: {
    point: (view) =>
      view.s
        ? storyPoint({
            reading: view.s.reading,
            maps: view.s.maps,
            T: view.s.T,
            head: view.zeroed,
            table: view.table(),
          })
        : `Loading the story model (${STORY_CHECKPOINT})...`,
  },
  parts: ['story'],
  numbers: { story: storyPart },
  keeps: (hw, settings) => new StoryModel(hw, settings),
  View: StoryPanel,
};
