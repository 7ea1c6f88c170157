// Panel 4: one attention heatmap per head; hovering or focusing a token highlights its row in
// every head. Then the concatenation back to d_model and the mixing by W_out (on a slide with more
// than 4 heads, in place of the maps, a button away). By default the heads are a shipped story
// model's trained heads (1, 2 or 4 heads, docs/story.md) on the user's sentence, read word by word
// against its vocabulary, each named by the role the core measured, with where they look from the
// lecture's "catch" and last "it"; "Random weights" shows the same model before training. A
// configuration with no trained model (GPT-2's 12 heads) shows its own random heads, and the
// trained 2-head model's beside them.
import { drawOnCanvases, PanelFrame } from '../../panel-frame.js';
import { el } from '../../dom.js';
import { heatmapFigure, heatmapTable, heatmapTitle } from '../../figures/heatmap.js';
import { LearnedView } from '../learn/learned-view.js';
import { headBands, outProjectFigure, outProjectTitle } from '../../figures/out-project-figure.js';
import { DEFAULT_HEADS_WEIGHTS, HEADS_WEIGHTS, leadRow, readingRow, rowInReading } from './trained-heads.js';
import { TrainedModels, trainedPart } from './heads-numbers.js';
import {
  briefDifference,
  differenceText,
  headsPoint,
  learnedText,
  lectureRun,
  modelText,
  UNTRAINED,
} from './heads-words.js';

const MAX_HEADS_DRAWN = 16;
// On a slide, more heads than this get the figure column to themselves: the W_out product is a
// button away (GPT-2's 12 maps beside it were 24 px specks on a 1280x720 slide).
const MAPS_BESIDE_PRODUCT = 4;

// The trained 2-head model beside a configuration that has none, as the LearnedView draws a run:
// one row per head, the attention from the lead row (the lecture's "catch", before the last "it")
// before and after training.
function besideLearned(t) {
  const T = t.words.length;
  const lead = leadRow(t.rows);
  const at = lead >= 0 ? lead : T - 1;
  const rows = (fused) =>
    Array.from({ length: t.heads }, (_, h) => [...fused.attention.subarray((h * T + at) * T, (h * T + at + 1) * T)]);
  // Row labels are cut at 12 characters (heatmap.js): the role alone where it fits.
  const labels = (view) => view.roles.map((r, h) => (r.role.length <= 12 ? r.role : `head ${h + 1}`));
  return {
    checkpoint: true,
    name: t.name,
    step: t.steps,
    words: t.words,
    from: t.words[at],
    runs: [
      {
        heads: t.heads,
        trained: rows(t.trained.fused),
        // The same model before training, once measured (it is not drawn here; the export has it).
        untrained: t.random && rows(t.random.fused),
        labels: { trained: labels(t.trained), untrained: t.random && labels(t.random) },
      },
    ],
  };
}

export class HeadsPanel extends PanelFrame {
  constructor(host) {
    super(
      'heads',
      '4. Heads',
      'One T x T attention map per head (rows: the token that looks; columns: the tokens it looks at). Hover or ' +
        'focus a token to follow its row in every head; click it to keep it.',
      host,
    );
    this.highlight = -1;
    this.locked = -1; // the row a click keeps highlighted (hovering then changes nothing), -1 for none
    this.tokenBar = el('div', {
      class: 'token-bar slide-keep', // on a slide designed as one, the row lock stays (styles.js)
      role: 'group',
      'aria-label': 'Highlight a token row in every head',
    });
    // One tab stop for the whole bar; the arrows (and Home, End) move between tokens inside it.
    // Where the pointer last was over the bar: when the bar is rebuilt under a still pointer (the
    // trained heads drop a ","), the browser sends mouseenter to whichever token now lies there;
    // the row follows the pointer's moves, not the words moving under it.
    this.tokenBar.addEventListener('mousemove', (event) => (this.pointerAt = [event.clientX, event.clientY]));
    this.tokenBar.addEventListener('keydown', (event) => {
      const buttons = [...this.tokenBar.children];
      const at = buttons.indexOf(event.target);
      const next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0 };
      next.End = buttons.length - 1;
      if (event.key === 'Escape' && this.locked >= 0) {
        event.preventDefault();
        this.lock(this.locked);
        return;
      }
      if (at < 0 || !(event.key in next)) return;
      event.preventDefault();
      buttons[Math.max(0, Math.min(buttons.length - 1, next[event.key]))].focus();
    });
    this.lockNote = el('p', { class: 'lock-note help', 'aria-live': 'polite' });
    // Trained heads by default; the toggle shows the same shapes with random weights.
    this.weightsToggle = el('button', {
      type: 'button',
      class: 'weights-toggle',
      text: 'Random weights',
      'aria-pressed': 'false',
      onclick: () => {
        const random = this.options?.headsWeights === 'random';
        this.host.setOptions({ headsWeights: random ? 'trained' : 'random' });
      },
    });
    this.about = el('p', { class: 'trained-about', 'aria-live': 'polite' });
    this.trainedLoading = false;
    this.trainedError = '';
    this.view = null; // what the maps draw: the trained model's heads, the same untrained, or the layer's
    this.mixing = el('p', { class: 'mixing' });
    // On a slide with many heads the figure column shows the maps, the W_out product ('mix') or, when
    // no trained model has that many heads, the trained model's heads ('trained'): the option
    // heads-column, so a deck's link can open on any of them; each button swaps to its view and back.
    this.mixToggle = this.#columnToggle('mix-toggle', 'mix');
    this.trainedToggle = this.#columnToggle('trained-toggle', 'trained');
    // The lock note, and on a slide with many heads the button that swaps maps and W_out product
    // beside it (in the text's column: the maps' column keeps its height for them).
    this.body.append(
      // slide-keep: the switches of what the figure shows stay on a slide designed as one (styles.js).
      el('div', { class: 'weights-row slide-keep' }, this.weightsToggle, this.trainedToggle),
      this.about,
      this.tokenBar,
      el('div', { class: 'lock-row slide-keep' }, this.lockNote, this.mixToggle),
    );
    // Escape anywhere in the panel unlocks (focus may be on a map or a button, not the bar).
    this.section.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.locked >= 0 && !this.tokenBar.contains(event.target)) this.lock(this.locked);
    });
    this.mixArea = el('div', { class: 'figures mix' });
    this.learnedView = new LearnedView(host, {
      untrained: UNTRAINED,
      text: learnedText,
      maps: (learned) => {
        const run = lectureRun(learned);
        if (learned.checkpoint) {
          return [{ run, kind: 'trained', title: `${learned.name}, trained: from "${learned.from}"` }];
        }
        return [
          { run, kind: 'untrained', title: 'Random: from "?"' },
          { run, kind: 'trained', title: `Trained ${learned.step} steps` },
        ];
      },
    });
    // What merge does and what trained heads would show are said first (on a wide slide, under the
    // text); the maps, the mixing figures and the trained heads' maps go together (on a wide slide,
    // the right column, where they share its height). With many heads on a slide, the paragraph on
    // merge goes with the mixing figure, above it (draw).
    const side = el('div', { class: 'side' });
    this.side = side;
    this.figureArea.replaceWith(side);
    side.before(this.mixing, this.learnedView.element);
    side.append(this.figureArea, this.mixArea, this.learnedView.area);
  }

  // A button that swaps what the figure column shows on a slide with many heads, the maps or `view`
  // (draw sets its text).
  #columnToggle(name, view) {
    return el('button', {
      type: 'button',
      class: name,
      'aria-pressed': 'false',
      hidden: true,
      onclick: () => this.host.setOptions({ headsColumn: this.options?.headsColumn === view ? 'maps' : view }),
    });
  }

  /** Highlights a row while the pointer or the focus is on it; a locked row stays instead. */
  setHighlight(row) {
    if (this.locked >= 0 || row === this.highlight) return;
    this.#show(row);
  }

  /** A click on token `row`: locks its row, or unlocks it if it is the locked one. */
  lock(row) {
    this.locked = this.locked === row ? -1 : row;
    // The URL carries it (the token in the sentence as typed); drawn here.
    const v = this.view;
    const token = this.locked >= 0 && v?.reading ? rowInReading(v.reading, this.locked) : this.locked;
    this.host.setOptions({ headsLock: token }, { quiet: true });
    this.#show(this.locked);
  }

  #show(row) {
    this.highlight = row;
    for (const [i, b] of [...this.tokenBar.children].entries()) {
      b.setAttribute('aria-pressed', String(i === this.locked));
      b.dataset.highlight = String(i === row);
      b.tabIndex = i === Math.max(row, 0) ? 0 : -1;
    }
    this.#sayLock();
    this.draw();
  }

  #sayLock() {
    const tokens = this.view?.tokens ?? [];
    this.lockNote.textContent =
      this.locked >= 0
        ? `The row of "${tokens[this.locked]}" is locked: click it again or press Escape to unlock.`
        : 'Click a token to lock its row.';
  }

  // What the maps draw. With a trained model for the head count: its heads (trained, or before
  // training with "Random weights"); otherwise, or while the model (or the same before training)
  // loads, the configuration's layer.
  #viewOf(o, c) {
    const t = c.trained && !c.trained.error ? c.trained : null;
    const random = o.headsWeights === 'random';
    if (t?.matches && (!random || t.random)) {
      const source = random ? 'random' : 'trained';
      const w = t[source];
      return {
        source,
        tokens: t.words,
        fused: w.fused,
        heads: t.heads,
        dModel: t.dModel,
        causal: t.causal,
        headDim: t.headDim,
        wOut: w.wOut,
        roles: w.roles,
        difference: w.difference,
        reading: t.reading,
        readRow: leadRow(t.rows),
        batch: 1,
        joined: false,
      };
    }
    const v = c.whole;
    const { heads, dModel, causal, batch } = c.config;
    const measuring = t?.matches && random; // the model before training, measured next
    const source = measuring || !(t || random) ? 'loading' : 'configuration';
    const { tokens, fused, joined } = v;
    return {
      source,
      tokens,
      fused,
      heads,
      dModel,
      causal,
      headDim: c.headDim,
      wOut: c.wOut,
      roles: null,
      reading: null,
      batch,
      joined,
    };
  }

  // Loads what the options draw of the trained models (the owner keeps them) and draws again when
  // it is there; what they draw then may ask for more (update).
  #loadTrained() {
    if (this.trainedLoading || this.trainedError) return;
    this.trainedLoading = true;
    this.host
      .kept(this.id)
      .load(this.options)
      .then(
        () => {
          this.trainedLoading = false;
          this.host.refresh(this.id);
        },
        (error) => {
          this.trainedLoading = false;
          this.trainedError = error.message;
          this.host.refresh(this.id);
        },
      );
  }

  // The paragraph on the weights: the trained model, how it read the sentence, each head's role
  // and how the heads differ; or why the maps are random.
  #sayWeights(o, c, view) {
    const t = c.trained && !c.trained.error ? c.trained : null;
    const random = o.headsWeights === 'random';
    // Drawn as the maps are: ticked whenever they are random. Where no trained model has this head
    // count (GPT-2's 12 heads), they can only be random: ticked, and nothing to switch to.
    const onlyRandom = view.source === 'configuration';
    this.weightsToggle.setAttribute('aria-pressed', String(random || onlyRandom));
    this.weightsToggle.disabled = onlyRandom;
    this.weightsToggle.title = onlyRandom
      ? `No trained model has ${c.config.heads} heads: these weights are random`
      : '';
    this.section.dataset.headsWeights = view.source;
    this.section.dataset.trainedModel = t?.name ?? '';
    const failed = this.trainedError || c.trained?.error;
    if (view.source === 'trained') {
      this.about.textContent =
        `Trained heads: ${modelText(t)} ${differenceText(view)}` +
        (c.config.dModel === t.dModel
          ? ''
          : ` (The input panel's layer of width ${c.config.dModel} has no trained weights.)`);
    } else if (view.source === 'random') {
      this.about.textContent =
        `Random weights: ${t.name} before training (its seeded weights, step 0). ` + briefDifference(view);
    } else if (failed) {
      this.about.textContent = `The trained heads could not be loaded: ${failed}. These maps use random weights.`;
    } else if (view.source === 'loading' && t) {
      this.about.textContent = `Measuring ${t.name} before training (its seeded weights, step 0)...`;
    } else if (view.source === 'loading') {
      this.about.textContent = 'Loading the trained heads (web/checkpoints/story-*-heads.json)...';
    } else if (t && !random) {
      const H = c.config.heads;
      this.about.textContent =
        `No trained model exists for ${H} heads (${c.config.dModel} = ${H} x ${c.headDim}): these are random ` +
        `(seed ${c.config.seed}). The trained ${t.name} on your sentence in its words. ` +
        briefDifference(t.trained);
    } else {
      this.about.textContent = `Random weights (seed ${c.config.seed}).`;
    }
    // The Learn panel's run (and its Train button) with random weights; the trained model beside a
    // layer that has none; nothing beside the trained model's own heads.
    const beside = t && !t.matches && !random;
    const hidden = !beside && !random;
    this.learnedView.element.hidden = hidden;
    this.learnedView.area.hidden = hidden;
    this.learnedView.note.hidden = Boolean(beside);
    this.beside = Boolean(beside);
    this.learnedHidden = hidden;
    this.learnedView.update(beside ? besideLearned(t) : hidden ? null : c.learned);
  }

  update(o, c) {
    this.options = o;
    this.computed = c;
    // What the options draw of the trained models, once near the view: the model, or with "Random
    // weights" the same before training.
    const t = c?.trained;
    const unmeasured = t && !t.error && t.matches && o.headsWeights === 'random' && !t.random;
    if (t === null || unmeasured) this.whenNear(() => this.#loadTrained());
    if (!c || c.status !== 'ok') {
      this.view = null;
      this.learnedView.update(c?.learned);
      this.about.textContent = '';
      this.tokenBar.replaceChildren();
      this.lockNote.textContent = '';
      this.mixing.textContent = '';
      this.mixToggle.hidden = true;
      this.section.classList.remove('many-heads');
      this.mixArea.replaceChildren();
      this.clearFigures();
      this.learnedView.draw(this.drawWidth);
      this.status(
        c?.status === 'shapes-only'
          ? `Shapes only: ${c.message}. Each head would be a ${c.config.tokens} x ${c.config.tokens} map; there ` +
              `would be ${c.config.heads} of them.`
          : `Waiting for a valid configuration${c?.message ? `: ${c.message}` : '.'}`,
        c?.status === 'shapes-only' ? 'warn' : 'error',
      );
      return;
    }
    const v = this.#viewOf(o, c);
    const before = this.view;
    const changed = before?.source !== v.source || before?.tokens.length !== v.tokens.length;
    const focused = [...this.tokenBar.children].indexOf(this.tokenBar.getRootNode().activeElement);
    this.view = v;
    this.#sayWeights(o, c, v);
    // The trained model's heads are read from the lead row (the lecture's "catch"): it is
    // highlighted (and labelled) until the
    // reader points at another. A row the reader locked, pointed at or focused stays on its token when
    // the view changes (the trained heads arriving, the weights toggled).
    const fromRead = v.roles ? (v.readRow >= 0 ? v.readRow : v.tokens.length - 1) : -1;
    // The locked row is the heads-lock option (a copied link keeps it), which names the token in the
    // sentence as typed: the same token in every view (the trained model reads the sentence as its
    // own words). Another sentence unlocks.
    const another = changed && before && before.source === v.source;
    const token = another ? -1 : o.headsLock;
    this.locked = this.#rowOfToken(token, v);
    if (token !== o.headsLock) this.host.setOptions({ headsLock: token }, { quiet: true });
    if (changed) {
      const carried = this.#rowInView(this.highlight, before, v);
      this.highlight = this.locked >= 0 ? this.locked : carried >= 0 ? carried : fromRead;
      this.rowBeforeHover = this.#rowInView(this.rowBeforeHover ?? -1, before, v);
    } else if (this.highlight >= v.tokens.length) this.highlight = fromRead;
    else if (this.locked >= 0) this.highlight = this.locked;
    this.tokenBar.replaceChildren(
      ...v.tokens.map((token, i) =>
        el('button', {
          type: 'button',
          class: 'token',
          text: token,
          'aria-pressed': String(i === this.locked),
          'data-highlight': String(i === this.highlight),
          tabindex: i === Math.max(this.highlight, 0) ? '0' : '-1',
          onmouseenter: (event) => {
            const [x, y] = this.pointerAt ?? [];
            if (event.clientX !== x || event.clientY !== y) this.setHighlight(i);
          },
          onfocus: () => this.setHighlight(i),
          onclick: () => this.lock(i),
        }),
      ),
    );
    this.#sayLock();
    const H = v.heads;
    const drawn = H > MAX_HEADS_DRAWN ? ` (the first ${MAX_HEADS_DRAWN} are drawn; all are in the JSON export)` : '';
    const mask = v.causal ? ', causal: no token looks ahead' : ', no mask';
    const B = v.batch;
    const which = v.joined
      ? ` The batch's ${B} sentences read as one sequence of ${v.tokens.length} tokens.`
      : B > 1
        ? ` Sentence 1 of the batch of ${B} (all ${B} as one sequence would be too long for the page).`
        : '';
    const T = v.tokens.length;
    this.status(`${H} head${H === 1 ? '' : 's'}${drawn}, each ${T} x ${T}${mask}.${which}`);
    this.draw();
    // The bar was rebuilt: the focus goes to the new button of the token that had it.
    const refocus = focused >= 0 ? (changed ? this.#rowInView(focused, before, v) : focused) : -1;
    this.tokenBar.children[refocus]?.focus({ preventScroll: true });
  }

  // Row `row` of view `from` in view `to`: the same row when both draw the same words (the trained
  // model's heads and its weights before training), else the row of the same token of the user's
  // sentence (a trained model's row reads a token of it, or none: the "."s after the sentence); -1
  // when `to` has no row for it, or is another sentence in the same kind of view.
  // The row of the sentence's token `token` in view v, or -1.
  #rowOfToken(token, v) {
    if (token < 0) return -1;
    if (v.reading) return readingRow(v.reading, token);
    return token < v.tokens.length ? token : -1;
  }

  #rowInView(row, from, to) {
    if (row < 0 || !from) return -1;
    if (from.tokens.length === to.tokens.length && from.tokens.every((t, i) => t === to.tokens[i])) return row;
    if (from.source === to.source) return -1; // another sentence
    const token = from.reading ? rowInReading(from.reading, row) : row;
    if (to.reading) return readingRow(to.reading, token);
    return token < to.tokens.length ? token : -1;
  }

  draw() {
    const c = this.computed;
    const v = this.view;
    if (!c || c.status !== 'ok' || !v) return;
    const { heads: H, dModel: D, causal } = v;
    const T = v.tokens.length;
    const hd = v.headDim;
    const shown = Math.min(H, MAX_HEADS_DRAWN);
    const k = this.textScale;
    const headMap = (h) => ({
      values: v.fused.attention,
      offset: h * T * T,
      rows: T,
      cols: T,
      rowLabels: v.tokens,
      colLabels: v.tokens,
      cellLabels: v.tokens, // the tooltip names them on maps of a grid drawn without them
      scale: 'probability',
      masked: causal ? (i, j) => j > i : null,
      title: v.roles ? `head ${h + 1}: ${v.roles[h].role}` : `head ${h + 1}`,
      quantity: 'attention',
      scores: v.fused.scores,
      headDim: hd,
      textScale: k,
    });
    const bands = headBands(H, hd);
    // Sentence 1's rows of concat and output (the maps above are its heads), for the tables.
    const concat = { values: v.fused.concat, rows: T, cols: D, rowLabels: v.tokens, title: 'concat' };
    const out = { values: v.fused.output, rows: T, cols: D, rowLabels: v.tokens, title: 'output = concat @ W_out' };
    const shapes = { concat: [T, D], wOut: [D, D], output: [T, D] };
    const product = (mix) =>
      outProjectFigure({
        concat: v.fused.concat,
        wOut: v.wOut,
        output: v.fused.output,
        rows: T,
        C: D,
        D,
        shapes,
        rowLabels: v.tokens,
        bands,
        maxWidth: mix.maxWidth,
        maxHeight: mix.maxHeight,
        textScale: k,
        highlightRow: this.highlight,
        stackIfNarrow: true,
      }).figure;
    // On a slide with many heads the maps or the product take the figure column, and a button swaps
    // them; that column is then wider.
    const swap = Boolean(this.section.closest('.explorer.slide')) && shown > MAPS_BESIDE_PRODUCT;
    // The trained model beside the random heads stands with the text that gives its numbers; on a
    // slide with many heads it takes the figure column instead, a button away.
    const besideInColumn = this.beside && swap;
    this.besideInText = this.beside && !swap;
    const area = this.learnedView.area;
    if (this.besideInText) this.about.after(area);
    else if (area.parentNode !== this.side) this.side.append(area);
    const column = this.options?.headsColumn;
    const showTrained = besideInColumn && column === 'trained';
    this.trainedInColumn = showTrained; // the slide's point says so (headsPoint)
    // The maps' weights switch goes with the maps: the trained model's heads in their place are trained.
    this.weightsToggle.hidden = showTrained;
    area.hidden = this.learnedHidden || (besideInColumn && !showTrained);
    this.trainedToggle.hidden = !besideInColumn;
    this.trainedToggle.textContent = showTrained ? `Show the ${shown} maps` : 'Show the trained heads';
    this.trainedToggle.setAttribute('aria-pressed', String(showTrained));
    const showMaps = !swap || (column !== 'mix' && !showTrained);
    const showMix = !swap || column === 'mix';
    this.mixToggle.hidden = !swap;
    this.mixToggle.textContent = swap && showMix ? `Show the ${shown} maps` : 'Show W_out mixing';
    this.mixToggle.setAttribute('aria-pressed', String(swap && showMix));
    this.section.classList.toggle('many-heads', swap);
    this.figureArea.classList.add('grid'); // before the layout reads its gaps
    if (swap) this.side.prepend(this.mixing);
    else this.learnedView.element.before(this.mixing);
    this.mixing.hidden = !showMix;
    this.mixArea.hidden = !showMix;
    this.mixing.textContent =
      `Merge puts each head's ${hd} context features side by side: ${H} x ${hd} = ${D} ` +
      `columns, back to width d_model. W_out then mixes them, so each output feature can combine what different ` +
      `heads found.`;
    // The trained heads' maps (after a run) first: on a slide the others take the height they leave.
    // Beside the text on a slide they are kept to a fifth of the height (rows as short as their labels).
    const besideText =
      this.slideFirst || this.side.getBoundingClientRect().left > this.body.getBoundingClientRect().right;
    const sideWidth = this.side.getBoundingClientRect().width || this.drawWidth;
    // (A fifth of the whole column: with many heads the merge paragraph may stand above the figures.)
    const height = this.heightBelow(swap ? this.side : this.figureArea);
    const frame = this.host.viewportHeight();
    const learnedTables = showTrained
      ? this.learnedView.draw(sideWidth, {
          across: 1,
          maxHeight: Number.isFinite(height) ? height - 8 : Infinity,
          textScale: k,
          fill: this.slideFirst, // on a slide the trained heads are the figure: as large as it allows
        })
      : this.besideInText
        ? this.learnedView.draw(Math.min(this.drawWidth, this.body.getBoundingClientRect().width || this.drawWidth), {
            across: 1,
            maxHeight: besideText && frame ? Math.round(frame * 0.2) : Infinity,
            textScale: k,
          })
        : this.learnedView.draw(Math.min(this.drawWidth, sideWidth), {
            across: sideWidth >= 480 ? 2 : 1,
            maxHeight: besideText && Number.isFinite(height) ? Math.round(height * 0.2) : Infinity,
            textScale: k,
          });
    const layout = this.#layout(shown, headMap(0), outProjectTitle(shapes), (mix) => product(mix).height, {
      maps: showMaps,
      mix: showMix,
    });
    const items = [];
    for (let h = 0; h < shown; h += 1) {
      const common = headMap(h);
      // In a grid of maps the axes are shared: token labels on the outer maps only.
      const shared = shown > 2;
      const labels = shared
        ? {
            rowLabels: h % layout.columns === 0 ? common.rowLabels : [],
            colLabels: h < layout.columns ? common.colLabels : [],
          }
        : {};
      items.push({
        figure: heatmapFigure({
          ...common,
          ...labels,
          ...(shared && h % layout.columns ? (layout.inner ?? layout.map) : layout.map),
          highlightRow: this.highlight,
        }),
        table: () => heatmapTable({ ...common, title: `Head ${h + 1} attention` }),
        label: `Head ${h + 1} attention heatmap, ${T} by ${T}; the table below has the numbers`,
        onCanvas: (canvas) => this.#hover(canvas, h),
      });
    }
    this.figureArea.style.setProperty('--columns', String(layout.columns));
    // Maps not shown keep their canvases, hidden (and their tables); the panel still has figures.
    this.showFigures(showMaps ? items : [], { row: true });
    this.section.dataset.figures = 'some';
    this.mixFigures = showMix ? [product(layout.mix)] : [];
    this.mixArea.classList.toggle('row', layout.mixInRow);
    drawOnCanvases(
      this.mixArea,
      this.mixFigures.map((figure) => ({ figure })),
      this.host.palette(),
    );
    this.addTables(
      ...(showMaps ? [] : items.map((i) => i.table)),
      () => heatmapTable(concat),
      () => heatmapTable(out),
      ...learnedTables,
    );
    // A hidden learned area (on a slide, the trained heads a button away) has no figures on screen.
    for (const canvas of area.querySelectorAll('canvas')) if (area.hidden) canvas.hidden = true;
    this.figures.push(...this.mixFigures, ...(area.hidden ? [] : this.learnedView.figures));
    this.fitToFrame();
    if (!showMaps) this.host.figureDrawn();
  }

  // The maps in a grid. On a slide, the number of columns that gives the largest cells with every
  // map inside the frame (the maps beside the text on a wide slide, under it otherwise; one layout
  // read per draw). Elsewhere as many columns as keep maps 140 px wide (times the text scale), in
  // rows of equal length. show: { maps, mix }, which of the two are drawn (on a slide with many heads,
  // one of them, which then has the height to itself).
  #layout(shown, sample, productTitle, mixHeight, show = { maps: true, mix: true }) {
    const gap = 12;
    const k = this.textScale;
    const width = this.drawWidth;
    const available = this.heightBelow(this.figureArea);
    // The maps of the first column are wider by their row labels' room.
    // (Two maps both keep their labels.)
    const labelRoom =
      shown > 2 ? heatmapFigure({ ...sample, maxWidth: 400 }).items.find((it) => it.kind === 'grid').x - 8 : 0;
    const inner = (space, columns) => Math.floor((space - labelRoom - (columns - 1) * gap) / columns) - 4;
    const pageLayout = () => {
      let fit = 1;
      while (fit < shown && inner(width, fit + 1) >= 100 * k) fit += 1;
      const columns = Math.ceil(shown / Math.ceil(shown / fit));
      const each = inner(width, columns);
      // Every map's cells alike, the labelled ones' too (their labels thin out if rows are short).
      const grid = heatmapFigure({ ...sample, rowLabels: [], maxWidth: each }).items.find((it) => it.kind === 'grid');
      const cellSize = shown > 2 ? [grid.cellW, grid.cellH] : undefined;
      const map = { maxWidth: each + labelRoom, cellSize };
      const mix = { maxWidth: width };
      return { columns, map, inner: { maxWidth: each, cellSize }, mix, mixInRow: false };
    };
    if (!Number.isFinite(available)) return pageLayout();
    // Beside the text (a wide slide), the maps and the mixing figures share the right column.
    const mapsWidth = this.figureArea.getBoundingClientRect().width || width;
    // Unless the text stands beside them, the paragraph and the trained heads' view come first.
    // Designed as a slide, only the switches stand above the maps: they have the frame as beside the text.
    const beside =
      this.slideFirst || this.figureArea.getBoundingClientRect().left > this.body.getBoundingClientRect().right;
    const merge = this.side.contains(this.mixing) ? 0 : this.mixing.getBoundingClientRect().height;
    const above = merge + this.learnedView.element.getBoundingClientRect().height;
    const paragraph = beside ? 0 : above + 2 * gap;
    // The product's title (as long as it wraps) and its three maps' titles, a line each.
    const titles = heatmapTitle({ title: productTitle, maxWidth: mapsWidth, textScale: k }).height + 20 * k;
    const learned = this.besideInText ? 0 : this.learnedView.height;
    // Room between the figure areas; the maps alone end the panel: their area's margin, and the
    // margin and 4 spare px fitToFrame keeps.
    const between =
      show.maps && show.mix ? 3 * gap : 2 * parseFloat(getComputedStyle(this.figureArea).marginBottom) + 4;
    // Designed as a slide, its figure text may not shrink under 16 px: a little room to spare instead.
    const spare = this.slideFirst ? 12 : 0;
    const rest = available - paragraph - between - (learned ? learned + gap : 0) - spare;
    // The product alone: beside the text, the column's height; under it, as on a page.
    if (!show.maps) {
      const mix = beside ? { maxWidth: mapsWidth, maxHeight: Math.max(60, rest - 8) } : pageLayout().mix;
      return { ...pageLayout(), mix, mixInRow: true };
    }
    const mixText = titles + 12 * k + 16;
    // The mixing figure has a least height (its rows keep their labels): the maps get what it leaves.
    const planned = Math.floor(mixText + Math.max(60 * k, (rest - mixText) * 0.3));
    const forMix = show.mix
      ? Math.max(planned, mixHeight({ maxWidth: mapsWidth, maxHeight: Math.max(60, planned - 8) }) + 8)
      : 0;
    const forMaps = rest - forMix;
    const mixFor = (space) => ({ maxWidth: mapsWidth, maxHeight: Math.max(60, space - 8) });
    // Under text that already fills the frame (a phone held upright) the slide scrolls: the maps keep
    // the size they have on a page rather than shrink to specks.
    if (!beside && forMaps < 160 * k) return pageLayout();
    if (shown > 2) {
      const grid = this.#sharedGrid(shown, sample, mapsWidth, forMaps);
      // Under the text, maps squeezed under 100 px (a phone with a little height left) keep their page size.
      if (!beside && grid.cell * sample.cols < 100 * k) return pageLayout();
      return { ...grid, mix: mixFor(forMix) };
    }
    let best = null;
    for (let columns = 1; columns <= shown; columns += 1) {
      const rows = Math.ceil(shown / columns);
      const each = inner(mapsWidth, columns);
      const map = { maxWidth: each + labelRoom, maxHeight: Math.floor((forMaps - (rows - 1) * gap) / rows) };
      const figure = heatmapFigure({ ...sample, ...map });
      const grid = figure.items.find((it) => it.kind === 'grid');
      const cell = grid.cellW;
      const fits = figure.height <= map.maxHeight;
      // None fits (a long sentence, its rows at their least height): the columns that overflow least.
      const over = rows * figure.height - map.maxHeight * rows;
      const better = best && (fits === best.fits ? (fits ? cell > best.cell : over < best.over) : fits);
      if (!best || better) {
        const cellSize = [grid.cellW, grid.cellH];
        best = { columns, map: { ...map, cellSize }, inner: { maxWidth: each, cellSize }, cell, fits, over };
      }
    }
    return { ...best, mix: mixFor(forMix), mixInRow: true };
  }

  // Maps in a grid with shared axes, in `width` x `height` px: column labels over the top row only,
  // row labels left of the first column only, every map's cells alike, the figure area's own gaps
  // between them. The number of columns that gives the largest cells.
  #sharedGrid(shown, sample, width, height) {
    const style = getComputedStyle(this.figureArea);
    const columnGap = parseFloat(style.columnGap) || 0;
    const rowGap = parseFloat(style.rowGap) || 0;
    const grid = heatmapFigure({ ...sample, rowLabels: [], maxWidth: 400 }).items.find((it) => it.kind === 'grid');
    const [across, down] = [grid.cols, grid.rows]; // cells of one map as drawn (pooled if large)
    let best = null;
    for (let columns = 1; columns <= shown; columns += 1) {
      const rows = Math.ceil(shown / columns);
      const size = (cell) => {
        const cellSize = [cell, cell];
        const corner = heatmapFigure({ ...sample, cellSize }); // both labels
        const left = heatmapFigure({ ...sample, colLabels: [], cellSize }); // the first column's
        const top = heatmapFigure({ ...sample, rowLabels: [], cellSize }); // the top row's
        return {
          corner,
          top,
          wide: corner.width + (columns - 1) * (top.width + columnGap),
          tall: corner.height + (rows - 1) * (left.height + rowGap),
        };
      };
      // From cells that fill the space without labels, smaller until the labelled grid fits too
      // (a few steps: the labels' room hardly changes with the cells).
      let cell = Math.max(
        1,
        Math.min(
          Math.round(40 * (sample.textScale ?? 1)),
          Math.floor(width / (columns * across)),
          Math.floor(height / (rows * down)),
        ),
      );
      let s = size(cell);
      for (;;) {
        const over = Math.max((s.wide - width) / (columns * across), (s.tall - height) / (rows * down));
        if (over <= 0 || cell === 1) break;
        cell = Math.max(1, cell - Math.max(1, Math.ceil(over)));
        s = size(cell);
      }
      const fits = s.wide <= width && s.tall <= height;
      if (!best || (fits && !best.fits) || (fits === best.fits && cell > best.cell)) {
        const cellSize = [cell, cell];
        best = {
          columns,
          map: { maxWidth: s.corner.width, cellSize },
          inner: { maxWidth: s.top.width, cellSize },
          cell,
          fits,
        };
      }
    }
    return { ...best, mixInRow: true };
  }

  #hover(canvas, h) {
    // The row the pointer highlights goes back to the token bar's choice when the pointer leaves.
    canvas.addEventListener('mouseenter', () => {
      this.rowBeforeHover = this.highlight;
    });
    canvas.addEventListener('mouseleave', () => this.setHighlight(this.rowBeforeHover ?? -1));
    canvas.addEventListener('mousemove', (event) => {
      const figure = this.figures[h];
      const T = this.view?.tokens?.length ?? 0;
      if (!figure || !T) return;
      const rect = canvas.getBoundingClientRect();
      const y = ((event.clientY - rect.top) / rect.height) * figure.height;
      const grid = figure.items.find((it) => it.kind === 'grid');
      if (!grid) return;
      const top = grid.y;
      const bottom = grid.y + grid.rows * grid.cellH;
      if (y >= top && y < bottom) this.setHighlight(Math.floor(((y - top) / (bottom - top)) * T));
    });
  }

  exportData() {
    const c = this.computed;
    const v = this.view;
    if (!c || c.status !== 'ok' || !v) return { panel: 'heads', status: this.statusLine.textContent };
    const T = v.tokens.length;
    const t = c.trained && !c.trained.error ? c.trained : null;
    const trained = t && {
      model: t.name,
      words: t.words,
      reading: t.reading,
      rows: t.rows,
      steps: t.steps,
      curve: t.curve,
      trained: { roles: t.trained.roles, difference: t.trained.difference },
      // The same model before training: null until "Random weights" has measured it.
      random: t.random && { roles: t.random.roles, difference: t.random.difference },
    };
    return {
      panel: 'heads',
      weights: v.source,
      tokens: v.tokens,
      config: v.source === 'trained' || v.source === 'random' ? { ...t.options, heads: v.heads } : c.config,
      sentences: v.joined ? 'the batch read as one sequence' : 'sentence 1 of the batch',
      attentionShape: [v.joined ? 1 : v.batch, v.heads, T, T],
      attention: v.fused.attention,
      concat: v.fused.concat,
      wOut: v.wOut,
      output: v.fused.output,
      trainedHeads: trained,
      learned: this.learnedView.exportData(),
    };
  }
}

export default {
  id: 'heads',
  slide: { point: headsPoint },
  label: 'Heads',
  options: [
    // The maps' weights: a shipped model's trained heads, or the same shapes untrained.
    { name: 'heads-weights', choices: HEADS_WEIGHTS, fallback: DEFAULT_HEADS_WEIGHTS },
    // The token whose row a click keeps highlighted in every head (its index in the token bar; -1: none).
    { name: 'heads-lock', range: [-1, 1_000_000], fallback: -1 },
    // On a slide with many heads, what the figure column shows (see the column toggles).
    { name: 'heads-column', choices: ['maps', 'trained', 'mix'], fallback: 'maps' },
  ],
  parts: ['whole', 'wOut', 'learned', 'trained'],
  numbers: { trained: trainedPart },
  keeps: (hw, settings) => new TrainedModels(hw, settings),
  View: HeadsPanel,
};
