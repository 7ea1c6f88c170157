// What every panel shares: a section with a heading, a status line, figures drawn on canvases,
// a table equivalent of each figure for screen readers, and PNG / SVG / JSON export.
import { el } from './dom.js';
import { arrangeFigures, Figure, SLIDE_TEXT_BASE } from './figures/figure.js';
import { exportJSON, exportPNG, exportSlidePNG, exportSVG } from './figures/export.js';
import { attachCellTooltip } from './figures/cell-tooltip.js';

/**
 * Draws items ({ figure, label, onCanvas }) on the canvases of `area`, reusing the canvases already
 * there (a new canvas allocates its pixels again, the slowest part of a redraw).
 */
export function drawOnCanvases(area, items, palette) {
  // Canvases not needed now are hidden, not removed: when the head count goes back up they are
  // reused with their pixels already allocated.
  const canvases = [...area.querySelectorAll(':scope > canvas')];
  canvases.forEach((canvas, k) => {
    canvas.hidden = k >= items.length;
  });
  items.forEach((item, k) => {
    let canvas = canvases[k];
    if (!canvas) {
      canvas = el('canvas', { role: 'img' });
      area.append(canvas);
    }
    canvas.setAttribute('aria-label', item.label ?? item.figure.title);
    canvas.style.gridColumn = item.span ? `span ${item.span}` : '';
    canvas.headwiseFigure = item.figure; // what is drawn, for checks of its text (tests/browser/slide-fit)
    item.figure.drawTo(canvas, palette);
    attachCellTooltip(canvas, item.figure);
    if (item.onCanvas && !canvas.dataset.listening) {
      canvas.dataset.listening = 'true';
      item.onCanvas(canvas);
    }
  });
}

/** The slide font size at which a slide-first panel's figure text is drawn as designed (SLIDE_TEXT_BASE's role). */
const SLIDE_FIRST_TEXT_BASE = 11.5;
/** The smallest figure text of a slide-first panel at 1280x720, in CSS px (slide-mode tests the same). */
const MIN_SLIDE_FIRST_TEXT = 16;

/** The smallest a figure's text may be drawn on a slide, in CSS px (slide-fit tests the same). */
export const MIN_FIGURE_TEXT = 11;

export class PanelFrame {
  #near = null; // whenNear's observer, until the panel comes near the view

  /**
   * host: the element, as far as a panel may reach it, the same for every panel: palette(),
   * width(id), viewportHeight(), options(), setOptions(partial, { quiet }) (a panel's own options
   * redraw only it; quiet: recorded only, for the URL), setConfig(config) (validated), refresh(id),
   * kept(id) (what the computation owner keeps for the panel: its entry's keeps), view(id) (another
   * panel), changed(part) (a part changed outside a render: the panels viewing it read it again),
   * connected(), whenActive(), figureDrawn(). A panel never calls the module: update(options,
   * computed) hands it its numbers. Optional hooks the element calls on every panel: draw() (a new
   * width or theme), wake(), suspend() (in and out of view), unload() (disconnected).
   */
  constructor(id, title, intro, host) {
    this.id = id;
    this.title = title;
    this.host = host;
    this.figures = [];
    this.tableMakers = [];
    this.statusLine = el('p', { class: 'status', role: 'status' });
    this.body = el('div', { class: 'panel-body' });
    this.figureArea = el('div', { class: 'figures' });
    this.tables = el('div', { class: 'tables' });
    const exportButton = (kind, label, run) =>
      el('button', {
        type: 'button',
        class: 'export',
        text: label,
        'aria-label': `Save the ${title} panel as ${kind}`,
        onclick: run,
      });
    // Slide mode, for a panel whose entry declares `slide` (panels/index.js): its point in large type
    // above its figures, and the rest (intro, numbers, controls) behind the Details button.
    this.point = el('p', { class: 'point' });
    this.detailsToggle = el('button', {
      type: 'button',
      class: 'details-toggle',
      text: 'Details',
      'aria-expanded': 'false',
      onclick: () => this.showDetails(!this.section.classList.contains('details-open')),
    });
    this.section = el(
      'section',
      { class: 'panel', id: `panel-${id}`, 'data-panel': id, 'aria-labelledby': `heading-${id}` },
      el('h2', { id: `heading-${id}`, text: title }),
      this.point,
      this.detailsToggle,
      el('p', { class: 'intro', text: intro }),
      this.statusLine,
      this.body,
      this.figureArea,
      (this.details = el(
        'details',
        { class: 'numbers', ontoggle: () => this.#buildTables() },
        el('summary', { text: 'The numbers as tables' }),
        this.tables,
      )),
      el(
        'div',
        { class: 'exports', role: 'group', 'aria-label': `Export ${title}` },
        // What PNG and SVG save: every figure as they stand on screen, or one of them with its title.
        (this.exportWhich = el('select', {
          class: 'export-which',
          'aria-label': `Which figure of ${title} to save`,
          onfocus: () => this.#offerFigures(),
          onpointerdown: () => this.#offerFigures(),
        })),
        // Exports are drawn in the theme the reader sees.
        exportButton('PNG', 'PNG', () => exportPNG(this.exportFigure(), `headwise-${id}`, this.host.palette())),
        exportButton('SVG', 'SVG', () => exportSVG(this.exportFigure(), `headwise-${id}`, this.host.palette())),
        // The figures on one 1920x1080 image for a slide; the button keeps what it laid out (tests read it).
        exportButton('a 16:9 PNG for a slide', 'PNG 16:9', (event) => {
          const one = this.exportWhich.value !== '' && this.figures[Number(this.exportWhich.value)];
          const figures = one ? [one] : this.figures.length ? this.figures : [this.exportFigure()];
          event.currentTarget.headwiseLayout = exportSlidePNG(figures, title, `headwise-${id}`, this.host.palette());
        }),
        exportButton('JSON', 'JSON', () => exportJSON(this.exportData(), `headwise-${id}`)),
      ),
    );
    this.#offerFigures();
  }

  /** The width figures may use, measured once per render by the element (no layout per panel). */
  get drawWidth() {
    return Math.max(260, Math.min(1100 * this.textScale, this.host.width(this.id) || 640));
  }

  /**
   * How much larger than designed the figures' text is: on a slide the slide's font size against
   * SLIDE_TEXT_BASE (figure.js; so labels grow with the slide), elsewhere 1.
   */
  get textScale() {
    if (!this.section.closest('.explorer.slide')) return 1;
    const size = parseFloat(getComputedStyle(this.section).fontSize);
    if (!(size > 0)) return 1;
    // A panel designed as a slide (its point shown) draws its figures' text larger: its smallest
    // (10 px designed) at 16 px or more at 1280x720, read from the back of a room.
    return this.slideFirst ? size / SLIDE_FIRST_TEXT_BASE : size / SLIDE_TEXT_BASE;
  }

  /** On a slide, the height left for figures below `element` (one layout read); elsewhere Infinity. */
  heightBelow(element) {
    // Asked by a panel about to draw figures: lay it out as a panel with figures, its point said.
    this.section.dataset.figures = 'some';
    this.sayPoint();
    const wrapper = this.section.closest('.explorer.slide');
    const frame = this.host.viewportHeight();
    if (!wrapper || !frame) return Infinity;
    const padding = parseFloat(getComputedStyle(wrapper).paddingBottom) || 0;
    // The frame is measured on screen; figures are drawn in the element's own px, which a deck that
    // scales its slides (reveal.js at 1920x1080: 1.5) draws larger.
    const scale = this.section.getBoundingClientRect().width / this.section.offsetWidth || 1;
    const room = frame - padding * scale - element.getBoundingClientRect().top - (globalThis.scrollY ?? 0);
    return Math.max(120, room / scale);
  }

  /**
   * On a slide, shrinks this panel's canvases together (the --fit factor) until the panel ends
   * inside the frame. Figures are laid out for the frame first; this takes up what text wrapping
   * and rounding leave over. When shrinking does not move the panel's end (its text is what is too
   * long), the figures keep their size and the text shrinks a little. Layout only, no paint in
   * between: nothing flickers.
   */
  fitToFrame() {
    const wrapper = this.section.closest('.explorer.slide');
    const canvases = [...this.section.querySelectorAll('canvas:not([hidden])')];
    const frame = this.host.viewportHeight();
    this.section.style.removeProperty('--fit');
    this.section.style.removeProperty('--text-fit');
    if (!wrapper || !canvases.length || !frame) return;
    const below = (element, side) => parseFloat(getComputedStyle(element)[side]) || 0;
    // 4 px to spare for rounding in the layout.
    const margins = below(wrapper, 'paddingBottom') + below(this.figureArea, 'marginBottom') + 4;
    const limit = frame - margins - (globalThis.scrollY ?? 0);
    // Never so small that a figure's smallest text is under MIN_FIGURE_TEXT px: a panel much taller
    // than its frame (a phone held upright) scrolls instead of shrinking its figures to specks.
    const smallest = Math.min(
      ...canvases.map((c) => {
        const f = c.headwiseFigure;
        const sizes = (f?.items ?? []).filter((it) => it.kind === 'text').map((it) => it.size);
        return sizes.length ? (Math.min(...sizes) * c.getBoundingClientRect().width) / f.width : Infinity;
      }),
    );
    // While a box says the input is wrong above the figures, they are the last good ones, kept for
    // reference: their text may go to 80% of the floor so that the box and they still fit the frame.
    const least = this.slideFirst ? MIN_SLIDE_FIRST_TEXT : MIN_FIGURE_TEXT;
    const minText = this.oddInput?.parentElement === this.figureArea ? 0.8 * least : least;
    // Rounded up to the 3 decimals --fit is written with, so that writing it keeps the text at the floor.
    const floor = Math.min(1, Math.max(0.25, Math.ceil((1000 * minText) / smallest) / 1000));
    let fit = 1;
    let end = this.section.getBoundingClientRect().bottom;
    // Far too long even with figures at their floor and text at 80% (a phone held upright): the panel
    // scrolls either way, and its figures keep their size.
    if (end > limit) {
      this.section.style.setProperty('--fit', floor.toFixed(3));
      this.section.style.setProperty('--text-fit', '0.80');
      const least = this.section.getBoundingClientRect().bottom;
      this.section.style.removeProperty('--fit');
      this.section.style.removeProperty('--text-fit');
      if (least - limit > 0.25 * frame) return;
    }
    const shrinkFigures = () => {
      for (let pass = 0; pass < 6 && end > limit; pass += 1) {
        const boxes = canvases.map((c) => c.getBoundingClientRect());
        const span = Math.max(...boxes.map((b) => b.bottom)) - Math.min(...boxes.map((b) => b.top));
        if (span <= 0) break;
        const next = Math.max(floor, fit * ((span - (end - limit) - 1) / span));
        if (next >= fit) break;
        this.section.style.setProperty('--fit', next.toFixed(3));
        const after = this.section.getBoundingClientRect().bottom;
        if (end - after < 1) {
          if (fit < 1) this.section.style.setProperty('--fit', fit.toFixed(3));
          else this.section.style.removeProperty('--fit');
          break;
        }
        fit = next;
        end = after;
      }
    };
    shrinkFigures();
    // Still too long: it is the text. Its type shrinks a little (to 80% at most; figure text is
    // drawn at the slide's size, read from the section, which keeps its own). Where smaller text
    // does not shorten the panel (its figures are the longer column, at their floor), it keeps its size.
    const before = end;
    for (let textFit = 0.96; textFit >= 0.8 && end > limit; textFit -= 0.03) {
      this.section.style.setProperty('--text-fit', textFit.toFixed(2));
      end = this.section.getBoundingClientRect().bottom;
    }
    if (end > limit && before - end < 1) {
      this.section.style.removeProperty('--text-fit');
      end = before;
    }
    // The text was the longer column, and the figures beside it are too long as well.
    shrinkFigures();
  }

  /**
   * Slide mode's Details: shown, the panel's text and controls take the place of its figures;
   * hidden, the figures and the point are all the slide shows.
   */
  showDetails(open) {
    this.section.classList.toggle('details-open', open);
    this.detailsToggle.setAttribute('aria-expanded', String(open));
    this.detailsToggle.textContent = open ? 'Back to the figure' : 'Details';
  }

  /** Shown as a slide-first slide (the point shown: slide mode on a 16:9 frame, its entry's slide). */
  get slideFirst() {
    return Boolean(this.slidePoint) && getComputedStyle(this.point).display !== 'none';
  }

  /** The point said on a slide, from the panel's entry (slide.point(view)); set by the element. */
  sayPoint() {
    if (this.slidePoint) this.point.textContent = this.slidePoint(this);
  }

  status(text, kind = '') {
    this.statusLine.textContent = text;
    this.statusLine.dataset.kind = kind;
  }

  /**
   * Replaces the figures: each { figure, label, table } gets a canvas (role img). `table` is a
   * function making the figure's table; tables are built when the reader opens them (building
   * thousands of cells on every change would cost more than the computation itself).
   */
  showFigures(items, { row = false } = {}) {
    this.figures = items.map((i) => i.figure);
    this.section.dataset.figures = items.length ? 'some' : 'none';
    this.figureArea.classList.toggle('row', row);
    this.tableMakers = items.map((i) => i.table).filter(Boolean);
    drawOnCanvases(this.figureArea, items, this.host.palette());
    this.sayPoint();
    this.fitToFrame();
    this.#buildTables();
    if (items.length) this.host.figureDrawn();
  }

  /** Adds table makers after showFigures (for figures drawn outside figureArea). */
  addTables(...makers) {
    this.tableMakers.push(...makers);
    this.#buildTables();
  }

  clearFigures() {
    this.section.dataset.figures = 'none';
    this.figures = [];
    this.tableMakers = [];
    this.figureArea.replaceChildren();
    this.tables.replaceChildren();
  }

  /**
   * Runs `load` once, when the panel comes within 200 px of the view (at once where there is no
   * IntersectionObserver). Loading a trained model is work (tens of ms in several tasks for the heads
   * panel, tests/browser/heads-load-work) that a page of every panel should not spend in its first
   * render on a panel the reader has not reached (tests/browser/heavy-config).
   */
  whenNear(load) {
    if (this.#near) return;
    if (typeof IntersectionObserver !== 'function') {
      load();
      return;
    }
    this.#near = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        this.#near.disconnect();
        this.#near = null;
        load();
      },
      { rootMargin: '200px' },
    );
    this.#near.observe(this.section);
  }

  #buildTables() {
    if (!this.details.open) {
      this.tables.replaceChildren();
      return;
    }
    this.tables.replaceChildren(...(this.tableMakers ?? []).map((make) => make()));
  }

  /**
   * What PNG and SVG save: the figure chosen in the exports' list, else every figure in the rows
   * they stand in on screen (canvases whose tops are within half the lower one's height share a
   * row; figures not on screen follow, one a row).
   */
  exportFigure() {
    if (!this.figures.length) {
      const f = new Figure(480, 40, this.id);
      f.text(8, 20, this.statusLine.textContent || 'nothing to show');
      return f;
    }
    const chosen = this.figures[Number(this.exportWhich.value)];
    if (this.exportWhich.value !== '' && chosen) return chosen;
    const placed = [...this.section.querySelectorAll('canvas:not([hidden])')]
      .map((canvas) => ({ figure: canvas.headwiseFigure, box: canvas.getBoundingClientRect() }))
      .filter(({ figure, box }) => this.figures.includes(figure) && box.width > 0)
      .sort((a, b) => a.box.top - b.box.top || a.box.left - b.box.left);
    const rows = [];
    for (const p of placed) {
      const row = rows.at(-1);
      const last = row?.at(-1);
      if (last && p.box.top - last.box.top < 0.5 * Math.min(p.box.height, last.box.height)) row.push(p);
      else rows.push([p]);
    }
    const onScreen = new Set(placed.map((p) => p.figure));
    const figureRows = [
      ...rows.map((row) => row.sort((a, b) => a.box.left - b.box.left).map((p) => p.figure)),
      ...this.figures.filter((f) => !onScreen.has(f)).map((f) => [f]),
    ];
    return arrangeFigures(figureRows, `headwise: ${this.id}`);
  }

  // The exports' list: all figures, then each by its title (kept chosen while it is still there).
  #offerFigures() {
    const titles = this.figures.map((f, k) => f.title || `figure ${k + 1}`);
    const key = JSON.stringify(titles);
    if (this.exportWhich.dataset.offered === key) return;
    const was = this.exportWhich.selectedOptions[0]?.textContent;
    this.exportWhich.replaceChildren(
      el('option', { value: '', text: 'All figures' }),
      ...titles.map((t, k) => el('option', { value: String(k), text: t })),
    );
    this.exportWhich.dataset.offered = key;
    const again = [...this.exportWhich.options].find((o) => o.textContent === was);
    this.exportWhich.value = again ? again.value : '';
  }

  /** Panels override: the numbers behind the figures. */
  exportData() {
    return { panel: this.id, status: this.statusLine.textContent };
  }
}
