// The cell tooltip of a heatmap canvas: the pointer over a cell, or the arrow keys once the canvas has
// focus (one tab stop per canvas), show what the cell says and outline it; both leave with the pointer,
// on blur and on Escape. What a cell says comes from the figure's heatmap description (heatmap.js).
import { el } from '../dom.js';
import { cellAt, cellBox, cellReading, placeTip, stepCell } from './cell-reading.js';

const states = new WeakMap(); // canvas -> { figure, cursor, shown, byPointer }
const overlays = new WeakMap(); // figure area -> { tip, box }
const KEY_HINT = '; focus it and use the arrow keys to read each cell';

/** Called after each draw of `figure` on `canvas`: from then on the canvas reads the figure's cells. */
export function attachCellTooltip(canvas, figure) {
  const readable = figure.heatmaps?.length > 0;
  let state = states.get(canvas);
  if (!state && !readable) return;
  if (!state) {
    state = { canvas, figure, cursor: null, shown: null };
    states.set(canvas, state);
    listen(state);
  }
  state.figure = figure;
  if (!readable) {
    canvas.removeAttribute('tabindex');
    hide(state);
    return;
  }
  canvas.tabIndex = 0;
  const label = canvas.getAttribute('aria-label') ?? '';
  if (!label.endsWith(KEY_HINT)) canvas.setAttribute('aria-label', label + KEY_HINT);
  overlayFor(canvas.parentElement);
  // A redraw (another highlighted row, new numbers) keeps the cursor and tip on their cell while it exists.
  if (!holds(figure, state.cursor)) state.cursor = null;
  if (!state.shown) return;
  if (holds(figure, state.shown)) show(state, state.shown);
  else hide(state);
}

const holds = (figure, cell) => {
  const map = cell && figure.heatmaps[cell.m];
  return Boolean(map) && cell.i < map.r && cell.j < map.c;
};

function overlayFor(area) {
  let overlay = overlays.get(area);
  if (!overlay || !overlay.tip.isConnected) {
    overlay = {
      tip: el('div', { class: 'cell-tip', role: 'status', hidden: true }),
      box: el('div', { class: 'cell-box', 'aria-hidden': 'true', hidden: true }),
    };
    area.append(overlay.tip, overlay.box);
    overlays.set(area, overlay);
  }
  return overlay;
}

function pointerCell(state, event) {
  const rect = state.canvas.getBoundingClientRect();
  if (!rect.width || !rect.height) return null;
  const { figure } = state;
  const x = ((event.clientX - rect.left) / rect.width) * figure.width;
  const y = ((event.clientY - rect.top) / rect.height) * figure.height;
  return cellAt(figure.heatmaps, x, y);
}

function listen(state) {
  const { canvas } = state;
  const readable = () => state.figure.heatmaps?.length > 0;
  canvas.addEventListener('pointermove', (event) => {
    if (!readable()) return;
    const cell = pointerCell(state, event);
    if (cell) show(state, cell);
    else hide(state);
  });
  // A finger leaves the screen after every tap: a tapped cell keeps its tip until the next tap or blur.
  canvas.addEventListener('pointerleave', (event) => event.pointerType !== 'touch' && hide(state));
  // A click or tap (which also focuses the canvas) puts the cursor on the cell under it.
  canvas.addEventListener('pointerdown', (event) => {
    state.byPointer = true;
    const cell = readable() && pointerCell(state, event);
    if (!cell) return;
    state.cursor = cell;
    if (event.pointerType === 'touch') show(state, cell);
  });
  canvas.addEventListener('focus', () => {
    if (!readable()) return;
    state.cursor ??= { m: 0, i: 0, j: 0 };
    show(state, state.cursor);
  });
  canvas.addEventListener('blur', () => {
    state.byPointer = false;
    hide(state);
  });
  canvas.addEventListener('keydown', (event) => {
    // After a click the arrows are left to the page (a deck moves on them); Tab brings the cursor.
    if (state.byPointer || !readable() || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape') {
      hide(state);
      return;
    }
    const cursor = state.cursor ?? { m: 0, i: 0, j: 0 };
    const next = stepCell(state.figure.heatmaps, cursor, event.key);
    if (!next) return;
    event.preventDefault();
    state.cursor = next;
    show(state, next);
  });
}

function hide(state) {
  state.shown = null;
  const overlay = overlays.get(state.canvas.parentElement);
  if (!overlay || overlay.owner !== state.canvas) return;
  overlay.tip.hidden = true;
  overlay.box.hidden = true;
}

function show(state, cell) {
  const { canvas, figure } = state;
  const area = canvas.parentElement;
  if (!area) return;
  const map = figure.heatmaps[cell.m];
  const overlay = overlayFor(area);
  overlay.owner = canvas;
  state.shown = cell;
  const { heading, lines } = cellReading(map, cell.i, cell.j);
  overlay.tip.replaceChildren(el('strong', { text: heading }), ...lines.map((line) => el('div', { text: line })));

  // Boxes in viewport pixels; the area's own pixels differ from them when a deck scales the page.
  const areaRect = area.getBoundingClientRect();
  const zoom = areaRect.width / (area.clientWidth || areaRect.width || 1) || 1;
  const canvasRect = canvas.getBoundingClientRect();
  const s = canvasRect.width / figure.width;
  const b = cellBox(map, cell.i, cell.j);
  const cellRect = {
    left: canvasRect.left + b.x * s,
    top: canvasRect.top + b.y * s,
    right: canvasRect.left + (b.x + b.w) * s,
    bottom: canvasRect.top + (b.y + b.h) * s,
  };
  const view = document.documentElement;
  const frame = {
    left: Math.max(0, areaRect.left),
    right: Math.min(view.clientWidth || innerWidth, areaRect.right),
    top: 0,
    bottom: view.clientHeight || innerHeight,
  };
  const local = (x, y) => ({ left: (x - areaRect.left) / zoom, top: (y - areaRect.top) / zoom });

  const at = local(cellRect.left, cellRect.top);
  Object.assign(overlay.box.style, {
    left: `${at.left}px`,
    top: `${at.top}px`,
    width: `${(cellRect.right - cellRect.left) / zoom}px`,
    height: `${(cellRect.bottom - cellRect.top) / zoom}px`,
  });
  overlay.box.hidden = false;

  // At most 26 em wide (slides scale the text), never wider than the frame.
  const em = parseFloat(getComputedStyle(overlay.tip).fontSize) || 14;
  overlay.tip.style.maxWidth = `${Math.max(120, Math.min(26 * em, (frame.right - frame.left) / zoom - 8))}px`;
  overlay.tip.style.left = '0px';
  overlay.tip.style.top = '0px';
  overlay.tip.hidden = false;
  const tipRect = overlay.tip.getBoundingClientRect();
  const place = placeTip(cellRect, { width: tipRect.width, height: tipRect.height }, frame);
  const spot = local(place.left, place.top);
  overlay.tip.style.left = `${spot.left}px`;
  overlay.tip.style.top = `${spot.top}px`;
}
