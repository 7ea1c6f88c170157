// The Learn panel's third experiment, "1, 2 and 4 heads" on the story task (learn-experiment=story):
// the shipped story checkpoints (2 and 4 heads) and results (1 head: no weights shipped) drawn at
// once (learn-numbers.js loads them), or their training
// replayed from scratch in the page's trainer workers ("Train live", induction-live.js, with each
// head zeroed in turn at the end). It is the "1 layer vs 2 layers" view (induction-view.js: its
// buttons, live run, redraws and summary) with the story's data (story-data.js), text and figures:
// per probe the held-out accuracy over training of every model (learn-charts.js curveFigure), each
// head's map on the lecture's sentence under its measured role (the story panel's rows and
// heatmaps), and the ablation table.
import { el } from '../../dom.js';
import { arrangeFigures } from '../../figures/figure.js';
import { heatmapFigure } from '../../figures/heatmap.js';
import { headRowMaps } from '../story/story-panel.js';
import { FALLS, LECTURE_SENTENCE, STORY_SKILLS } from '../story/story-reading.js';
import { curveFigure } from './learn-charts.js';
import { InductionView } from './induction-view.js';
import { MAPS_EVERY, MEASURE_EVERY } from './induction-live.js';
import {
  ablationTable,
  antecedentScore,
  antecedentStep,
  learnedPoint,
  probeSeries,
  storyAccount,
} from './story-data.js';

export const STORY_INTRO =
  '1, 2 and 4 heads of one attention layer at the same width (64), trained to predict the next word of ' +
  "lecture-like English: a pronoun needs its antecedent, a verb its subject's number, a name its earlier " +
  `mention. Curves: each probe's held-out accuracy over its candidates; maps: each head on "${LECTURE_SENTENCE}"`;
const two = (v) => (v === null || v === undefined ? '-' : v.toFixed(2));
const CHART_HEIGHT = 70; // a probe chart's plot (designed px, times the text scale)
const GAP = 12; // the figure grid's gap

export class StoryView extends InductionView {
  /** The heads are zeroed one by one at the end of a live run (its ablation table). */
  ablate = true;

  get experiment() {
    return 'story';
  }

  loadingText() {
    return 'Loading the trained models (web/checkpoints/story-1-head.json, story-2-heads.json, story-4-heads.json)...';
  }

  loadData() {
    return this.host.kept('learn').story();
  }

  checkpointModel(m) {
    return m;
  }

  liveModel(run) {
    return {
      name: run.name,
      layers: run.layers,
      heads: run.options.heads,
      steps: run.steps,
      curve: run.curve,
      roles: run.roles,
      maps: run.maps,
      evaluation: run.evaluation ?? run.curve.at(-1)?.heldOut ?? null,
      ablation: run.ablation ?? [],
    };
  }

  pointOf(models) {
    return learnedPoint(models);
  }

  /** Marks on the section's dataset: the step at which the last model's head first looks at the antecedent. */
  markSection(models, dataset) {
    const seen = this.#antecedentSeen(models);
    dataset.antecedentStep = seen ? String(seen.step) : '';
    dataset.antecedentMs = seen?.ms !== undefined ? String(Math.round(seen.ms)) : '';
  }

  // The step at which the last model's best head first puts ANTECEDENT_SEEN on the antecedent: the
  // live run's once one started (before its first maps the checkpoints are drawn).
  #antecedentSeen(models) {
    const curve = this.live ? this.live.runs.at(-1).curve : models?.at(-1).curve;
    return curve ? antecedentStep(curve) : null;
  }

  liveNote(models) {
    const seen = this.#antecedentSeen(models);
    return seen
      ? ` ${models.at(-1).name}: a head puts ${two(seen.score)} on the antecedent at step ${seen.step}` +
          (seen.ms !== undefined ? ` (${Math.round(seen.ms / 1000)} s).` : '.')
      : '';
  }

  accountText(models) {
    if (this.live && this.live.state !== 'done') {
      return [
        `Training from scratch: each probe's held-out accuracy and the heads' roles are measured every ` +
          `${MEASURE_EVERY} steps, their maps every ${MAPS_EVERY} steps; each head is zeroed in turn at the end.`,
      ];
    }
    if (models.some((m) => !m.roles || !m.evaluation)) return [`The heads are measured every ${MEASURE_EVERY} steps.`];
    const { reading, T } = this.data;
    return storyAccount(models, reading, T);
  }

  // The ablation table, drawn as a table: per model, every probe with all heads and with each head
  // zeroed alone (a fall of FALLS or more marked).
  fillTable(models) {
    const key = JSON.stringify(models.map((m) => [m.name, m.ablation?.length, m.evaluation?.loss]));
    if (this.storyTableKey === key) return;
    this.storyTableKey = key;
    this.ablationTable ??= el('table', { class: 'story-ablation' });
    // In a box of the text column's width that scrolls sideways where the table is wider (a phone).
    if (!this.ablationTable.isConnected) {
      const box = el('div', { class: 'story-ablation-box details-only' }, this.ablationTable);
      Object.assign(box.style, { overflowX: 'auto', maxWidth: '100%' });
      this.account.after(box);
    }
    const head = el(
      'tr',
      {},
      ...['model', 'heads on', ...STORY_SKILLS.map(([, label]) => label.replace(' pronoun', ''))].map((text) =>
        el('th', { text }),
      ),
    );
    const rows = models.flatMap((m) => {
      const table = m.evaluation ? ablationTable(m) : [];
      const whole = el(
        'tr',
        { 'data-model': m.name, 'data-zeroed': '' },
        el('th', { text: m.name }),
        el('td', { text: 'all' }),
        ...STORY_SKILLS.map(([skill]) => el('td', { text: two(m.evaluation?.groups[skill]?.candidateAccuracy) })),
      );
      const zeroed = table.map(({ head: h, role, rows: cells }) =>
        el(
          'tr',
          { 'data-model': m.name, 'data-zeroed': String(h) },
          el('th', { text: m.name }),
          el('td', { text: `head ${h + 1} off`, title: role }),
          ...cells.map((c) => el('td', { class: c.change <= -FALLS ? 'falls' : '', text: two(c.without) })),
        ),
      );
      return [whole, ...zeroed];
    });
    const caption = models.some((m) => m.ablation?.length)
      ? 'Held-out accuracy per probe with every head, and with one head zeroed (bold: falls by 0.10 or more)'
      : 'Held-out accuracy per probe (each head is zeroed when the run is done)';
    this.ablationTable.replaceChildren(el('caption', { text: caption }), head, ...rows);
  }

  /**
   * Wide: three charts a row; on a slide the six charts alone, two rows of three whose plots take the
   * height left (each head's map is the story panel's slide), else two or one a row, then the maps.
   */
  figureLayout(models) {
    const k = this.panel.textScale;
    const width = this.panel.drawWidth;
    if (!this.panel.slideFirst) {
      const columns = width >= 900 * k ? 3 : width >= 520 * k ? 2 : 1;
      return { width, k, columns, plot: CHART_HEIGHT, withMaps: true };
    }
    const area = this.panel.figureArea;
    const style = getComputedStyle(area);
    const room = this.panel.heightBelow(area) - 4 - (parseFloat(style.marginBottom) || 0);
    const row = (room - (parseFloat(style.rowGap) || GAP)) / 2;
    // A chart's height grows linearly with its plot's: one solve from two sizes.
    const cell = Math.floor((width - 2 * GAP) / 3);
    const tall = (plot) => this.#chart(models, 'probe', () => [], { cell, k, plot }).height;
    const [h0, h1] = [tall(0), tall(100)];
    const plot = Math.max(40, Math.min(200, Math.floor((100 * (row - h0)) / (h1 - h0))));
    return { width, k, columns: 3, plot, withMaps: false };
  }

  #chart(models, title, curve, { cell, k, plot }) {
    return curveFigure({
      runs: models.map((m) => ({ heads: m.heads, curve: curve(m) })),
      key: 'accuracy',
      maxSteps: models.at(-1).steps,
      title,
      maxWidth: cell,
      height: plot,
      textScale: k,
    });
  }

  // Six charts in the grid's columns (the five probes and the antecedent score), then each model's
  // heads in a row across the grid.
  figureItems(models, { width, k, columns, plot, withMaps }) {
    const cell = Math.floor((width - GAP * (columns - 1)) / columns);
    const chart = (title, curve) => this.#chart(models, title, curve, { cell, k, plot });
    // On a slide a third of its width: the probe's name (the point says what is measured).
    const items = STORY_SKILLS.map(([skill, label]) => ({
      figure: chart(withMaps ? `${label}: held-out accuracy` : label, (m) => probeSeries(m.curve, skill)),
    }));
    items.push({
      figure: chart(withMaps ? 'Attention on the antecedent (best head)' : 'attention on the antecedent', (m) =>
        m.curve.filter((p) => p.roles).map((p) => ({ step: p.step, accuracy: antecedentScore(p.roles) })),
      ),
    });
    const { reading, T } = this.data;
    for (const m of withMaps ? models : []) {
      if (!m.maps || !m.roles) continue;
      const maps = headRowMaps({ reading, maps: m.maps[0], T, roles: m.roles[0] });
      const across = Math.min(m.heads, Math.max(1, Math.floor(width / (300 * k))));
      const w = Math.floor((width - 16 * (across - 1)) / across);
      const figures = maps.map((spec) =>
        heatmapFigure({ ...spec, title: `${m.name}, ${spec.title}`, maxWidth: w, textScale: k }),
      );
      const rows = [];
      for (let i = 0; i < figures.length; i += across) rows.push(figures.slice(i, i + across));
      items.push({
        figure: arrangeFigures(rows, `${m.name}: each head on the lecture's sentence`),
        span: columns,
      });
    }
    return items;
  }

  runSummary(m) {
    return {
      heads: m.heads,
      accuracy: m.evaluation
        ? Object.fromEntries(STORY_SKILLS.map(([skill]) => [skill, m.evaluation.groups[skill].candidateAccuracy]))
        : null,
      ablation: ablationTable(m).map(({ head, rows }) => ({
        head,
        accuracy: Object.fromEntries(rows.map((r) => [r.skill, r.without])),
      })),
    };
  }

  summaryNote(models) {
    const seen = this.#antecedentSeen(models);
    return { antecedentStep: seen?.step ?? null, antecedentMs: seen?.ms ?? null };
  }
}
