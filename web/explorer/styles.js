// The explorer's styles, scoped by its shadow root. The theme option (light, dark or auto: the
// viewer's setting) is resolved by the element into data-theme on the host, which picks the colours.

/** The theme drawn: 'light' or 'dark', for the option's value and whether the viewer prefers dark. */
export const resolvedTheme = (theme, prefersDark) => (theme === 'auto' ? (prefersDark ? 'dark' : 'light') : theme);

export const EXPLORER_CSS = `
:host { display: block; color-scheme: light; --fg: #1b1b1f; --muted: #5c5c66; --bg: #ffffff; --line: #d0d0d8;
  --accent: #0b63c4; --warn: #8a5300; --error: #b00020; --chip: #eef1f6;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif; line-height: 1.45;
  color: var(--fg); background: var(--bg); }
:host([data-theme="dark"]) { color-scheme: dark; --fg: #ececf1; --muted: #a4a4b0; --bg: #16161a; --line: #3a3a44;
  --accent: #6cb4ff; --warn: #ffb44d; --error: #ff6b81; --chip: #26262e; }
* { box-sizing: border-box; }
/* The hidden attribute wins over any display set here (nav's flex kept panel=heads' nav visible). */
[hidden] { display: none !important; }
.explorer { max-width: 72rem; margin: 0 auto; padding: 0.5rem 1rem 2rem; }
nav { display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0.5rem 0 1rem; }
button, select, input, textarea { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line);
  border-radius: 6px; }
button { padding: 0.35rem 0.75rem; cursor: pointer; min-height: 2.25rem; }
button:hover { border-color: var(--accent); }
button:disabled { opacity: 0.5; cursor: default; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.panel { border-top: 1px solid var(--line); padding: 1rem 0 1.5rem; }
.panel[hidden] { display: none; }
h2 { margin: 0.25rem 0 0.5rem; font-size: 1.35em; }
.intro { margin: 0 0 0.5rem; color: var(--muted); max-width: 60rem; }
.status { margin: 0.25rem 0; min-height: 1.45em; }
.status[data-kind="error"], .rule[data-valid="false"] { color: var(--error); }
.status[data-kind="warn"] { color: var(--warn); }
.rule { font-weight: 600; }
.field { display: flex; flex-direction: column; gap: 0.2rem; font-size: 0.9em; }
.field.check { flex-direction: row; align-items: center; gap: 0.4rem; }
.field.check input { width: 1.2rem; height: 1.2rem; }
textarea { width: 100%; padding: 0.4rem; resize: vertical; }
input[type=number], select { padding: 0.3rem 0.4rem; min-height: 2.25rem; }
input[type=number] { width: 7rem; }
.controls { display: flex; flex-wrap: wrap; gap: 0.75rem 1rem; align-items: end; margin: 0.5rem 0; }
.help { margin: 0.2rem 0 0.5rem; font-size: 0.85em; color: var(--muted); }
.sentence-choices { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.35rem 0 0; }
.tokens, .token-bar { display: flex; flex-wrap: wrap; gap: 0.3rem; list-style: none; padding: 0; margin: 0.5rem 0;
  max-height: 12rem; overflow: auto; }
.tokens li { background: var(--chip); border-radius: 4px; padding: 0.05rem 0.4rem; white-space: pre; }
/* The token whose row is highlighted, and (underlined) the one a click locked. */
.token[data-highlight="true"] { border-color: var(--accent); }
.token[aria-pressed="true"] { border-color: var(--accent); box-shadow: inset 0 -3px 0 var(--accent); font-weight: 600; }
/* The heads panel's "Random weights" switch: pressed, it reads as on (a box with a tick). */
.weights-toggle::before { content: "☐ "; }
.weights-toggle[aria-pressed="true"] { border-color: var(--accent); box-shadow: inset 0 -3px 0 var(--accent); }
.weights-toggle[aria-pressed="true"]::before { content: "☑ "; }
.trained-about { margin: 0.35rem 0; }
.weights-row { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.figures { display: flex; flex-direction: column; gap: 0.75rem; margin: 0.5rem 0; }
.figures.learned-maps:empty { display: none; }
.figures.row { flex-direction: row; flex-wrap: wrap; align-items: flex-start; }
canvas { display: block; width: 100%; height: auto; max-width: calc(var(--figure-width, 100%) * var(--fit, 1)); }
canvas[hidden] { display: none; }
.explorer.slide .panel > :is(.intro, .status, .panel-body) { font-size: calc(1em * var(--text-fit, 1)); }
.figures.grid { display: grid; grid-template-columns: repeat(var(--columns, 2), auto); justify-content: start;
  align-items: start; }
.figures.row canvas { flex: 0 1 auto; width: min(100%, calc(var(--figure-width, 100%) * var(--fit, 1))); }
.steps li.current { background: var(--chip); border-radius: 6px; }
.steps > li { padding: 0.2rem 0.4rem; }
.steps ul { margin: 0.1rem 0 0.3rem; padding-left: 1.2rem; }
code { font-family: ui-monospace, "Cascadia Mono", Menlo, monospace; }
.stepper, .exports { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.5rem 0; }
.exports::before { content: "Save:"; align-self: center; color: var(--muted); font-size: 0.9em; }
progress { width: min(100%, 30rem); }
details.numbers { margin: 0.5rem 0; }
details.numbers table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.8em;
  font-variant-numeric: tabular-nums; }
details.numbers caption { text-align: left; font-weight: 600; padding: 0.2rem 0; }
details.numbers th, details.numbers td { border: 1px solid var(--line); padding: 0.1rem 0.35rem; text-align: right; }
.tables { overflow-x: auto; }
.notes { color: var(--warn); }
.loading { color: var(--muted); }
/* A slide's sizes follow the element's own width (container units; the host is the container in
   slide mode): in an iframe that is the frame's width, and in a deck that scales a fixed-size slide
   (Slidev) it is the slide's, so its text keeps its place on the slide at any window size. */
:host([data-slide]) { container-type: inline-size; }
.explorer.slide { max-width: none; min-height: 100vh; padding: 1.5cqw 2.5cqw; font-size: clamp(15px, 1.45cqw, 30px); }
.explorer.slide nav, .explorer.slide .exports, .explorer.slide details.numbers,
.explorer.slide .page-title { display: none; }
.explorer.slide .panel { border: 0; padding-top: 0; padding-bottom: 0; }
/* A long sentence's tokens scroll in two rows on a slide, so the text beside the figures fits. */
.explorer.slide .token-bar { max-height: 5.2em; }
/* The trained-heads note sits in a row with its button: no paragraph margins there on a slide. */
.explorer.slide .learned-note { margin: 0; }
/* The heads panel's lock note, and beside it the button that swaps its maps and its W_out product. */
.lock-row { display: flex; flex-wrap: wrap; align-items: center; column-gap: 1rem; }
.lock-row .lock-note { margin-right: auto; }
/* Alone in their column, the maps stand closer (each canvas has its own margin round its cells). */
.explorer.slide .panel.many-heads .figures.grid { gap: 0.5rem 0.25rem; }
/* Word order's text beside its figures on a slide: its paragraphs and verdicts a little tighter. */
.explorer.slide [data-panel="order"] p { margin: 0.45em 0; }
.explorer.slide .order-verdicts { margin: 0.45em 0; font-size: 0.9em; }
/* On a slide with live figures the steps list shows the current step's shapes only, so all five
   steps fit beside the figure (shapes-only slides, e.g. GPT-3, keep every shape). */
.explorer.slide .steps.compact > li:not(.current) ul { display: none; }
/* On a 16:9 slide, panels whose text is long put it beside their figures. */
@media (min-aspect-ratio: 4/3) and (min-width: 900px) {
  .explorer.slide .panel.two-column:not([hidden]) { display: grid;
    grid-template-columns: minmax(0, 1fr) minmax(0, 1.15fr); column-gap: 2.5cqw; align-items: start;
    grid-template-rows: repeat(7, auto) 1fr; }
  .explorer.slide .panel.two-column > * { grid-column: 1; }
  /* No figure (shapes only, a sweep not yet run): the text takes the whole width. */
  .explorer.slide .panel.two-column[data-figures="none"]:not([hidden]) { display: block; }
  /* The right column spans the flexible last row, so it does not stretch the rows of the text. */
  .explorer.slide .panel.two-column > .figures,
  .explorer.slide .panel.two-column > .side { grid-column: 2; grid-row: 1 / span 8; }
  /* Many heads' maps, or their W_out product, alone in the figure column (heads-panel.js): a wider one. */
  .explorer.slide .panel.two-column.many-heads:not([hidden]) {
    grid-template-columns: minmax(0, 1fr) minmax(0, 1.5fr); }
}
/* Slide mode for a panel designed as a slide (its entry's slide, panels/index.js): on a 16:9 slide its
   point in two lines of large type, its figures in the whole frame under it, and the rest (the
   intro, the numbers, the controls) behind Details, where it takes the figures' place. */
.point, .details-toggle { display: none; }
@media (min-aspect-ratio: 4/3) and (min-width: 900px) {
  .explorer.slide .panel.slide-first { position: relative; }
  /* A deck's slide has its own heading: a slide-first panel's numbered one is for screen readers only
     (another panel's text is fitted to the frame with its heading in it). */
  .explorer.slide .panel.slide-first > h2 { position: absolute; width: 1px; height: 1px; overflow: hidden;
    clip: rect(0 0 0 0); white-space: nowrap; }
  .explorer.slide .panel.slide-first > .point { display: block; margin: 0.2em 7.5em 0.35em 0;
    font-size: max(24px, 1.35em); line-height: 1.25; font-weight: 600; }
  .explorer.slide .panel.slide-first > .details-toggle { display: block; position: absolute; top: 0.2em; right: 0;
    z-index: 3; }
  .explorer.slide .panel.slide-first:not(.details-open) > :not(h2, .point, .details-toggle, .figures, .side,
    .panel-body:has(.slide-keep), .slide-keep, .status:is([data-kind=error], [data-kind=warn])),
  .explorer.slide .panel.slide-first:not(.details-open) :is(.side, .panel-body) > :not(.figures, .slide-keep),
  .explorer.slide .panel.slide-first:not(.details-open) .slide-keep > .help,
  .explorer.slide .panel.slide-first:not(.details-open) .learned .learned-note,
  .explorer.slide .panel.slide-first:not(.details-open) .learned[data-learned=true] > .controls,
  .explorer.slide .panel.slide-first:not(.details-open) .details-only,
  .explorer.slide .panel.slide-first.many-heads:not(.details-open) .token-bar { display: none; }
  .explorer.slide .panel.slide-first.details-open :is(.figures, .side > .slide-keep) { display: none; }
  /* The figure's own controls (class slide-keep: a switch of what it shows) stay, in one row. */
  .explorer.slide .panel.slide-first:not(.details-open) > .panel-body { display: flex; flex-wrap: wrap;
    gap: 0.5rem; margin-right: 7.5em; }
  .explorer.slide .panel.slide-first.details-open > .exports { display: flex; }
  /* The input slide's sentence: as wide as the row allows, two lines of it in view. */
  .explorer.slide .panel.slide-first:not(.details-open) .field.slide-keep { flex: 1 1 20em; }
  .explorer.slide .panel.slide-first:not(.details-open) .field.slide-keep textarea { width: 100%; font-size: 1.15em; }
}
/* Touch screens and phones: every control at least 44 px tall, checkboxes large enough to hit. */
@media (pointer: coarse), (max-width: 600px) {
  button, select, input:not([type=checkbox]), summary { min-height: 44px; }
  label.check { min-height: 44px; display: inline-flex; align-items: center; }
  input[type=checkbox] { width: 24px; height: 24px; }
  summary { display: flex; align-items: center; }
}
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
/* The cell tooltip of heatmaps (cell-tooltip.js), placed inside the figure area. */
.figures { position: relative; }
.cell-tip { position: absolute; z-index: 2; pointer-events: none; background: var(--bg); color: var(--fg);
  border: 1px solid var(--muted); border-radius: 6px; padding: 0.3rem 0.5rem; font-size: 0.85em; line-height: 1.35;
  box-shadow: 0 2px 8px rgb(0 0 0 / 0.3); font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.cell-box { position: absolute; z-index: 1; pointer-events: none; border: 2px solid var(--fg);
  box-shadow: 0 0 0 1px var(--bg), inset 0 0 0 1px var(--bg); }
`;
