// Panel 5: loop against fused. The page's computation runs both on the current configuration; this
// panel shows their difference. The heads sweep (a measurement: started by its button, and on a
// slide as soon as the panel is shown) times both for 2..4000 heads through the fast kernels, draws
// them on log axes and draws their ratio, with when and in which browser it was measured.
import { PanelFrame } from '../../panel-frame.js';
import { el, formatNumber } from '../../dom.js';
import { logLogFigure, ratioFigure } from '../../figures/charts.js';
import { runHeadsSweep, SAMPLE_MS, SWEEP_CONFIG, SWEEP_HEADS } from './sweep.js';
import { maxAbsDiff } from '../../arrays.js';

const TOLERANCE = 1e-5;
const SWEEP_SHAPE =
  `batch ${SWEEP_CONFIG.batch}, T = ${SWEEP_CONFIG.tokens}, width ${SWEEP_CONFIG.dModel}, ` +
  `head_dim ${SWEEP_CONFIG.headDim}`;

/** Milliseconds when the slowest median reaches 1 ms (the axis then reads 0.01 .. 10), else microseconds. */
export function durationUnit(points) {
  const slowest = Math.max(0, ...points.flatMap((p) => [p.loop.median, p.fused.median]));
  return slowest >= 1 ? { name: 'ms', perMs: 1 } : { name: 'us', perMs: 1000 };
}

/** "Chrome 126", "Firefox 128", ... from a user agent string (the browser that measured). */
export function browserName(userAgent = globalThis.navigator?.userAgent ?? '') {
  for (const [name, pattern] of [
    ['Edge', /Edg\/(\d+)/],
    ['Firefox', /Firefox\/(\d+)/],
    ['Chrome', /Chrom(?:e|ium)\/(\d+)/],
    ['Safari', /Version\/(\d+)[^ ]* Safari/],
  ]) {
    const m = pattern.exec(userAgent);
    if (m) return `${name} ${m[1]}`;
  }
  return 'this browser';
}

const LOOP_COLOUR = '#D55E00';
const FUSED_COLOUR = '#0072B2';

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
    // On a slide designed as one, the sweep's progress stays in view while it measures (slide-keep).
    this.progress.classList.add('slide-keep');
    this.body.append(
      this.diff,
      el('div', { class: 'stepper' }, this.runButton, this.stopButton),
      this.progress,
      this.sweepText,
    );
    this.sweep = null;
    this.shown = false; // whether the section has been on screen (a slide runs the sweep then)
  }

  // On a slide the sweep runs when the panel is first shown: the slide has its result without a click.
  #runWhenShown() {
    if (this.watching || typeof IntersectionObserver !== 'function') return;
    this.watching = new IntersectionObserver((entries) => {
      this.shown = entries.at(-1).isIntersecting;
      if (this.shown) this.#autoRun();
    });
    this.watching.observe(this.section);
  }

  #autoRun() {
    const ready = this.options?.slide && this.computed?.status === 'ok' && this.host.connected();
    if (ready && this.shown && !this.sweep && !this.running) this.runSweep();
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
        `(${c.config.heads} heads, width ${c.config.dModel}, ${c.config.batch} x ${c.tokens.length} tokens): ` +
        `${d < TOLERANCE ? 'below 1e-5, the two versions agree' : 'ABOVE 1e-5: they disagree'}.`;
      this.status('Both versions were just computed by the module in this tab.');
    }
    this.draw();
    if (o.slide) {
      this.#runWhenShown();
      this.#autoRun();
    }
  }

  async runSweep() {
    if (this.running) return;
    this.running = true;
    this.cancelled = false;
    this.runButton.disabled = true;
    this.stopButton.hidden = false;
    this.progress.hidden = false;
    this.progress.value = 0;
    this.sweep = { config: SWEEP_CONFIG, points: [], done: false };
    this.sweepText.textContent = 'Warming up (the browser optimises the module during the first calls)...';
    try {
      const result = await this.host.kept(this.id).sweep({
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
      this.sweep.measuredAt = new Date();
      this.sweep.browser = browserName();
      const last = result.points.at(-1);
      const when = this.sweep.measuredAt.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
      this.sweepText.textContent = result.cancelled
        ? `Stopped after ${result.points.length} points.`
        : `Measured at ${when} in this tab (${this.sweep.browser}), ${SWEEP_SHAPE}: the lecture's shapes, ` +
          `which "npm run bench" times as heads-N. At ${last.heads} heads the loop takes ` +
          `${formatNumber(last.loop.median)} ms and fused ${formatNumber(last.fused.median)} ms: ` +
          `${(last.loopMs / last.fusedMs).toFixed(1)}x. Each point is the median of ${last.runs} samples after a ` +
          `warm-up (band: min to max); a sample repeats the call for ${SAMPLE_MS} ms, as a browser's clock ticks ` +
          `in steps of up to 0.1 ms.`;
      this.sweepText.dataset.done = String(!result.cancelled);
      this.progress.hidden = !result.cancelled;
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
    const unit = durationUnit(pts);
    const at = (v) => v * unit.perMs;
    const line = (key) => pts.map((p) => [p.heads, at(p[key].median)]);
    const band = (key) => pts.map((p) => [p.heads, at(p[key].min), at(p[key].max)]);
    // On a slide the two charts share the height left under the text; elsewhere their own heights.
    const k = this.textScale;
    const room = this.heightBelow(this.figureArea) - 24 * k;
    const maxWidth = Math.min(this.drawWidth, 760 * k);
    // A phone's column keeps the charts' shape (the slide then shrinks them whole to fit its frame).
    const [timesHeight, ratioHeight] =
      Number.isFinite(room) && maxWidth >= 480
        ? [Math.max(200, room * 0.56), Math.max(150, room * 0.44)]
        : [Math.min(320 * k, maxWidth * 0.9), Math.min(220 * k, maxWidth * 0.6)];
    const figure = logLogFigure({
      title: `Time per forward pass (${SWEEP_SHAPE})`,
      xLabel: 'heads (log)',
      yLabel: `${unit.name === 'ms' ? 'milliseconds' : 'microseconds'} (log)`,
      note: `bands: min to max of ${pts[0].runs} samples`,
      maxWidth,
      pixelHeight: timesHeight,
      textScale: k,
      xRange: [SWEEP_HEADS[0], SWEEP_HEADS.at(-1)],
      series: [
        { name: 'loop (one head after another)', colour: LOOP_COLOUR, points: line('loop'), band: band('loop') },
        { name: 'fused (five steps)', colour: FUSED_COLOUR, points: line('fused'), band: band('fused') },
      ],
    });
    const ratios = pts.map((p) => [p.heads, p.loopMs / p.fusedMs]);
    const ratio = ratioFigure({
      title: 'How many times slower the loop is (loop time / fused time, medians)',
      xLabel: 'heads',
      yLabel: 'loop / fused',
      points: ratios,
      maxWidth,
      height: ratioHeight,
      textScale: k,
      colour: LOOP_COLOUR,
    });
    const ratioText = ratios.map(([h, r]) => `${h} heads ${r.toFixed(1)}x`).join(', ');
    const table = () =>
      el(
        'table',
        {},
        el('caption', { text: `Heads sweep: ${unit.name} per forward pass, median (min-max)` }),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...['heads', `loop (${unit.name})`, `fused (${unit.name})`, 'loop / fused', 'max |loop - fused|'].map((h) =>
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
              ...['loop', 'fused'].map((key) =>
                el('td', {
                  text:
                    `${formatNumber(at(p[key].median))} ` +
                    `(${formatNumber(at(p[key].min))}-${formatNumber(at(p[key].max))})`,
                }),
              ),
              el('td', { text: (p.loopMs / p.fusedMs).toFixed(2) }),
              el('td', { text: formatNumber(p.maxDiff) }),
            ),
          ),
        ),
      );
    this.showFigures([
      { figure, table, label: 'Heads sweep chart on log axes; the table below has the numbers' },
      {
        figure: ratio,
        label: `Loop time over fused time per head count: ${ratioText}`,
      },
    ]);
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
            measured:
              'in this browser after a warm-up; per version the median, min and max of ' +
              `${this.sweep.points[0]?.runs ?? 0} samples in ms, each sample repeating the call (reps) ` +
              `until it lasts ${SAMPLE_MS} ms`,
            userAgent: navigator.userAgent,
          }
        : null,
    };
  }
}

/** The slide's point: the loop and the fused version agree, and which is faster once measured. */
function loopPoint(view) {
  const points = view.sweep?.points ?? [];
  const agree = view.lastDiff ? ` (they agree to ${formatNumber(view.lastDiff.maxDiff)})` : '';
  if (!points.length) return `Loop and fused give the same output${agree}: timing them now...`;
  const best = points.reduce((a, b) => (b.loopMs / b.fusedMs > a.loopMs / a.fusedMs ? b : a));
  const ratio = (best.loopMs / best.fusedMs).toFixed(1);
  const faster = `up to ${ratio}x faster (at ${best.heads} heads)`;
  return `One large product beats a loop over heads: ${faster}, same output${agree}.`;
}

export default {
  id: 'loop',
  slide: { point: loopPoint },
  label: 'Loop vs fused',
  aliases: ['fused', 'loop-fused'],
  parts: ['fused', 'loop'],
  numbers: {
    // The loop keeps the intermediates too: the layer's (B, H, T, T) buffers stay allocated between
    // renders instead of being freed by one call and allocated again by the next.
    loop: {
      layer: true,
      run: ({ base, layer, part }) => {
        const { output } = layer().forward(base.x, { variant: 'loop', intermediates: true });
        return { output, maxDiff: maxAbsDiff(output, part('fused').output) };
      },
    },
  },
  // Timing loop against fused for many head counts is a measurement the reader starts, not a part
  // of the result: through forward() and forward({ variant: 'loop' }), the fast kernels.
  keeps: (hw) => ({ sweep: (options) => runHeadsSweep(hw, options) }),
  View: LoopFusedPanel,
};
