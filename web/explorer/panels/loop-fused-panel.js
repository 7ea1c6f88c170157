// Panel 5: loop against fused. The page's computation runs both on the current configuration; this
// panel shows their difference. The heads sweep (a measurement, started by its button) times both
// for 2..4000 heads through the fast kernels and draws them on log axes.
import { PanelFrame } from '../panel-frame.js';
import { el, formatNumber } from '../dom.js';
import { logLogFigure } from '../charts.js';
import { SWEEP_HEADS } from '../sweep.js';

const TOLERANCE = 1e-5;

export class LoopFusedPanel extends PanelFrame {
  constructor(host) {
    super(
      'loop',
      '5. Loop against fused',
      'The loop version runs one head after another and concatenates; the fused version does all heads in one ' +
        'large product per step. Same numbers, different speed.',
      host,
    );
    this.diff = el('p', { class: 'loop-diff', 'aria-live': 'polite' });
    this.runButton = el('button', {
      type: 'button',
      class: 'run-sweep',
      text: 'Time the heads sweep (2 to 4000 heads)',
      onclick: () => this.runSweep(),
    });
    this.stopButton = el('button', {
      type: 'button',
      text: 'Stop',
      hidden: true,
      onclick: () => {
        this.cancelled = true;
      },
    });
    this.progress = el('progress', { max: SWEEP_HEADS.length, value: 0, hidden: true, 'aria-label': 'Sweep progress' });
    this.sweepText = el('p', { class: 'sweep-status', role: 'status' });
    this.body.append(
      this.diff,
      el('div', { class: 'stepper' }, this.runButton, this.stopButton),
      this.progress,
      this.sweepText,
    );
    this.sweep = null;
  }

  update(o, c) {
    this.options = o;
    this.computed = c;
    if (!c || c.status !== 'ok') {
      this.diff.textContent = '';
      this.lastDiff = null;
      delete this.diff.dataset.value;
      this.status(
        c?.status === 'shapes-only'
          ? `Shapes only: ${c.message}.`
          : `Waiting for a valid configuration${c?.message ? `: ${c.message}` : '.'}`,
        c?.status === 'shapes-only' ? 'warn' : 'error',
      );
    } else if (c.loop.error) {
      this.diff.textContent = '';
      this.lastDiff = null;
      delete this.diff.dataset.value;
      this.status(`The loop version could not be computed: ${c.loop.error}`, 'error');
    } else {
      const loop = c.loop.output;
      const d = c.loop.maxDiff;
      this.lastDiff = { loop, fused: c.fused.output, maxDiff: d };
      this.diff.dataset.value = String(d);
      this.diff.textContent =
        `max |loop - fused| = ${formatNumber(d)} over ${loop.length} outputs ` +
        `(${c.config.heads} heads, width ${c.config.dModel}, ${c.tokens.length} tokens): ` +
        `${d < TOLERANCE ? 'below 1e-5, the two versions agree' : 'ABOVE 1e-5: they disagree'}.`;
      this.status('Both versions were just computed by the module in this tab.');
    }
    this.draw();
  }

  async runSweep() {
    if (this.running) return;
    this.running = true;
    this.cancelled = false;
    this.runButton.disabled = true;
    this.stopButton.hidden = false;
    this.progress.hidden = false;
    this.progress.value = 0;
    const tokens = this.computed?.tokens?.length ?? 12;
    this.sweep = { tokens, points: [], done: false };
    this.sweepText.textContent = 'Warming up (the browser optimises the module during the first calls)...';
    try {
      const result = await this.host.runSweep({
        tokens,
        seed: this.options?.seed ?? 1,
        isCancelled: () => this.cancelled || !this.host.connected(),
        whenActive: () => this.host.whenActive(),
        onProgress: (done, total, point) => {
          this.progress.value = done;
          this.sweep.points.push(point);
          this.sweepText.textContent = `Measured ${done} of ${total} points (last: ${point.heads} heads)...`;
          this.draw();
        },
      });
      this.sweep.done = !result.cancelled;
      const last = result.points.at(-1);
      this.sweepText.textContent = result.cancelled
        ? `Stopped after ${result.points.length} points.`
        : `Done: measured in this browser just now. Each point is the median of ${last?.runs ?? 5} runs after a ` +
          `warm-up; T = ${tokens} tokens, width 6, head_dim 3. At ${last.heads} heads the loop takes ` +
          `${formatNumber(last.loopMs)} ms and fused ${formatNumber(last.fusedMs)} ms ` +
          `(${(last.loopMs / last.fusedMs).toFixed(1)}x).`;
      this.sweepText.dataset.done = String(!result.cancelled);
    } catch (error) {
      this.sweepText.textContent = `The sweep stopped: ${error.message}`;
    } finally {
      this.running = false;
      this.runButton.disabled = false;
      this.stopButton.hidden = true;
      this.draw();
    }
  }

  draw() {
    if (!this.sweep || !this.sweep.points.length) {
      this.clearFigures();
      return;
    }
    const pts = this.sweep.points;
    const figure = logLogFigure({
      title: `Time per forward pass, measured in this browser just now (T = ${this.sweep.tokens}, width 6, head_dim 3)`,
      xLabel: 'heads (log)',
      yLabel: 'microseconds (log)',
      maxWidth: Math.min(this.drawWidth, 760),
      xRange: [SWEEP_HEADS[0], SWEEP_HEADS.at(-1)],
      series: [
        {
          name: 'loop (one head after another)',
          colour: '#D55E00',
          points: pts.map((p) => [p.heads, p.loopMs * 1000]),
        },
        { name: 'fused (five steps)', colour: '#0072B2', points: pts.map((p) => [p.heads, p.fusedMs * 1000]) },
      ],
    });
    const table = () =>
      el(
        'table',
        {},
        el('caption', { text: 'Heads sweep: median microseconds per forward pass' }),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...['heads', 'loop (us)', 'fused (us)', 'loop / fused', 'max |loop - fused|'].map((h) =>
              el('th', { scope: 'col', text: h }),
            ),
          ),
        ),
        el(
          'tbody',
          {},
          ...pts.map((p) =>
            el(
              'tr',
              {},
              el('th', { scope: 'row', text: String(p.heads) }),
              el('td', { text: (p.loopMs * 1000).toFixed(1) }),
              el('td', { text: (p.fusedMs * 1000).toFixed(1) }),
              el('td', { text: (p.loopMs / p.fusedMs).toFixed(2) }),
              el('td', { text: formatNumber(p.maxDiff) }),
            ),
          ),
        ),
      );
    this.showFigures([{ figure, table, label: 'Heads sweep chart on log axes; the table below has the numbers' }]);
  }

  exportData() {
    return {
      panel: 'loop',
      config: this.computed?.config ?? null,
      maxDiff: this.lastDiff?.maxDiff ?? null,
      loop: this.lastDiff?.loop ?? null,
      fused: this.lastDiff?.fused ?? null,
      sweep: this.sweep
        ? {
            ...this.sweep,
            measured: 'in this browser, medians of several runs after a warm-up',
            userAgent: navigator.userAgent,
          }
        : null,
    };
  }
}
