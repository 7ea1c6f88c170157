// <headwise-explorer>: the lecture's panels (the registry, panels/index.js) in a shadow root.
// Attributes mirror the URL parameters (the options schema, options.js, the panels' own state among
// them); with `from-url` the page's query string overrides them, and the address follows every
// change. Importing this module defines no tag: see define.js. The module starts when the element
// nears the viewport and does no work while it is out of view (lifecycle.js); every element on a
// page shares one module instance. One ExplorerComputation owns the numbers; the panels are views
// of its result. The element knows the panels only through the registry: it builds, shows,
// updates and commands each one the same way.
import { loadHeadwise } from '../headwise.js';
import { ExplorerComputation, PANEL_PARTS, slowLayerNotice } from './computation.js';
import { Lifecycle } from './lifecycle.js';
import { readOptions, stateOf, queryOf, optionRow, OPTION_NAMES, PANEL_IDS } from './options.js';
import { configFromMessage } from './config-input.js';
import { EXPLORER_CSS, resolvedTheme } from './styles.js';
import { DARK, LIGHT } from './figures/figure.js';
import { el } from './dom.js';
import { PANELS } from './panels/index.js';
import { partSteps, runSlices } from './render-slices.js';

/** The panels designed as slides (their entry's `slide`): figure first, point, Details. */
const SLIDE_FIRST = new Set(PANELS.filter((entry) => entry.slide).map((entry) => entry.id));
import { oddInput, oddInputBox } from './odd-input.js';

let sharedModule = null;
// How far outside the viewport an element starts loading and computing.
const NEAR_VIEWPORT = '200px';

// Node (and other DOM-less hosts) can import the class to read its static parts; it cannot be
// instantiated there.
const ElementBase = globalThis.HTMLElement ?? class {};

export class HeadwiseExplorer extends ElementBase {
  static observedAttributes = [...OPTION_NAMES, 'from-url'];

  /** How the module is loaded; a bundle with the wasm inlined replaces it. Shared by all elements. */
  static loadModule = () => loadHeadwise();
  /**
   * What loadCheckpoint is given for a shipped checkpoint: its name (the module fetches the file
   * next to it), or, in a bundle that cannot fetch files (file://), a promise of the object.
   */
  static checkpointSource = (name) => name;
  /** The worker kinds the Learn panel's live training tries (null: what web/pool/spawn.js finds here). */
  static workerKinds = null;

  #root;
  #ui = null; // { nav, notes, loading, main, wrapper }, built once
  #options = null;
  #notes = [];
  #panels = {};
  #owner = null; // the ExplorerComputation, while the element is loaded and connected
  #computed = null; // the owner's last result, which the panels show
  #lastGood = null; // the options of the last input the panels could draw
  #address = { ours: null, search: null, timer: 0 }; // the options' query and the address at the last write
  #lifecycle = new Lifecycle({
    loading: () => this.#load(),
    ready: (from) => this.#resume(from),
    paused: () => this.#pause(),
    idle: () => this.#unload(),
    error: () => this.#pause(),
  });
  #observer = null;
  #waiters = [];
  // Frames in flight; the panels drawn so far in this render and the time spent computing for them.
  #work = { frame: 0, timer: 0, generation: 0, stale: false, inFlight: false, drawn: [], computeMs: 0 };
  #layout = { width: 0, lastWidth: 0, firstFigure: true };
  #redrawing = { frame: 0, timer: 0, generation: 0 }; // a redraw at a new width or theme, in slices
  #dark = globalThis.matchMedia?.('(prefers-color-scheme: dark)');

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
  }

  // Each panel's commands (its entry's) are methods of the element: nextStep(), startTraining(), ...
  static {
    for (const entry of PANELS)
      for (const [method, command] of Object.entries(entry.commands ?? {}))
        Object.defineProperty(this.prototype, method, {
          configurable: true,
          writable: true,
          value(...args) {
            return this.#command(entry.id, command, args);
          },
        });
  }

  /** The current options (a copy). */
  get options() {
    return { ...this.#options };
  }

  /** Whether the element is near the viewport (and so computing and drawing). */
  get active() {
    return this.#lifecycle.visible;
  }

  /** 'idle', 'loading', 'ready', 'paused' (out of view) or 'error' (see lifecycle.js). */
  get lifecycle() {
    return this.#lifecycle.state;
  }

  connectedCallback() {
    this.#build();
    if (typeof IntersectionObserver !== 'function') {
      this.#see(true);
      return;
    }
    const seen = (entries) => this.#see(entries.at(-1).isIntersecting);
    this.#observer = new IntersectionObserver(seen, { rootMargin: NEAR_VIEWPORT });
    this.#observer.observe(this);
  }

  disconnectedCallback() {
    this.#observer?.disconnect();
    this.#observer = null;
    this.dataset.active = 'false';
    this.#send('disconnect');
    for (const resolve of this.#waiters.splice(0)) resolve(); // long tasks see the disconnect and stop
  }

  attributeChangedCallback() {
    if (!this.#ui) return;
    this.#readOptions();
    this.#schedule();
  }

  /** Resolves when the element is near the viewport (at once if it is). Long tasks await it. */
  whenActive() {
    return this.active ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Changes some options; recomputes on the next frame, or at once with { immediate: true }. Options
   * of one panel alone (its step, kind, lock, ...) redraw that panel only, at once; { quiet: true }
   * only records them (the panel that sets them has drawn them already).
   */
  setOptions(partial, { immediate = false, quiet = false } = {}) {
    this.#build();
    const rows = Object.keys(partial).map((key) => optionRow(key));
    for (const [k, key] of Object.keys(partial).entries()) {
      if (rows[k]?.property !== key) throw new TypeError(`unknown explorer option "${key}"`);
    }
    Object.assign(this.#options, partial);
    const sized = partial.dModel !== undefined || partial.heads !== undefined;
    if (sized && partial.preset === undefined) this.#options.preset = 'custom';
    const owners = new Set(rows.map((row) => row.panel));
    if (quiet || (owners.size === 1 && !owners.has(undefined) && !immediate)) {
      this.#followInUrl();
      const [id] = owners;
      if (!quiet && this.#work.drawn.includes(id)) this.#refresh(id);
      return;
    }
    if (immediate) this.#render({ immediate: true });
    else this.#schedule();
    this.#applyTheme();
  }

  /**
   * Validated configuration change, for slide decks and untrusted input: keys are the attribute
   * names (panel, preset, width, heads, causal, seed, sentence, slide, max-tokens; also dModel and
   * maxTokens), values strings, numbers or booleans. Throws TypeError / RangeError and changes
   * nothing if any of them cannot be used, or if width is not divisible by heads.
   * @returns the state after the change (see getState)
   */
  setConfig(config) {
    this.#build();
    this.setOptions(configFromMessage(config, this.#options));
    return this.getState();
  }

  // A panel's command (its entry's commands): ctx gives it its view, the options and set(partial),
  // which changes options and returns the state.
  #command(id, command, args) {
    this.#build();
    if (command.needsModule && !this.#owner) throw new Error('the module is not loaded yet');
    const set = (partial) => {
      this.setOptions(partial);
      return this.getState();
    };
    return command.run({ view: this.#panels[id], options: { ...this.#options }, set }, ...args);
  }

  /** A plain, copyable summary: the options (the panels' own among them), whether it is ready and in view. */
  getState() {
    this.#build();
    return {
      ...stateOf(this.#options),
      ...Object.assign({}, ...PANELS.map((entry) => entry.state?.(this.#options))),
      status: this.#computed?.status ?? null,
      ready: this.dataset.ready === 'true',
      active: this.active,
      lifecycle: this.#lifecycle.state,
      notes: [...this.#notes],
    };
  }

  #send(event) {
    this.#lifecycle.send(event);
    this.dataset.lifecycle = this.#lifecycle.state;
  }

  #see(visible) {
    if (visible === this.active) return;
    this.dataset.active = String(visible);
    this.#send(visible ? 'show' : 'hide');
    if (visible) for (const resolve of this.#waiters.splice(0)) resolve();
  }

  #readOptions() {
    const fromUrl = this.hasAttribute('from-url') ? new URLSearchParams(globalThis.location?.search ?? '') : null;
    const { options, notes } = readOptions((name) => fromUrl?.get(name) ?? this.getAttribute(name));
    this.#options = options;
    this.#notes = notes;
    this.#applyTheme();
  }

  #build() {
    if (this.#ui) return;
    this.#readOptions();
    // What a panel may reach of the element (panel-frame.js). A panel never calls the module: its
    // numbers come through update(options, computed), and what the owner keeps for it through kept().
    const host = {
      palette: () => (this.#theme() === 'dark' ? DARK : LIGHT),
      options: () => ({ ...this.#options }),
      setOptions: (partial, how) => this.setOptions(partial, how),
      setConfig: (config) => this.setConfig(config),
      refresh: (id) => this.#refresh(id),
      kept: (id) => {
        if (!this.#owner) throw new Error('the module is not loaded');
        return this.#owner.kept(id);
      },
      view: (id) => this.#panels[id],
      // A part changed outside a render (a training run finished or was reset): the panels drawn that
      // view it read it again from the owner.
      changed: (part) =>
        setTimeout(() => {
          for (const id of this.#work.drawn) if (PANEL_PARTS[id].includes(part)) this.#refresh(id);
        }),
      connected: () => this.isConnected,
      whenActive: () => this.whenActive(),
      viewportHeight: () => globalThis.innerHeight ?? 0,
      // In slide mode on a wide screen a panel puts its text beside its figures.
      // A panel that declares its slide (panels/index.js) has the whole width for its figures.
      width: (id) =>
        this.#twoColumns() && !SLIDE_FIRST.has(id) ? Math.floor(this.#layout.width * 0.52) : this.#layout.width,
      figureDrawn: () => {
        if (!this.#layout.firstFigure) return;
        this.#layout.firstFigure = false;
        // Marked after the next frame, i.e. once the heatmap has been painted, not just drawn.
        requestAnimationFrame(() =>
          setTimeout(() => {
            performance.mark('headwise-first-heatmap');
            this.dataset.firstHeatmap = 'true';
          }, 0),
        );
      },
    };
    const nav = el('nav', { 'aria-label': 'Panels' });
    const main = el('div', { class: 'panels' });
    for (const { id, label, View, slide } of PANELS) {
      this.#panels[id] = new View(host);
      this.#panels[id].section.classList.add(slide ? 'slide-first' : 'two-column');
      if (slide) this.#panels[id].slidePoint = slide.point;
      main.append(this.#panels[id].section);
      nav.append(
        el('button', {
          type: 'button',
          text: label,
          onclick: () => {
            const section = this.#panels[id].section;
            section.scrollIntoView({ behavior: 'smooth', block: 'start' });
            section.querySelector('h2').tabIndex = -1;
            section.querySelector('h2').focus({ preventScroll: true });
          },
        }),
      );
    }
    const notes = el('p', { class: 'notes', role: 'note' });
    const loading = el('p', { class: 'loading', role: 'status', text: 'Loading the WebAssembly module...' });
    const wrapper = el('div', { class: 'explorer' }, nav, notes, loading, main);
    this.#ui = { nav, notes, loading, main, wrapper };
    this.#root.append(el('style', { text: EXPLORER_CSS }), wrapper);
    this.#dark?.addEventListener?.('change', () => this.#applyTheme());
    new ResizeObserver(() => this.#redraw(false)).observe(main);
  }

  // Entering 'loading': load (or share) the module; the lifecycle hears how it went.
  async #load() {
    const { loading } = this.#ui;
    loading.hidden = false;
    loading.textContent = 'Loading the WebAssembly module...';
    loading.className = 'loading';
    delete loading.dataset.kind;
    let hw;
    try {
      sharedModule ??= HeadwiseExplorer.loadModule();
      hw = await sharedModule;
      if (!performance.getEntriesByName('headwise-module-ready').length) performance.mark('headwise-module-ready');
    } catch (error) {
      sharedModule = null;
      if (this.#lifecycle.state !== 'loading') return;
      loading.textContent = `The WebAssembly module could not be loaded: ${error.message}`;
      loading.className = 'status';
      loading.dataset.kind = 'error';
      this.#send('failed');
      return;
    }
    if (this.#lifecycle.state !== 'loading') return; // disconnected meanwhile
    this.#owner = new ExplorerComputation(hw, {
      checkpointSource: (name) => HeadwiseExplorer.checkpointSource(name),
      workerKinds: () => HeadwiseExplorer.workerKinds,
    });
    loading.hidden = true;
    this.#work.stale = true; // the first render, when in view
    this.#send('loaded');
  }

  // Entering 'ready': draw what was asked while the element was away (the first render included).
  #resume(from) {
    for (const view of Object.values(this.#panels)) view.wake?.();
    if (!this.#work.stale) return;
    this.#work.stale = false;
    if (from === 'loading') this.#render({ progressive: true });
    else this.#schedule();
  }

  // Entering 'paused' or 'error': stop work in flight; it is redone when the element comes back.
  #pause() {
    for (const view of Object.values(this.#panels)) view.suspend?.();
    this.#cancelFrames();
    if (this.#work.inFlight) {
      this.#work.inFlight = false;
      this.#work.stale = true;
    }
  }

  // Entering 'idle' (disconnected): free the layers; a reconnect loads and renders again.
  #unload() {
    for (const view of Object.values(this.#panels)) view.unload?.();
    this.#cancelFrames();
    this.#work.inFlight = false;
    this.#owner?.dispose();
    this.#owner = null;
  }

  #cancelFrames() {
    cancelAnimationFrame(this.#work.frame);
    clearTimeout(this.#work.timer);
    this.#work.generation += 1; // stops a progressive render
  }

  #schedule() {
    if (!this.#owner) return;
    if (this.#lifecycle.state !== 'ready') {
      this.#work.stale = true;
      return;
    }
    this.#cancelFrames();
    // A big layer cannot be created in slices: say so first, let the message paint, then compute.
    const notice = slowLayerNotice(this.#options.dModel);
    if (notice !== null) {
      this.#ui.loading.hidden = false;
      this.#ui.loading.textContent = notice;
      this.#work.frame = requestAnimationFrame(() => {
        this.#work.timer = setTimeout(() => this.#render(), 0);
      });
      return;
    }
    this.#work.frame = requestAnimationFrame(() => this.#render());
  }

  // 'light' or 'dark': the theme option, with 'auto' following the viewer's setting.
  #theme() {
    return resolvedTheme(this.#options.theme, Boolean(this.#dark?.matches));
  }

  // The figures are drawn in the theme's colours: a new theme redraws them.
  #applyTheme() {
    const theme = this.#theme();
    if (this.dataset.theme === theme) return;
    this.dataset.theme = theme;
    this.#redraw(true);
  }

  #twoColumns() {
    return this.#options.slide && globalThis.matchMedia?.('(min-aspect-ratio: 4/3) and (min-width: 900px)').matches;
  }

  #visiblePanels() {
    return this.#options.panel ? [this.#options.panel] : PANEL_IDS;
  }

  // Asks the owner for what the panels drawn so far in this render view (it computes each part
  // once and remembers it), or for `parts` (a slice of the work before a panel is drawn).
  #compute(parts = this.#work.drawn.flatMap((id) => PANEL_PARTS[id])) {
    const t0 = performance.now();
    try {
      this.#computed = this.#owner.compute(this.#options, { parts: new Set(parts) });
    } catch (error) {
      this.#computed = { status: 'invalid', message: error.message };
    }
    this.#work.computeMs += performance.now() - t0;
    return this.#computed;
  }

  #update(ids) {
    this.#work.drawn.push(...ids.filter((id) => !this.#work.drawn.includes(id)));
    this.#compute();
    const problem = oddInput(this.#options, this.#computed);
    if (problem === null) this.#lastGood = { ...this.#options };
    for (const id of ids) {
      // A panel that has drawn a good input keeps its figures while the input is one it cannot draw.
      if (problem !== null && id !== 'input' && this.#panels[id].drewGood) continue;
      if (problem === null) this.#panels[id].drewGood = true;
      try {
        this.#panels[id].update(this.#options, this.#computed);
      } catch (error) {
        this.#panels[id].status(`This panel could not be computed: ${error.message}`, 'error');
      }
    }
    for (const id of ids) this.#showProblem(id, problem);
  }

  // Says what is wrong with the input in the panel, under its status line, with the valid choices
  // as buttons (odd-input.js); removes the box once the input is good again.
  #showProblem(id, problem) {
    const panel = this.#panels[id];
    panel.oddInput?.remove();
    panel.oddInput = null;
    if (problem === null) return;
    const good = this.#lastGood;
    const shown =
      id !== 'input' && panel.drewGood && good
        ? `Still showing the last input that worked: width ${good.dModel}, ${good.heads} heads` +
          `${good.sentence === this.#options.sentence ? '' : ', its sentence'}.`
        : '';
    const choose = (partial) => this.setConfig(partial);
    panel.oddInput = oddInputBox(problem, { shown, choose, words: id !== 'input' });
    if (shown) {
      // Above the figures it speaks of (on a slide, in their column, which shrinks them to make room).
      Object.assign(panel.oddInput.style, { gridColumn: '1 / -1', flexBasis: '100%' });
      panel.figureArea.prepend(panel.oddInput);
    } else panel.statusLine.after(panel.oddInput);
    panel.fitToFrame();
  }

  // A panel's own control changed an input of its part: recompute (the rest is remembered), redraw it.
  #refresh(id) {
    if (!this.#owner || this.#lifecycle.state !== 'ready') {
      this.#work.stale = true;
      return;
    }
    this.#update([id]);
  }

  #render({ progressive = false, immediate = false } = {}) {
    if (!this.#owner) return;
    if (this.#lifecycle.state !== 'ready') {
      this.#work.stale = true;
      return;
    }
    this.#cancelFrames();
    this.#work.inFlight = false;
    this.#followInUrl();
    const o = this.#options;
    const { wrapper, nav, notes, loading, main } = this.#ui;
    wrapper.classList.toggle('slide', o.slide);
    this.toggleAttribute('data-slide', Boolean(o.slide)); // the container of the slide's sizes (styles.js)
    nav.hidden = Boolean(o.panel);
    notes.textContent = this.#notes.join(' ');
    notes.hidden = this.#notes.length === 0;
    const visible = this.#visiblePanels();
    for (const id of PANEL_IDS) this.#panels[id].section.hidden = !visible.includes(id);
    this.#layout.width = main.clientWidth; // one layout per render, before the panels change the DOM
    const t0 = performance.now();
    Object.assign(this.#work, { drawn: [], computeMs: 0 });
    const generation = this.#work.generation;
    const finish = () => {
      loading.hidden = true;
      delete this.dataset.drawing;
      this.#work.inFlight = false;
      this.#layout.lastWidth = this.#layout.width;
      this.dataset.ready = 'true';
      // computeMs: the owner's computation (layers, forward passes, the page's inputs); panelsMs:
      // the panels' drawing (for a render spread over frames, until the last panel is drawn).
      const { computeMs } = this.#work;
      const detail = { status: this.#computed.status, computeMs, panelsMs: performance.now() - t0 - computeMs };
      const announce = () => this.dispatchEvent(new CustomEvent('headwise-render', { detail }));
      // An address still to write is written first (timers of one delay run in order).
      if (this.#address.timer) setTimeout(announce, 0);
      else announce();
    };
    // The first render draws one panel first, so the first heatmap is on screen sooner. Later
    // renders draw the panels on screen first, then the others one by one. Each group's work is
    // sliced (render-slices.js): a big layer's calls and drawing run in separate tasks, and the
    // notice of a slow layer stays up until the panels on screen are drawn.
    const now = progressive ? visible.slice(0, 1) : visible.filter((id) => this.#onScreen(id));
    const groups = [now, ...visible.filter((id) => !now.includes(id)).map((id) => [id])];
    const slices = [];
    let computed = [];
    for (const group of groups.filter((g) => g.length > 0)) {
      const steps = partSteps(group, computed, PANEL_PARTS);
      for (const parts of steps) slices.push(() => this.#compute(parts));
      computed = steps.at(-1);
      slices.push(() => {
        this.#update(group);
        loading.hidden = true;
      });
    }
    this.#work.inFlight = true;
    this.dataset.drawing = 'true';
    // { immediate }: the panels on screen are drawn before this returns.
    const first = immediate && now.length > 0 ? partSteps(now, [], PANEL_PARTS).length + 1 : 0;
    for (const slice of slices.splice(0, first)) slice();
    runSlices(slices, {
      later: (task) => {
        this.#work.frame = requestAnimationFrame(() => {
          this.#work.timer = setTimeout(task, 0);
        });
      },
      isCurrent: () => generation === this.#work.generation,
      onDone: finish,
    });
  }

  // With from-url, the address follows the options (replaceState: no history entry per change), so a
  // copied link opens the same slide. It is written in a task of its own after the change's (one
  // replaceState took 0.4-37 ms of the thread, 10 ms a change in the bench), at most once however many
  // changes come before it, and before the render's headwise-render event.
  #followInUrl() {
    if (!this.hasAttribute('from-url') || !globalThis.history?.replaceState || this.#address.timer) return;
    this.#address.timer = setTimeout(() => {
      this.#address.timer = 0;
      if (this.isConnected) this.#writeAddress();
    }, 0);
  }

  // Parameters that are not options (origins=...) stay. The host's address is parsed only when the
  // options or the address changed since the last write: a host parameter of 1.8 MB made every
  // render hold the thread 1.4-4.3 s.
  #writeAddress() {
    const ours = queryOf(this.#options);
    const { search: now } = location;
    if (ours === this.#address.ours && now === this.#address.search) return;
    const names = new Set(OPTION_NAMES);
    const kept = [...new URLSearchParams(now)].filter(([name]) => !names.has(name));
    const params = new URLSearchParams([...kept, ...new URLSearchParams(ours)]);
    const text = params.toString();
    const search = text ? `?${text}` : '';
    if (search !== now) history.replaceState(history.state, '', `${location.pathname}${search}${location.hash}`);
    Object.assign(this.#address, { ours, search: location.search });
  }

  // Whether a panel's section overlaps the window (layout is already clean at this point).
  #onScreen(id) {
    const section = this.#panels[id].section;
    if (section.hidden) return false;
    const box = section.getBoundingClientRect();
    return box.bottom > 0 && box.top < (globalThis.innerHeight || 0) && box.height > 0;
  }

  #redraw(force) {
    if (!this.#owner || !this.dataset.ready) return;
    if (this.#lifecycle.state !== 'ready') {
      this.#work.stale = true;
      return;
    }
    const width = this.#ui.main.clientWidth;
    if (!force && Math.abs(width - this.#layout.lastWidth) < 8) return;
    this.#layout.lastWidth = width;
    this.#layout.width = width;
    // The panels on screen first, one panel per slice (render-slices.js): a resize or a change of
    // theme at GPT-2 sizes does not hold the page for every panel at once.
    const redraw = this.#redrawing;
    cancelAnimationFrame(redraw.frame);
    clearTimeout(redraw.timer);
    const generation = (redraw.generation += 1);
    const ids = this.#visiblePanels();
    const first = ids.filter((id) => this.#onScreen(id));
    runSlices(
      [...first, ...ids.filter((id) => !first.includes(id))].map((id) => () => this.#panels[id].draw?.()),
      {
        later: (task) => {
          redraw.frame = requestAnimationFrame(() => {
            redraw.timer = setTimeout(task, 0);
          });
        },
        isCurrent: () => generation === redraw.generation,
        onDone: () => {},
      },
    );
  }
}
