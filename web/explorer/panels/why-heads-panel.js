// Panel 2: why one head is not enough. Designed weights (labelled so) make the last "it" want both
// "ball" and "catch": one head must split its softmax row, two heads take one each.
import { PanelFrame } from '../panel-frame.js';
import { el } from '../dom.js';
import { heatmapFigure, heatmapTable } from '../heatmap.js';
import { barsFigure } from '../charts.js';
import { stackFigures } from '../figure.js';
import { DEFAULT_SENTENCE } from '../presets.js';
import { WHY_WIDTH as WIDTH } from '../computation.js';

export class WhyHeadsPanel extends PanelFrame {
  constructor(host) {
    super(
      'why',
      '2. Why one head is not enough',
      `For the sentence "${DEFAULT_SENTENCE}", width ${WIDTH}: the last "it" needs "ball" (what it refers to) ` +
        `and "catch" (what happens to it). The query and key weights here are DESIGNED for teaching, not trained: ` +
        `values and W_out are the seeded ones.`,
      host,
    );
    this.summary = el('p', { class: 'summary' });
    this.body.append(this.summary);
  }

  update(o, c) {
    const why = c?.why;
    if (why === this.why) return; // nothing here depends on the other options
    this.why = why;
    if (!why || why.error) {
      this.runs = null;
      this.clearFigures();
      this.summary.textContent = '';
      this.status(why?.error ?? 'Waiting for the module.', 'error');
      return;
    }
    this.seed = why.seed;
    this.tokens = why.tokens;
    this.runs = why.runs;
    const at = (row, token) => row[this.tokens.indexOf(token)];
    const one = this.runs.one.lastRow[0];
    const [h1, h2] = this.runs.two.lastRow;
    this.summary.textContent =
      `One head: the row of the last "it" gives ball ${at(one, 'ball').toFixed(2)} and ` +
      `catch ${at(one, 'catch').toFixed(2)}, so each gets only half. Two heads: head 1 gives ball ` +
      `${at(h1, 'ball').toFixed(2)}, head 2 gives catch ${at(h2, 'catch').toFixed(2)}: each head looks at one ` +
      `thing fully.`;
    this.status('Computed by the module with the designed weights.');
    this.draw();
  }

  draw() {
    if (!this.runs) return;
    const T = this.tokens.length;
    const k = this.textScale;
    const width = this.drawWidth;
    // Wide: a row of bars over a row of the three maps (one head's, then the two heads'), sized to
    // the height left on a slide. Narrow: one head's figures, then the two heads'.
    const wide = width >= 760;
    const third = Math.floor((width - 24) / 3) - 4;
    const available = this.heightBelow(this.figureArea);
    const barsHeight = Number.isFinite(available) ? Math.max(50, (available - 24) * 0.38) : null;
    const mapHeight = Number.isFinite(available) ? Math.max(120, available - barsHeight - 24) : Infinity;
    const tokens = this.tokens;
    const map = (attention, h, title) => {
      const common = {
        values: attention,
        offset: h * T * T,
        rows: T,
        cols: T,
        rowLabels: tokens,
        colLabels: tokens,
        scale: 'probability',
        masked: (i, j) => j > i,
        title,
      };
      return {
        figure: heatmapFigure({
          ...common,
          maxWidth: wide ? third : width,
          maxHeight: mapHeight,
          highlightRow: T - 1,
          textScale: k,
        }),
        table: () => heatmapTable(common),
      };
    };
    const one = this.runs.one;
    const two = this.runs.two;
    // A bar chart's height per row, so that the figure (title, rows, labels) is about barsHeight.
    const rowHeight = (rows, standard) => (barsHeight ? Math.max(40, (barsHeight / k - 90) / rows) : standard);
    const oneBars = barsFigure({
      rows: [{ name: 'one head', values: Array.from(one.lastRow[0]) }],
      labels: tokens,
      title: 'One head: row of the last "it"',
      maxWidth: wide ? third : width,
      height: rowHeight(1, 150),
      textScale: k,
    });
    const twoBars = barsFigure({
      rows: two.lastRow.map((r, h) => ({ name: `head ${h + 1}`, values: Array.from(r) })),
      labels: tokens,
      title: 'Two heads: row of the last "it"',
      maxWidth: wide ? 2 * third : width,
      height: rowHeight(2, 110),
      textScale: k,
    });
    const oneMap = map(one.attention, 0, 'One head: attention (T x T)');
    const twoMaps = [0, 1].map((h) => map(two.attention, h, `Two heads: head ${h + 1} attention`));
    const oneTitle = 'One head: the last "it" splits its attention between ball and catch';
    const twoTitle = 'Two heads: head 1 attends to ball, head 2 to catch';
    const twoTables = () => el('div', {}, twoMaps[0].table(), twoMaps[1].table());
    this.figureArea.classList.toggle('grid', wide);
    this.figureArea.style.setProperty('--columns', '3');
    if (wide) {
      this.showFigures(
        [
          { figure: oneBars, label: `${oneTitle}: bars`, table: oneMap.table },
          { figure: twoBars, label: `${twoTitle}: bars`, span: 2, table: twoTables },
          { figure: oneMap.figure, label: `${oneTitle}: attention map` },
          { figure: twoMaps[0].figure, label: `${twoTitle}: head 1 attention map` },
          { figure: twoMaps[1].figure, label: `${twoTitle}: head 2 attention map` },
        ],
        { row: true },
      );
      return;
    }
    const left = stackFigures([oneBars, oneMap.figure], 'One head');
    left.title = oneTitle;
    const right = stackFigures([twoBars, ...twoMaps.map((m) => m.figure)], 'Two heads');
    right.title = twoTitle;
    this.showFigures(
      [
        { figure: left, table: oneMap.table },
        { figure: right, table: twoTables },
      ],
      { row: true },
    );
  }

  exportData() {
    if (!this.runs) return { panel: 'why', status: this.statusLine.textContent };
    return {
      panel: 'why',
      sentence: DEFAULT_SENTENCE,
      tokens: this.tokens,
      width: WIDTH,
      seed: this.seed,
      designed: 'Wq and Wk are designed for teaching, not trained',
      oneHead: {
        lastItRow: this.runs.one.lastRow[0],
        attention: this.runs.one.attention,
        wq: this.runs.one.wq,
        wk: this.runs.one.wk,
      },
      twoHeads: {
        lastItRows: this.runs.two.lastRow,
        attention: this.runs.two.attention,
        wq: this.runs.two.wq,
        wk: this.runs.two.wk,
      },
    };
  }
}
