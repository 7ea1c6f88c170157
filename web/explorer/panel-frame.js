// What every panel shares: a section with a heading, a status line, figures drawn on canvases,
// a table equivalent of each figure for screen readers, and PNG / SVG / JSON export.
import { el } from './dom.js';
import { Figure, stackFigures } from './figure.js';
import { exportJSON, exportPNG, exportSVG } from './export.js';

export class PanelFrame {
  /** host: { palette(), onOptions(partial) }. */
  constructor(id, title, intro, host) {
    this.id = id;
    this.host = host;
    this.figures = [];
    this.statusLine = el('p', { class: 'status', role: 'status' });
    this.body = el('div', { class: 'panel-body' });
    this.figureArea = el('div', { class: 'figures' });
    this.tables = el('div', { class: 'tables' });
    const exportButton = (kind, label, run) => el('button', { type: 'button', class: 'export', text: label, 'aria-label': `Save the ${title} panel as ${kind}`, onclick: run });
    this.section = el('section', { class: 'panel', id: `panel-${id}`, 'data-panel': id, 'aria-labelledby': `heading-${id}` },
      el('h2', { id: `heading-${id}`, text: title }),
      el('p', { class: 'intro', text: intro }),
      this.statusLine,
      this.body,
      this.figureArea,
      el('details', { class: 'numbers' }, el('summary', { text: 'The numbers as tables' }), this.tables),
      el('div', { class: 'exports', role: 'group', 'aria-label': `Export ${title}` },
        exportButton('PNG', 'PNG', () => exportPNG(this.exportFigure(), `headwise-${id}`)),
        exportButton('SVG', 'SVG', () => exportSVG(this.exportFigure(), `headwise-${id}`)),
        exportButton('JSON', 'JSON', () => exportJSON(this.exportData(), `headwise-${id}`))));
  }

  get drawWidth() {
    return Math.max(260, Math.min(1100, this.figureArea.clientWidth || this.section.clientWidth || 640));
  }

  status(text, kind = '') {
    this.statusLine.textContent = text;
    this.statusLine.dataset.kind = kind;
  }

  /** Replaces the figures: each { figure, label, table } gets a canvas (role img) and a table. */
  showFigures(items, { row = false } = {}) {
    this.figures = items.map((i) => i.figure);
    this.figureArea.replaceChildren();
    this.figureArea.classList.toggle('row', row);
    this.tables.replaceChildren();
    for (const item of items) {
      const canvas = el('canvas', { role: 'img', 'aria-label': item.label ?? item.figure.title });
      item.figure.drawTo(canvas, this.host.palette());
      this.figureArea.append(canvas);
      if (item.table) this.tables.append(item.table);
      item.onCanvas?.(canvas);
    }
    if (items.length) this.host.figureDrawn();
  }

  clearFigures() {
    this.figures = [];
    this.figureArea.replaceChildren();
    this.tables.replaceChildren();
  }

  exportFigure() {
    if (!this.figures.length) {
      const f = new Figure(480, 40, this.id);
      f.text(8, 20, this.statusLine.textContent || 'nothing to show');
      return f;
    }
    return stackFigures(this.figures, `headwise: ${this.id}`);
  }

  /** Panels override: the numbers behind the figures. */
  exportData() { return { panel: this.id, status: this.statusLine.textContent }; }
}
