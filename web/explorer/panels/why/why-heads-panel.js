// Panel 2: why one head is not enough. Designed weights (labelled so) make the last "it" want both
// "ball" and "catch": one head must split its softmax row, two heads take one each.
import { PanelFrame } from '../../panel-frame.js';
import { el } from '../../dom.js';
import { heatmapFigure, heatmapTable } from '../../figures/heatmap.js';
import { barsFigure } from '../../figures/charts.js';
import { headColour } from '../../figures/head-colours.js';
import { stackFigures } from '../../figures/figure.js';
import { DEFAULT_SENTENCE } from '../../lecture/presets.js';
import { WHY_WIDTH as WIDTH, whyRuns } from './teaching-weights.js';
import { LearnedView } from '../learn/learned-view.js';
import { SAMPLE_NOUN_AT, SAMPLE_VERB_AT } from '../learn/learn-verdict.js';

const UNTRAINED =
  'These query and key weights are designed by hand. Training finds the same split by itself: train 1 head and ' +
  '2 heads here and their learned attention from "?" is drawn under the designed maps.';

// Where each head of a trained run puts most of its attention from "?".
function learnedText(learned) {
  const { words } = learned;
  const runs = learned.runs.filter((r) => r.heads <= 2);
  const described = runs.map((run) => {
    const heads = run.trained.map((v, h) => {
      const on = (at) => `${v[at].toFixed(2)} on "${words[at]}"`;
      return `${run.heads === 1 ? 'its head' : `head ${h + 1}`} ${on(SAMPLE_VERB_AT)} and ${on(SAMPLE_NOUN_AT)}`;
    });
    const name = `${run.heads} head${run.heads === 1 ? '' : 's'}`;
    return `${name} (${Math.round(100 * run.accuracy)}% held-out): ${heads.join(', ')}`;
  });
  return (
    `Learned, not designed: after ${learned.step} steps of training, the attention from "?" in ` +
    `"${words.join(' ')}" (latest verb "catch", latest noun "ball"). ${described.join('; ')}.`
  );
}

/** The slide's point: what the last "it" gives "ball" and "catch" with one head and with two. */
function whyPoint(view) {
  if (!view.runs) return 'One head must split its attention; two heads can each look at one word.';
  const at = (row, token) => row[view.tokens.indexOf(token)].toFixed(2);
  const one = view.runs.one.lastRow[0];
  const [h1, h2] = view.runs.two.lastRow;
  return (
    `One head splits "it" between ball (${at(one, 'ball')}) and catch (${at(one, 'catch')}); ` +
    `two heads take one each: ball ${at(h1, 'ball')}, catch ${at(h2, 'catch')}.`
  );
}

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
    this.learnedView = new LearnedView(host, {
      untrained: UNTRAINED,
      text: learnedText,
      maps: (learned) =>
        learned.runs
          .filter((run) => run.heads <= 2)
          .map((run) => ({ run, kind: 'trained', title: `Learned: ${run.heads} head${run.heads === 1 ? '' : 's'}` })),
    });
    // The note and its Train button go with the text; the learned maps under the designed ones (on
    // a wide slide, in the right column, sharing its height).
    this.side = el('div', { class: 'side' });
    this.figureArea.replaceWith(this.side);
    this.side.before(this.learnedView.element);
    this.side.append(this.figureArea, this.learnedView.area);
  }

  update(o, c) {
    const why = c?.why;
    const learnedChanged = c?.learned !== this.learned;
    this.learned = c?.learned;
    this.learnedView.update(this.learned); // also says when a run is under way in panel 7
    if (why === this.why) {
      if (learnedChanged) this.draw();
      return; // nothing else here depends on the other options
    }
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
    // Wide: the two bar charts side by side over the three maps (one head's, then the two heads'),
    // sized to the height left on a slide (beside the text on a 16:9 one). Narrow: one head's
    // figures, then the two heads'.
    const wide = width >= 560;
    const gap = 12;
    const half = Math.floor((width - gap) / 2) - 4;
    const third = Math.floor((width - 2 * gap) / 3) - 4;
    // On a slide: the height for figures, less what the learned maps under them take (drawn first;
    // beside the text, kept to a fifth of the height).
    const height = this.heightBelow(this.figureArea);
    const besideText = this.side.getBoundingClientRect().left > this.body.getBoundingClientRect().right;
    const sideWidth = this.side.getBoundingClientRect().width || width;
    const learnedTables = this.learnedView.draw(Math.min(width, sideWidth), {
      across: sideWidth >= 480 ? 2 : 1,
      maxHeight: besideText && Number.isFinite(height) ? Math.round(height * 0.2) : Infinity,
      textScale: k,
    });
    const learned = this.learnedView.height;
    // Under text that already fills the frame (a phone held upright) the slide scrolls: the figures
    // keep their page sizes rather than shrink to specks.
    const left = height - (learned ? learned + gap : 0);
    const available = !besideText && left < 400 * k ? Infinity : left;
    // A slide-first slide gives the maps, where "ball" and "catch" are read, the larger share.
    const [share, least] = this.slideFirst ? [0.34, 90] : [0.42, 120];
    const barsHeight = Number.isFinite(available) ? Math.min(240 * k, Math.max(least * k, available * share)) : null;
    let mapHeight = Number.isFinite(available) ? Math.max(120, available - barsHeight - 2 * gap) : Infinity;
    const tokens = this.tokens;
    const map = (run, h, title) => {
      const common = {
        values: run.attention,
        quantity: 'attention',
        scores: run.scores,
        headDim: WIDTH / run.heads,
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
    // A bar chart's height per row (in units of the text scale) so that the figure, with its title
    // and its turned labels (about 60 units), is about barsHeight tall.
    const lowest = this.slideFirst ? 28 : 48;
    const rowHeight = (rows, standard) => (barsHeight ? Math.max(lowest, (barsHeight / k - 62) / rows - 10) : standard);
    const oneBars = barsFigure({
      rows: [{ name: 'one head', values: Array.from(one.lastRow[0]) }],
      labels: tokens,
      title: 'One head: row of the last "it"',
      maxWidth: wide ? half : width,
      height: rowHeight(1, 150),
      textScale: k,
    });
    const twoBars = barsFigure({
      rows: two.lastRow.map((r, h) => ({ name: `head ${h + 1}`, values: Array.from(r), colour: headColour(h) })),
      labels: tokens,
      title: 'Two heads: row of the last "it"',
      maxWidth: wide ? half : width,
      height: rowHeight(2, 110),
      textScale: k,
    });
    // Side by side, the maps get the height the bars left (their rows have a least height).
    if (wide && Number.isFinite(available))
      mapHeight = Math.max(120, available - Math.max(oneBars.height, twoBars.height) - 2 * gap);
    const oneMap = map(one, 0, 'One head: attention (T x T)');
    const twoMaps = [0, 1].map((h) => map(two, h, `Two heads: head ${h + 1} attention`));
    const oneTitle = 'One head: the last "it" splits its attention between ball and catch';
    const twoTitle = 'Two heads: head 1 attends to ball, head 2 to catch';
    const twoTables = () => el('div', {}, twoMaps[0].table(), twoMaps[1].table());
    this.figureArea.classList.toggle('grid', wide);
    this.figureArea.style.setProperty('--columns', '6');
    let items;
    if (wide) {
      items = [
        { figure: oneBars, label: `${oneTitle}: bars`, span: 3, table: oneMap.table },
        { figure: twoBars, label: `${twoTitle}: bars`, span: 3, table: twoTables },
        { figure: oneMap.figure, label: `${oneTitle}: attention map`, span: 2 },
        { figure: twoMaps[0].figure, label: `${twoTitle}: head 1 attention map`, span: 2 },
        { figure: twoMaps[1].figure, label: `${twoTitle}: head 2 attention map`, span: 2 },
      ];
    } else {
      const left = stackFigures([oneBars, oneMap.figure], 'One head');
      left.title = oneTitle;
      const right = stackFigures([twoBars, ...twoMaps.map((m) => m.figure)], 'Two heads');
      right.title = twoTitle;
      items = [
        { figure: left, table: oneMap.table },
        { figure: right, table: twoTables },
      ];
    }
    this.showFigures(items, { row: true });
    this.addTables(...learnedTables);
    this.figures.push(...this.learnedView.figures);
    this.fitToFrame();
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
      learned: this.learnedView.exportData(),
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

export default {
  id: 'why',
  label: 'One head is not enough',
  aliases: ['one-head'],
  parts: ['why', 'learned'],
  // On a slide: the point, then the figure (the bars and maps of the last "it").
  slide: { point: whyPoint },
  numbers: { why: { key: (o) => [o.seed], run: ({ hw, o }) => whyRuns(hw, o.seed) } },
  View: WhyHeadsPanel,
};
