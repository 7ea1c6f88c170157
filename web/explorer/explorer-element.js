// <headwise-explorer>: the lecture's six panels in a shadow root. Attributes mirror the URL
// parameters (panel, preset, width, heads, causal, seed, sentence, slide, max-tokens); with the
// `from-url` attribute the page's query string overrides them. Importing this module defines no
// tag: see define.js. The module starts when the element nears the viewport and does no work
// while it is out of view; every element on a page shares one module instance.
import { loadHeadwise } from '../headwise.js';
import { Session } from './session.js';
import { readOptions, OPTION_NAMES, PANELS } from './options.js';
import { configFromMessage } from './config-input.js';
import { EXPLORER_CSS } from './styles.js';
import { DARK, LIGHT } from './figure.js';
import { el } from './dom.js';
import { InputPanel } from './panels/input-panel.js';
import { WhyHeadsPanel } from './panels/why-heads-panel.js';
import { StepsPanel, STEPS } from './panels/steps-panel.js';
import { HeadsPanel } from './panels/heads-panel.js';
import { LoopFusedPanel } from './panels/loop-fused-panel.js';
import { WordOrderPanel } from './panels/word-order-panel.js';

const PANEL_CLASSES = { input: InputPanel, why: WhyHeadsPanel, steps: StepsPanel, heads: HeadsPanel, loop: LoopFusedPanel, order: WordOrderPanel };
// In slide mode on a wide screen these panels put their text beside their figures.
const TWO_COLUMN_PANELS = new Set(['input', 'steps', 'loop']);
const NAV_LABELS = { input: 'Input', why: 'One head is not enough', steps: 'Five steps', heads: 'Heads', loop: 'Loop vs fused', order: 'Word order' };

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

  #root;
  #built = false;
  #options = null;
  #notes = [];
  #hw = null;
  #session = null;
  #panels = {};
  #frame = 0;
  #dark = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
  #lastWidth = 0;
  #firstFigure = true;
  #width = 0;
  #busyTimer = 0;
  #generation = 0;
  #visible = false;
  #visibility = null;
  #pending = false; // a render or redraw was asked for while out of view
  #waiters = [];
  #lastStatus = null;
  #starting = false;
  #inFlight = false; // panels of a render are still being drawn, one per frame

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
  }

  /** The current options (a copy). */
  get options() { return { ...this.#options }; }

  connectedCallback() {
    if (!this.#built) this.#build();
    if (typeof IntersectionObserver !== 'function') { this.#setVisible(true); return; }
    this.#visibility = new IntersectionObserver((entries) => this.#setVisible(entries.at(-1).isIntersecting), { rootMargin: NEAR_VIEWPORT });
    this.#visibility.observe(this);
  }

  disconnectedCallback() {
    this.#visibility?.disconnect();
    this.#visibility = null;
    this.#visible = false;
    for (const resolve of this.#waiters.splice(0)) resolve(); // long tasks see the disconnect and stop
    cancelAnimationFrame(this.#frame);
    clearTimeout(this.#busyTimer);
    this.#generation += 1; // stops a progressive first render
    this.#session?.dispose();
    this.#session = null;
  }

  attributeChangedCallback() {
    if (!this.#built) return;
    this.#readOptions();
    this.#schedule();
  }

  /** Whether the element is near the viewport (and so computing and drawing). */
  get active() { return this.#visible; }

  #setVisible(visible) {
    if (visible === this.#visible) return;
    this.#visible = visible;
    this.dataset.active = String(visible);
    if (!visible) {
      // Stop work in flight; it is redone when the element comes back.
      cancelAnimationFrame(this.#frame);
      clearTimeout(this.#busyTimer);
      if (this.#inFlight) { this.#inFlight = false; this.#pending = true; }
      this.#generation += 1;
      return;
    }
    for (const resolve of this.#waiters.splice(0)) resolve();
    if (!this.#session) { this.#start(); return; }
    if (this.#pending) { this.#pending = false; this.#schedule(); }
  }

  /** Resolves when the element is near the viewport (at once if it is). Long tasks await it. */
  whenActive() {
    return this.#visible ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Changes some options; recomputes on the next frame, or at once with { immediate: true }. */
  setOptions(partial, { immediate = false } = {}) {
    if (!this.#built) this.#build();
    const known = new Set(['panel', 'preset', 'dModel', 'heads', 'causal', 'seed', 'sentence', 'slide', 'maxTokens']);
    for (const key of Object.keys(partial)) if (!known.has(key)) throw new TypeError(`unknown explorer option "${key}"`);
    Object.assign(this.#options, partial);
    if (partial.dModel !== undefined || partial.heads !== undefined) {
      if (partial.preset === undefined) this.#options.preset = 'custom';
    }
    if (immediate && this.#visible) this.#render(); else this.#schedule();
  }

  /**
   * Validated configuration change, for slide decks and untrusted input: keys are the attribute
   * names (panel, preset, width, heads, causal, seed, sentence, slide, max-tokens; also dModel and
   * maxTokens), values strings, numbers or booleans. Throws TypeError / RangeError and changes
   * nothing if any of them cannot be used, or if width is not divisible by heads.
   * @returns the state after the change (see getState)
   */
  setConfig(config) {
    if (!this.#built) this.#build();
    this.setOptions(configFromMessage(config, this.#options));
    return this.getState();
  }

  /** The steps panel's stepper (project, split, attend, merge, out-project), for slide decks. */
  nextStep() { return this.#stepBy(1); }
  previousStep() { return this.#stepBy(-1); }

  #stepBy(delta) {
    if (!this.#built) this.#build();
    return this.goToStep(this.#panels.steps.step + delta);
  }

  /** Goes to step 0..4 (clamped); redraws now if in view, else when the element comes back. */
  goToStep(step) {
    if (!this.#built) this.#build();
    if (!Number.isInteger(step)) throw new TypeError('step must be a whole number from 0 to 4');
    const panel = this.#panels.steps;
    const clamped = Math.max(0, Math.min(STEPS.length - 1, step));
    if (clamped !== panel.step) {
      panel.step = clamped;
      if (!this.#visible || !this.#session) this.#pending = true; // drawn when it is back
      else if (panel.computed) panel.go(clamped); // (before its first update, that update draws it)
    }
    return this.getState();
  }

  /** A plain, copyable summary: what is shown, the step, whether it is ready and in view. */
  getState() {
    if (!this.#built) this.#build();
    const o = this.#options;
    const step = this.#panels.steps.step;
    return {
      panel: o.panel ?? 'all', preset: o.preset, width: o.dModel, heads: o.heads, causal: o.causal, seed: o.seed,
      slide: o.slide, maxTokens: o.maxTokens, step, stepName: STEPS[step], steps: [...STEPS],
      status: this.#lastStatus, ready: this.dataset.ready === 'true', active: this.#visible,
    };
  }

  #readOptions() {
    const fromUrl = this.hasAttribute('from-url') ? new URLSearchParams(globalThis.location?.search ?? '') : null;
    const { options, notes } = readOptions((name) => fromUrl?.get(name) ?? this.getAttribute(name));
    this.#options = options;
    this.#notes = notes;
  }

  #build() {
    this.#built = true;
    this.#readOptions();
    const host = {
      palette: () => (this.#dark?.matches ? DARK : LIGHT),
      onOptions: (partial) => this.setOptions(partial),
      hw: () => this.#hw,
      connected: () => this.isConnected,
      whenActive: () => this.whenActive(),
      viewportHeight: () => globalThis.innerHeight ?? 0,
      width: (panel) => (this.#twoColumns() && TWO_COLUMN_PANELS.has(panel) ? Math.floor(this.#width * 0.52) : this.#width),
      figureDrawn: () => {
        if (!this.#firstFigure) return;
        this.#firstFigure = false;
        // Marked after the next frame, i.e. once the heatmap has been painted, not just drawn.
        requestAnimationFrame(() => setTimeout(() => {
          performance.mark('headwise-first-heatmap');
          this.dataset.firstHeatmap = 'true';
        }, 0));
      },
    };
    this.nav = el('nav', { 'aria-label': 'Panels' });
    this.notesLine = el('p', { class: 'notes', role: 'note' });
    this.loading = el('p', { class: 'loading', role: 'status', text: 'Loading the WebAssembly module...' });
    this.main = el('div', { class: 'panels' });
    for (const id of PANELS) {
      this.#panels[id] = new PANEL_CLASSES[id](host);
      if (TWO_COLUMN_PANELS.has(id)) this.#panels[id].section.classList.add('two-column');
      this.main.append(this.#panels[id].section);
      this.nav.append(el('button', { type: 'button', text: NAV_LABELS[id], onclick: () => {
        const section = this.#panels[id].section;
        section.scrollIntoView({ behavior: 'smooth', block: 'start' });
        section.querySelector('h2').tabIndex = -1;
        section.querySelector('h2').focus({ preventScroll: true });
      } }));
    }
    this.wrapper = el('div', { class: 'explorer' }, this.nav, this.notesLine, this.loading, this.main);
    this.#root.append(el('style', { text: EXPLORER_CSS }), this.wrapper);
    this.#dark?.addEventListener?.('change', () => this.#redraw(true));
    new ResizeObserver(() => this.#redraw(false)).observe(this.main);
  }

  async #start() {
    if (this.#starting) return;
    this.#starting = true;
    try {
      sharedModule ??= HeadwiseExplorer.loadModule();
      this.#hw = await sharedModule;
      if (!performance.getEntriesByName('headwise-module-ready').length) performance.mark('headwise-module-ready');
    } catch (error) {
      sharedModule = null;
      this.loading.textContent = `The WebAssembly module could not be loaded: ${error.message}`;
      this.loading.className = 'status';
      this.loading.dataset.kind = 'error';
      return;
    } finally {
      this.#starting = false;
    }
    if (!this.isConnected) return;
    this.#session ??= new (Session)(this.#hw);
    this.loading.hidden = true;
    this.#render({ progressive: true });
  }

  #schedule() {
    if (!this.#session) return;
    if (!this.#visible) { this.#pending = true; return; }
    cancelAnimationFrame(this.#frame);
    clearTimeout(this.#busyTimer);
    // A big layer (GPT-2 sizes) takes tens of milliseconds to create in one call that cannot be
    // split: say so first, let the message paint, then compute.
    const { dModel } = this.#options;
    if (Number.isInteger(dModel) && dModel >= 512 && dModel <= 4096) {
      this.loading.hidden = false;
      this.loading.textContent = `Computing a layer of width ${dModel}...`;
      this.#frame = requestAnimationFrame(() => { this.#busyTimer = setTimeout(() => this.#render(), 0); });
      return;
    }
    this.#frame = requestAnimationFrame(() => this.#render());
  }

  #twoColumns() {
    return this.#options.slide && globalThis.matchMedia?.('(min-aspect-ratio: 4/3) and (min-width: 900px)').matches;
  }

  #visiblePanels() {
    return this.#options.panel ? [this.#options.panel] : PANELS;
  }

  #render({ progressive = false } = {}) {
    if (!this.#session) return;
    if (!this.#visible) { this.#pending = true; return; }
    const o = this.#options;
    this.wrapper.classList.toggle('slide', o.slide);
    this.nav.hidden = Boolean(o.panel);
    this.notesLine.textContent = this.#notes.join(' ');
    this.notesLine.hidden = this.#notes.length === 0;
    const visible = this.#visiblePanels();
    for (const id of PANELS) this.#panels[id].section.hidden = !visible.includes(id);
    this.#width = this.main.clientWidth; // one layout per render, before the panels change the DOM
    let computed;
    const t0 = performance.now();
    try {
      computed = this.#session.compute(o);
    } catch (error) {
      computed = { status: 'invalid', message: error.message };
    }
    const t1 = performance.now();
    this.#lastStatus = computed.status;
    const generation = ++this.#generation;
    const updateOne = (id) => {
      try {
        this.#panels[id].update(o, computed);
      } catch (error) {
        this.#panels[id].status(`This panel could not be computed: ${error.message}`, 'error');
      }
    };
    const finish = () => {
      delete this.dataset.drawing;
      this.#lastWidth = this.#width;
      this.dataset.ready = 'true';
      const t2 = performance.now();
      // computeMs: the layer's forward pass and the page's inputs; panelsMs: the panels' own calls
      // and drawing (for a progressive first render, until the last panel).
      this.dispatchEvent(new CustomEvent('headwise-render', { detail: { status: computed.status, computeMs: t1 - t0, panelsMs: t2 - t1 } }));
    };
    this.loading.hidden = true;
    // The first render draws one panel per frame, so the first heatmap is on screen sooner. Later
    // renders draw the panels on screen at once (within the frame) and the others one per frame.
    const now = progressive ? visible.slice(0, 1) : visible.filter((id) => this.#onScreen(id));
    const later = visible.filter((id) => !now.includes(id));
    now.forEach(updateOne);
    if (later.length === 0) { finish(); return; }
    this.#inFlight = true;
    this.dataset.drawing = 'true'; // panels off screen are still to be drawn (one per frame)
    let k = 0;
    const next = () => {
      if (generation !== this.#generation) return; // a newer render has taken over
      if (k < later.length) {
        updateOne(later[k]);
        k += 1;
        requestAnimationFrame(() => setTimeout(next, 0));
      } else { this.#inFlight = false; finish(); }
    };
    requestAnimationFrame(() => setTimeout(next, 0));
  }

  // Whether a panel's section overlaps the window (layout is already clean at this point).
  #onScreen(id) {
    const section = this.#panels[id].section;
    if (section.hidden) return false;
    const box = section.getBoundingClientRect();
    return box.bottom > 0 && box.top < (globalThis.innerHeight || 0) && box.height > 0;
  }


  #redraw(force) {
    if (!this.#session || !this.dataset.ready) return;
    if (!this.#visible) { this.#pending = true; return; }
    const width = this.main.clientWidth;
    if (!force && Math.abs(width - this.#lastWidth) < 8) return;
    this.#lastWidth = width;
    this.#width = width;
    for (const id of this.#visiblePanels()) this.#panels[id].draw?.();
  }
}
