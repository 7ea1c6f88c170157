// The Learn panel's second experiment, "1 layer vs 2 layers" (learn-experiment=layers): the shipped
// induction checkpoints drawn at once (the owner keeps them: learn-numbers.js), or their
// training replayed from scratch in Workers ("Train live", induction-live.js) with the curves growing
// as it goes. Figures: induction-charts.js; the phase change, the shown sequence and the account in
// words: induction-data.js. The Learn panel (learn-panel.js) owns the section and hands this view
// its controls' place, its figure area and its status line. The story experiment's view
// (story-view.js) is this one with its own data, text and figures: the methods under "What the
// experiment shows" are the ones it replaces.
import { el } from '../../dom.js';
import { drawOnCanvases } from '../../panel-frame.js';
import { headsFigure, headTiles, lossFigure } from './induction-charts.js';
import { hitsOnSequence, inductionAccount, phaseChange } from './induction-data.js';
import { LIVE_EVAL_SIZE, MAPS_EVERY, MEASURE_EVERY } from './induction-live.js';

export const INDUCTION_INTRO =
  '1 and 2 layers of 4 attention heads, trained to predict the next token of 64 random tokens in which a ' +
  'segment repeats: only the repeat can be predicted, by copying. Maps: each head on one held-out sequence ' +
  '(bars: the first copy above, the repeat at the left).';
// A map's side in px: at most, and the least before the figures shrink as a whole (fitToFrame).
const MAX_MAP = 160;
const MIN_MAP = 48;
const MAP_STEP = 4;
const HEAD_GAP = 8; // between the maps' tiles (times the text scale), as induction-charts.js keeps it
const MIN_SIDE_CHART = 170; // the scores chart beside the maps needs this much width (times the text scale)
const UNDER_WAY = ['starting', 'training', 'paused'];
const REDRAW_MS = 500;
const two = (v) => (v === null || v === undefined ? '-' : v.toFixed(2));
const seconds = (ms) => `${Math.round(ms / 1000)} s`;

// What a model is drawn from: { name, layers, steps, curve, roles, maps, repeat, firstCopy }.
function checkpointModel(m) {
  const { groups } = m.evaluation;
  return { ...m, repeat: groups.repeat.loss, firstCopy: groups['first copy'].loss };
}
function liveModel(run) {
  const last = run.curve.at(-1);
  return {
    name: run.name,
    layers: run.layers,
    steps: run.steps,
    curve: run.curve,
    roles: run.roles,
    maps: run.maps,
    repeat: last?.heldOut.groups.repeat.loss ?? null,
    firstCopy: last?.heldOut.groups['first copy'].loss ?? null,
  };
}

export class InductionView {
  #layoutCache = null;
  #frame = 0;
  #timer = 0;
  #drawnAt = -Infinity;
  #figuresKey = '';
  #accountKey = '';
  #inPlace = false; // the figures on screen are this view's, fitted to the frame
  #tableKey = '';
  #pausedByView = false;

  constructor(panel) {
    this.panel = panel;
    this.host = panel.host;
    this.data = null; // the checkpoints' { sequence, models }
    this.loading = null;
    this.error = null;
    this.live = null;
    this.active = false;
    const button = (text, onclick) => el('button', { type: 'button', text, onclick });
    this.trainButton = button('Train live', () => this.#trainButton());
    this.resetButton = button('Show the checkpoints', () => this.reset());
    this.controls = el(
      'div',
      { class: 'controls', role: 'group', 'aria-label': 'Training' },
      this.trainButton,
      this.resetButton,
    );
    this.account = el('div', { class: 'induction-account details-only', 'aria-live': 'off' });
    this.rolesTable = el('table', { class: 'induction-roles' });
    this.element = el(
      'div',
      { class: 'induction slide-keep', hidden: true },
      this.controls,
      this.account,
      el('div', { class: 'visually-hidden details-only' }, this.rolesTable),
    );
    this.#showState();
  }

  /** 'loading', 'checkpoints', 'failed' or the live run's: 'starting', 'training', 'paused', 'done'. */
  get state() {
    if (this.live) return this.live.state === 'idle' ? 'starting' : this.live.state;
    if (this.error) return 'failed';
    return this.data ? 'checkpoints' : 'loading';
  }

  show(on) {
    this.active = on;
    this.#figuresKey = ''; // the figure area held the other experiment's figures
    this.#inPlace = false;
    this.element.hidden = !on;
    if (!on) {
      cancelAnimationFrame(this.#frame);
      clearTimeout(this.#timer);
      [this.#frame, this.#timer] = [0, 0];
      if (this.live?.state === 'training') {
        this.live.pause();
        this.#pausedByView = true;
      }
    }
  }

  update() {
    if (!this.data && !this.loading) this.#load();
    this.draw();
  }

  async #load() {
    this.error = null;
    this.panel.status(this.loadingText());
    this.loading = this.loadData();
    try {
      this.data = await this.loading;
    } catch (error) {
      this.error = error.message;
    } finally {
      this.loading = null;
    }
    if (this.active) this.draw();
  }

  /** The models drawn: the live run's once it has maps, else the checkpoints'. */
  #models() {
    if (this.live && this.live.runs.every((r) => r.maps)) return this.live.runs.map((r) => this.liveModel(r));
    return this.data ? this.data.models.map((m) => this.checkpointModel(m)) : null;
  }

  // -- Training --------------------------------------------------------------------------------

  #trainButton() {
    const state = this.state;
    if (state === 'training' || state === 'starting') this.pause();
    else if (state === 'paused') this.resume();
    else this.start();
  }

  /** Starts a live replay (or resumes a paused one); returns the summary. */
  start() {
    if (this.live && this.live.state === 'paused') return this.resume();
    if (this.live && UNDER_WAY.includes(this.live.state)) return this.summary();
    if (!this.data) return this.summary();
    try {
      this.live = this.host.kept('learn').inductionLive({
        models: this.data.models.map(({ name, layers, options, steps }) => ({ name, layers, options, steps })),
        sequence: this.data.sequence,
        split: this.panel.options?.learnSplit ?? 'model',
        ablate: this.ablate,
        onChange: () => this.#changed(),
      });
    } catch (error) {
      this.panel.status(`Cannot train: ${error.message}`, 'error');
      return this.summary();
    }
    this.live.start();
    this.#showState();
    return this.summary();
  }

  pause() {
    this.live?.pause();
    this.#pausedByView = false;
    this.#showState();
    return this.summary();
  }

  resume() {
    this.live?.resume();
    this.#showState();
    return this.summary();
  }

  /** Back to the checkpoints: a live run is stopped and its workers freed. */
  reset() {
    this.live?.dispose();
    this.live = null;
    this.#pausedByView = false;
    this.draw();
    return this.summary();
  }

  /** The element left the view: a live run pauses until wake(). */
  suspend() {
    cancelAnimationFrame(this.#frame);
    clearTimeout(this.#timer);
    [this.#frame, this.#timer] = [0, 0];
    if (this.live?.state === 'training' || this.live?.state === 'starting') {
      this.live.pause();
      this.#pausedByView = true;
    }
  }

  wake() {
    if (this.live?.disposed) this.live = null; // the owner was freed (the element left the page)
    if (this.#pausedByView && this.active) {
      this.#pausedByView = false;
      this.live?.resume();
    }
  }

  // A new number from the live run: one redraw on a frame, at most every REDRAW_MS (the numbers
  // come a few times a second; each redraw is a task of the page's).
  #changed() {
    this.#showState();
    if (!this.active || this.#frame || this.#timer) return;
    const wait = Math.max(0, this.#drawnAt + REDRAW_MS - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = 0;
      this.#frame = requestAnimationFrame(() => {
        this.#frame = 0;
        if (this.active) this.draw();
      });
    }, wait);
  }

  #showState() {
    const state = this.state;
    if (this.active) this.panel.section.dataset.learnState = state;
    this.trainButton.textContent =
      state === 'training' || state === 'starting' ? 'Pause' : state === 'paused' ? 'Resume' : 'Train live';
    this.trainButton.disabled = !this.data;
    this.resetButton.hidden = !this.live;
  }

  // -- Drawing ---------------------------------------------------------------------------------

  draw() {
    if (!this.active) return;
    const t0 = performance.now();
    this.#drawnAt = t0;
    this.#draw();
    // The panel's own work per draw, for the budget tests.
    const d = this.panel.section.dataset;
    const ms = performance.now() - t0;
    d.drawMs = ms.toFixed(1);
    d.maxDrawMs = Math.max(ms, Number(d.maxDrawMs ?? 0)).toFixed(1);
  }

  #draw() {
    this.#showState();
    if (this.error && !this.data) {
      this.panel.status(`The trained models could not be loaded: ${this.error}`, 'error');
      return;
    }
    const models = this.#models();
    if (!models) return;
    // Layout is read first (the height left on a slide), before any text changes it.
    const layout = this.figureLayout(models);
    const section = this.panel.section.dataset;
    section.step = String(this.live ? this.live.step : models.at(-1).steps);
    this.markSection(models, section);
    this.panel.status(this.#statusText(models));
    const newText = this.#setParagraphs(this.accountText(models));
    this.fillTable(models);
    const area = this.panel.figureArea;
    area.classList.add('grid');
    area.style.setProperty('--columns', String(layout.columns ?? 1));
    // The figures change with a new curve point or new maps only (the step count more often).
    const key = JSON.stringify([
      layout,
      this.live ? this.live.runs.map((r) => r.version) : 'checkpoints',
      this.panel.host.palette(),
    ]);
    if (!newText && key === this.#figuresKey && this.panel.figureArea.querySelector('canvas:not([hidden])')) return;
    this.#figuresKey = key;
    // figureItems gives figures, or { figure, span } (a figure across `span` of the grid's columns).
    const items = this.figureItems(models, layout).map((f) => (f.figure ? f : { figure: f }));
    // Figures of the sizes already on screen (a live run's next point) are redrawn in place: the
    // layout is unchanged, so the panel need not be fitted to its frame again (a forced layout).
    const shown = this.panel.figures;
    const same =
      this.#inPlace &&
      !newText &&
      shown.length === items.length &&
      items.every(({ figure }, i) => figure.width === shown[i].width && figure.height === shown[i].height);
    if (same) {
      this.panel.figures = items.map((i) => i.figure);
      drawOnCanvases(this.panel.figureArea, items, this.panel.host.palette());
      this.panel.sayPoint();
    } else this.panel.showFigures(items);
    this.#inPlace = true;
  }

  #statusText(models) {
    const live = this.live;
    if (!live) {
      const deep = this.data.models.at(-1);
      return (
        `The shipped checkpoints: seed ${deep.options.seed}, ${deep.steps} steps, ${deep.options.evalSize} ` +
        `held-out sequences. "Train live" replays the training here.`
      );
    }
    if (live.state === 'failed') return `Live training stopped: ${live.error}`;
    const where =
      live.where === 'page'
        ? ` on the page (${live.runs.find((r) => r.why)?.why ?? 'no worker'}): one step a frame, the page may stutter`
        : live.where === 'worker'
          ? live.split === 'data'
            ? ` data-parallel over ${live.instances} workers (the page sums the gradients and takes each Adam step)`
            : live.shared
              ? ' in 2 workers, off the page (shared with other panels training on this page: each trains more slowly)'
              : ' in 2 workers, off the page'
          : '';
    const steps = live.runs.map((r) => `${r.name} step ${r.step}`).join(', ');
    const held = `held-out points every ${MEASURE_EVERY} steps on ${LIVE_EVAL_SIZE} sequences`;
    const phaseAt = this.liveNote(models);
    if (live.state === 'starting') return `Starting the live training${where}...`;
    if (live.state === 'done')
      return `Trained live${where} in ${seconds(live.elapsedMs)}: ${steps} (${held}).${phaseAt}`;
    const verb = live.state === 'paused' ? 'Paused' : 'Training live';
    return `${verb}${where}: ${steps} of ${live.runs[0].steps} (${held}), ${seconds(live.elapsedMs)}.${phaseAt}`;
  }

  // -- What the experiment shows (story-view.js replaces these) ---------------------------------

  /** Which experiment (learn-experiment) this view shows. */
  get experiment() {
    return 'layers';
  }

  loadingText() {
    return 'Loading the trained models (web/checkpoints/induction-1-layer.json, induction-2-layers.json)...';
  }

  /** The checkpoints' data: { sequence ({ ids }: what the maps are drawn on), models }. */
  loadData() {
    return this.host.kept('learn').induction();
  }

  checkpointModel(m) {
    return checkpointModel(m);
  }

  liveModel(run) {
    return liveModel(run);
  }

  /** Marks on the section's dataset for tests (the phase change). */
  markSection(models, dataset) {
    const phase = phaseChange(models[1].curve);
    dataset.phaseStep = phase ? String(phase.step) : '';
  }

  /** What the status line adds to a live run's state. */
  liveNote(models) {
    const phase = phaseChange(models[1].curve);
    return phase ? ` Phase change at step ${phase.step}.` : '';
  }

  /** What the slide says (its point) of the shown models: pointOf(models) in words. */
  pointText() {
    const models = this.#models();
    if (!models) return this.error ? 'The trained models could not be loaded.' : 'Loading the trained models...';
    return `${this.live ? `Live, step ${this.live.step}: ` : ''}${this.pointOf(models)}`;
  }

  /** Where the 2-layer model's loss on the repeat falls, and where the 1-layer model's ends. */
  pointOf([one, deep]) {
    const phase = phaseChange(deep.curve);
    if (!phase || one.repeat === null || deep.repeat === null)
      return `the loss on the repeat: 1 layer ${two(one.repeat)}, 2 layers ${two(deep.repeat)}.`;
    return (
      `With 2 layers the loss on the repeat falls at step ${phase.step} (${two(phase.start)} → ` +
      `${two(deep.repeat)}): layer 2 copies; with 1 layer it stays at ${two(one.repeat)}.`
    );
  }

  /** The account's paragraphs. */
  accountText([one, deep]) {
    const phase = phaseChange(deep.curve);
    const { sequence } = this.data;
    // While a live run trains, its numbers are in the status line and the figures; the account of
    // its heads is written when it is done (a text that changed every point would lay the slide out
    // again each time).
    if (this.live && this.live.state !== 'done') {
      return [
        `Training from scratch: the curves grow, and the heads' roles and scores are measured on held-out ` +
          `sequences every ${MEASURE_EVERY} steps, their maps every ${MAPS_EVERY} steps. What the heads ` +
          `measure is said here when the run is done.`,
      ];
    }
    if (!one.roles || !deep.roles || one.repeat === null || deep.repeat === null) {
      return [`The heads are measured every ${MEASURE_EVERY} steps.`];
    }
    const hits = hitsOnSequence(deep.maps[deep.maps.length - 1], sequence);
    const steps = this.live ? Math.min(...this.live.runs.map((r) => r.step)) : deep.steps;
    return inductionAccount({ one, two: { ...deep, steps }, phase, hits });
  }

  // Only a changed text is written (each write lays the page out again).
  #setParagraphs(paragraphs) {
    const key = paragraphs.join('\n');
    if (this.#accountKey === key) return false;
    this.#accountKey = key;
    this.account.replaceChildren(...paragraphs.map((text) => el('p', { text })));
    return true;
  }

  // The role scores as numbers, for screen readers and tests.
  fillTable(models) {
    const key = JSON.stringify(models.map((m) => [m.curve.length, m.roles]));
    if (this.#tableKey === key) return;
    this.#tableKey = key;
    const keys = ['previousToken', 'duplicate', 'induction', 'self', 'firstToken'];
    const head = el('tr', {}, ...['model', 'layer', 'head', 'role', ...keys].map((text) => el('th', { text })));
    const rows = models.flatMap((m) =>
      (m.roles ?? []).flatMap((layer, l) =>
        layer.map((h, i) =>
          el(
            'tr',
            { 'data-model': m.name, 'data-layer': String(l), 'data-head': String(i) },
            el('th', { text: m.name }),
            el('td', { text: String(l + 1) }),
            el('td', { text: String(i + 1) }),
            el('td', { class: 'role', text: h.role }),
            ...keys.map((k) => el('td', { text: two(h[k]) })),
          ),
        ),
      ),
    );
    this.rolesTable.replaceChildren(el('caption', { text: 'Role scores on the held-out set' }), head, ...rows);
  }

  // The figures: the loss curves, then one per layer of heads (1 layer; 2 layers, layers 1 and 2).
  figureItems(models, { width, k, mapSize, plot, side, slide, half }) {
    const phase = phaseChange(models[1].curve);
    const maxSteps = models[1].steps;
    const sequence = this.data.sequence;
    const sideRoom = width - MIN_SIDE_CHART * k - 2 * Math.round(HEAD_GAP * k);
    const chartAt = side
      ? Math.max(
          ...models.flatMap((m) =>
            m.maps.map(
              (layer, l) =>
                headTiles(
                  layer.map((_, h) => m.roles?.[l][h].role ?? '-'),
                  mapSize,
                  sideRoom,
                  k,
                ).width,
            ),
          ),
        )
      : 0;
    const figures = [lossFigure({ models, maxSteps, phase, maxWidth: width, plotHeight: plot, textScale: k })];
    // On a slide the loss chart shows the 1-layer model; its heads (all mixed) wait behind Details.
    const shown = slide ? models.filter((x) => x.layers > 1) : models;
    const rolesOf = (m, l) => m.maps[l].map((_, h) => m.roles?.[l][h].role ?? '-');
    // Side by side on a slide, the layers keep room for the same lines of role: their maps line up.
    const roleLines = slide
      ? Math.max(
          ...shown.flatMap((m) =>
            m.maps.map((_, l) => {
              const roles = rolesOf(m, l);
              return Math.max(...headTiles(roles, mapSize, half, k).lines.map((x) => x.length));
            }),
          ),
        )
      : 1;
    for (const m of shown) {
      for (let l = 0; l < m.layers; l += 1) {
        figures.push(
          headsFigure({
            title: m.layers === 1 ? '1 layer' : `${m.name}, layer ${l + 1}`,
            model: m.name,
            layer: l,
            heads: m.maps[l].map((map, h) => ({ role: rolesOf(m, l)[h], map })),
            curve: m.curve,
            sequence,
            maxSteps,
            phase: m.layers > 1 ? phase : null,
            legend: figures.length === 1,
            xTicks: m === models.at(-1) && l === m.layers - 1,
            mapSize,
            maxWidth: slide ? half : width,
            chart: !slide,
            roleLines,
            side,
            sideChartWidth: MIN_SIDE_CHART,
            chartAt,
            textScale: k,
          }),
        );
      }
    }
    // On a slide the loss chart across the frame, the two layers' heads side by side under it.
    return slide ? [{ figure: figures[0], span: 2 }, ...figures.slice(1)] : figures;
  }

  /**
   * How large the figures are: the largest maps (MIN_MAP..MAX_MAP px) whose four tiles fit the width
   * and, on a slide, whose figures fit the height left (else the smallest, and fitToFrame shrinks
   * them); the scores chart beside the maps where it has MIN_SIDE_CHART px, else below them.
   */
  figureLayout(models) {
    // While a live run redraws, the layout it started with (reading it again forces a layout).
    // (drawWidth is the element's width, measured once per render: a resize still lays out again.)
    const cached = this.#layoutCache?.layout;
    if (this.live && cached && this.#inPlace && cached.width === this.panel.drawWidth) return cached;
    const k = this.panel.textScale;
    const width = this.panel.drawWidth;
    const available = this.panel.heightBelow(this.panel.figureArea);
    // Laid out for the checkpoints' figures, also while a live run is drawn (its roles and curves
    // change as it goes; fitToFrame takes up a line more or less).
    models = this.data.models.map((m) => this.checkpointModel(m));
    const roles = models.flatMap((m) => m.roles.flat().map((h) => h.role));
    const key = [width, available, k, roles.join()].join('|');
    if (this.#layoutCache?.key === key) return this.#layoutCache.layout;
    const style = getComputedStyle(this.panel.figureArea);
    const gap = parseFloat(style.rowGap) || 12;
    const room = available - 4 - (parseFloat(style.marginBottom) || 0);
    // Every row of maps within `room` px wide, at maps of side m.
    const rows = models.flatMap((model) =>
      model.maps.map((layer, l) => layer.map((_, h) => model.roles?.[l][h].role ?? '-')),
    );
    const fits = (m, room) => rows.every((r) => headTiles(r, m, room, k).width <= room);
    const sideRoom = width - MIN_SIDE_CHART * k - 2 * Math.round(HEAD_GAP * k);
    // The loss chart's plot (designed px) is as tall as a map where the figures must fit a slide.
    const at = (m, fit = true) => ({
      width,
      k,
      mapSize: m,
      plot: fit ? Math.max(45, Math.min(110, m / k)) : 110,
      side: fits(m, sideRoom),
    });
    const height = (layout) => {
      const figures = this.figureItems(models, layout);
      return figures.reduce((a, f) => a + f.height, 0) + gap * (figures.length - 1);
    };
    // On a slide: the 2-layer model's two layers side by side under the loss chart, maps alone (the
    // loss chart says when they change), as large as half the width and the height allow.
    if (this.panel.slideFirst && Number.isFinite(available)) {
      const half = Math.floor((width - gap) / 2);
      const deep = models.filter((m) => m.layers > 1);
      const layerRoles = deep.flatMap((m) => m.maps.map((layer, l) => layer.map((_, h) => m.roles[l][h].role)));
      const slide = (m) => ({ width, k, mapSize: m, plot: 70, side: false, slide: true, half, columns: 2 });
      const tall = (layout) => {
        const [loss, ...rows] = this.figureItems(models, layout).map((f) => f.figure ?? f);
        return loss.height + gap + Math.max(...rows.map((f) => f.height));
      };
      let m = MAX_MAP;
      while (m > MIN_MAP && (layerRoles.some((r) => headTiles(r, m, half, k).width > half) || tall(slide(m)) > room))
        m -= MAP_STEP;
      this.#layoutCache = { key, layout: slide(m) };
      return slide(m);
    }
    const sizes = [];
    for (let m = MAX_MAP; m >= MIN_MAP; m -= MAP_STEP) if (fits(m, width)) sizes.push(m);
    if (!sizes.length) sizes.push(MIN_MAP);
    // The largest maps the width allows; on a slide, the largest whose figures fit the height, but
    // only where the smallest do (a phone held upright scrolls: its maps keep the width's size).
    let layout = at(sizes[0], false);
    if (Number.isFinite(available) && height(at(sizes.at(-1))) <= room * 1.25) {
      // Heights fall with the map size: the largest that fits, by bisection over the sizes.
      let [lo, hi] = [0, sizes.length - 1]; // sizes[hi] is the last candidate (used even if it does not fit)
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (height(at(sizes[mid])) <= room) hi = mid;
        else lo = mid + 1;
      }
      layout = at(sizes[hi]);
    }
    this.#layoutCache = { key, layout };
    return layout;
  }

  /** What the summary says of a run, besides its name and roles. */
  runSummary(m) {
    return { repeatLoss: m.repeat, firstCopyLoss: m.firstCopy };
  }

  /** What the summary says besides the state (the phase change). */
  summaryNote(models) {
    return { phaseStep: (models ? phaseChange(models[1].curve) : null)?.step ?? null };
  }

  /** A plain summary for getState and slide messages. */
  summary() {
    const models = this.#models();
    return {
      experiment: this.experiment,
      state: this.state,
      source: this.live ? 'live' : 'checkpoints',
      where: this.live?.where ?? null,
      step: this.live ? this.live.step : (models?.at(-1).steps ?? 0),
      steps: models?.at(-1).steps ?? null,
      elapsedMs: this.live?.elapsedMs ?? null,
      ...this.summaryNote(models),
      runs: (models ?? []).map((m) => ({
        name: m.name,
        ...this.runSummary(m),
        roles: m.roles?.map((layer) => layer.map((h) => h.role)) ?? null,
      })),
      error: this.live?.error ?? this.error,
    };
  }

  exportData() {
    const models = this.#models();
    return {
      panel: 'learn',
      ...this.summary(),
      sequence: this.data?.sequence ?? null,
      curves: models?.map((m) => ({ name: m.name, curve: m.curve })) ?? null,
      maps: models?.map((m) => m.maps.map((layer) => layer.map((map) => Array.from(map)))) ?? null,
    };
  }
}
