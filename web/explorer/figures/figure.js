// A figure is a list of drawing primitives in a logical coordinate system. The same list is
// drawn on the on-screen canvas and written as SVG for export, so the two always agree.
// Colours are CSS colours or the theme names 'fg', 'muted', 'bg', 'grid', 'accent', 'accent2', 'masked'
// and head0..head7 (head-colours.js).
// 'masked' (heatmap cells a mask hides) is one mid grey in both themes, with contrast >= 3:1 against
// viridis' darkest colour (low attention) and against the diverging scale's white (a zero score); the
// light grid's grey would be as light as a zero score, the dark one as dark as low attention.
import { headPalette } from './head-colours.js';

const MASKED = '#85858f';

export const LIGHT = Object.freeze({
  fg: '#1b1b1f',
  muted: '#5c5c66',
  bg: '#ffffff',
  grid: '#d0d0d8',
  accent: '#0b63c4',
  accent2: '#c24e00',
  masked: MASKED,
  ...headPalette('light'),
});
export const DARK = Object.freeze({
  fg: '#ececf1',
  muted: '#a4a4b0',
  bg: '#16161a',
  grid: '#3a3a44',
  accent: '#6cb4ff',
  accent2: '#ff9d57',
  masked: MASKED,
  ...headPalette('dark'),
});

export const FONT = 'system-ui, -apple-system, "Segoe UI", sans-serif';
/**
 * The slide font size (px) at which a figure's designed sizes are drawn as designed; on a slide
 * they grow by the slide's size over this. Figures are designed with 10 px values and 12 px labels:
 * on a 1280x720 slide (18.6 px prose) this draws them at about 14 and 17 px.
 */
export const SLIDE_TEXT_BASE = 13;

const escapeXml = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]);

export class Figure {
  constructor(width, height, title = '') {
    this.width = Math.ceil(width);
    this.height = Math.ceil(height);
    this.title = title;
    this.items = [];
    // What the heatmaps in it show, cell by cell (heatmap.js): read by the cell tooltip.
    this.heatmaps = [];
  }

  rect(x, y, w, h, fill, stroke = null, strokeWidth = 1) {
    this.items.push({ kind: 'rect', x, y, w, h, fill, stroke, strokeWidth });
    return this;
  }
  line(x1, y1, x2, y2, stroke = 'fg', width = 1, dash = null) {
    this.items.push({ kind: 'line', x1, y1, x2, y2, stroke, width, dash });
    return this;
  }
  /** dash: a canvas line-dash pattern ([on, off] px), or null for a solid line. */
  polyline(points, stroke = 'fg', width = 1.5, dash = null) {
    this.items.push({ kind: 'polyline', points, stroke, width, dash });
    return this;
  }
  /** A filled closed shape; opacity lets what is under it show through (a min-max band). */
  polygon(points, fill, opacity = 1) {
    this.items.push({ kind: 'polygon', points, fill, opacity });
    return this;
  }
  /** A rows x cols block of cells, colours given as '#rrggbb' strings (row-major). */
  grid(x, y, cellW, cellH, rows, cols, colours) {
    this.items.push({ kind: 'grid', x, y, cellW, cellH, rows, cols, colours });
    return this;
  }
  circle(x, y, r, fill) {
    this.items.push({ kind: 'circle', x, y, r, fill });
    return this;
  }
  /** anchor: 'start' | 'middle' | 'end'; rotate: degrees around (x, y). */
  text(x, y, text, { size = 12, anchor = 'start', fill = 'fg', weight = 'normal', rotate = 0 } = {}) {
    this.items.push({ kind: 'text', x, y, text: String(text), size, anchor, fill, weight, rotate });
    return this;
  }

  /** Draws on a canvas at the device pixel ratio; CSS size comes from the figure's own size. */
  drawTo(canvas, palette = LIGHT, scale = globalThis.devicePixelRatio || 1) {
    // Resizing a canvas reallocates its pixels: keep the size when it is unchanged.
    const w = Math.round(this.width * scale);
    const h = Math.round(this.height * scale);
    if (canvas.width !== w) canvas.width = w;
    if (canvas.height !== h) canvas.height = h;
    canvas.style.aspectRatio = `${this.width} / ${this.height}`;
    // The figure's own width, times the panel's --fit (below 1 when a slide shrinks its figures).
    canvas.style.setProperty('--figure-width', `${this.width}px`);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    const colour = (c) => palette[c] ?? c;
    let lastFont = null;
    for (const it of this.items) {
      if (it.kind === 'grid') {
        drawGrid(ctx, it, colour, palette);
      } else if (it.kind === 'rect') {
        if (it.fill) {
          ctx.fillStyle = colour(it.fill);
          ctx.fillRect(it.x, it.y, it.w, it.h);
        }
        if (it.stroke) {
          ctx.strokeStyle = colour(it.stroke);
          ctx.lineWidth = it.strokeWidth;
          ctx.strokeRect(it.x, it.y, it.w, it.h);
        }
      } else if (it.kind === 'line' || it.kind === 'polyline') {
        const pts =
          it.kind === 'line'
            ? [
                [it.x1, it.y1],
                [it.x2, it.y2],
              ]
            : it.points;
        if (pts.length < 2) continue;
        ctx.strokeStyle = colour(it.stroke);
        ctx.lineWidth = it.width;
        ctx.setLineDash(it.dash ?? []);
        ctx.beginPath();
        pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
        ctx.stroke();
        ctx.setLineDash([]);
      } else if (it.kind === 'polygon') {
        if (it.points.length < 3) continue;
        ctx.fillStyle = colour(it.fill);
        ctx.globalAlpha = it.opacity;
        ctx.beginPath();
        it.points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
        ctx.closePath();
        ctx.fill();
        ctx.globalAlpha = 1;
      } else if (it.kind === 'circle') {
        ctx.fillStyle = colour(it.fill);
        ctx.beginPath();
        ctx.arc(it.x, it.y, it.r, 0, 2 * Math.PI);
        ctx.fill();
      } else if (it.kind === 'text') {
        ctx.fillStyle = colour(it.fill);
        // ctx.font reads back normalised ("normal" dropped), so compare with what was last set:
        // setting a font parses it, and labels come by the hundred.
        const font = `${it.weight} ${it.size}px ${FONT}`;
        if (font !== lastFont) {
          ctx.font = font;
          lastFont = font;
        }
        ctx.textAlign = it.anchor === 'middle' ? 'center' : it.anchor === 'end' ? 'right' : 'left';
        ctx.textBaseline = 'middle';
        if (it.rotate) {
          ctx.save();
          ctx.translate(it.x, it.y);
          ctx.rotate((it.rotate * Math.PI) / 180);
          ctx.fillText(it.text, 0, 0);
          ctx.restore();
        } else ctx.fillText(it.text, it.x, it.y);
      }
    }
  }

  /** A standalone SVG document; user text is escaped, never interpreted. */
  toSVG(palette = LIGHT) {
    const colour = (c) => escapeXml(palette[c] ?? c);
    const n = (v) => Math.round(v * 100) / 100;
    const body = this.items.map((it) => {
      if (it.kind === 'grid') {
        const cells = [];
        for (let i = 0; i < it.rows; i += 1) {
          for (let j = 0; j < it.cols; j += 1)
            cells.push(
              `<rect x="${n(it.x + j * it.cellW)}" y="${n(it.y + i * it.cellH)}" width="${n(it.cellW)}" ` +
                `height="${n(it.cellH)}" fill="${colour(it.colours[i * it.cols + j])}"/>`,
            );
        }
        return cells.join('\n');
      }
      if (it.kind === 'rect') {
        const fill = it.fill ? colour(it.fill) : 'none';
        const stroke = it.stroke ? ` stroke="${colour(it.stroke)}" stroke-width="${it.strokeWidth}"` : '';
        return `<rect x="${n(it.x)}" y="${n(it.y)}" width="${n(it.w)}" height="${n(it.h)}" fill="${fill}"${stroke}/>`;
      }
      if (it.kind === 'line') {
        const dash = it.dash ? ` stroke-dasharray="${it.dash.join(' ')}"` : '';
        return (
          `<line x1="${n(it.x1)}" y1="${n(it.y1)}" x2="${n(it.x2)}" y2="${n(it.y2)}" ` +
          `stroke="${colour(it.stroke)}" stroke-width="${it.width}"${dash}/>`
        );
      }
      if (it.kind === 'polyline') {
        const dash = it.dash ? ` stroke-dasharray="${it.dash.join(' ')}"` : '';
        return (
          `<polyline points="${it.points.map(([x, y]) => `${n(x)},${n(y)}`).join(' ')}" fill="none" ` +
          `stroke="${colour(it.stroke)}" stroke-width="${it.width}"${dash}/>`
        );
      }
      if (it.kind === 'polygon') {
        return (
          `<polygon points="${it.points.map(([x, y]) => `${n(x)},${n(y)}`).join(' ')}" ` +
          `fill="${colour(it.fill)}" fill-opacity="${it.opacity}"/>`
        );
      }
      if (it.kind === 'circle')
        return `<circle cx="${n(it.x)}" cy="${n(it.y)}" r="${it.r}" fill="${colour(it.fill)}"/>`;
      const rotate = it.rotate ? ` transform="rotate(${it.rotate} ${n(it.x)} ${n(it.y)})"` : '';
      return (
        `<text x="${n(it.x)}" y="${n(it.y)}" font-size="${it.size}" font-weight="${it.weight}" ` +
        `text-anchor="${it.anchor}" dominant-baseline="central" ` +
        `fill="${colour(it.fill)}"${rotate}>${escapeXml(it.text)}</text>`
      );
    });
    return [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${this.width}" height="${this.height}" viewBox="0 0 ` +
        `${this.width} ${this.height}" font-family="${escapeXml(FONT)}">`,
      this.title ? `<title>${escapeXml(this.title)}</title>` : '',
      `<rect width="100%" height="100%" fill="${colour('bg')}"/>`,
      ...body,
      '</svg>',
    ].join('\n');
  }
}

// One pixel per cell on a small canvas, scaled up without smoothing: thousands of cells cost one
// drawImage instead of thousands of fillRects. The canvas only grows (its top-left corner is drawn
// from): resized for every grid of another size, each resize cost its next call a new allocation.
let scratch = null;
let scratchContext = null;
// The pixels of a colours array already drawn in a palette (a figure redrawn with the same cells).
const gridImages = new WeakMap();
function drawGrid(ctx, it, colour, palette) {
  const cached = gridImages.get(it.colours);
  const image = cached?.palette === palette && cached.image.width === it.cols ? cached.image : gridImage(it, colour);
  gridImages.set(it.colours, { palette, image });
  scratch ??= document.createElement('canvas');
  if (scratch.width < it.cols) scratch.width = it.cols;
  if (scratch.height < it.rows) scratch.height = it.rows;
  scratchContext ??= scratch.getContext('2d');
  scratchContext.putImageData(image, 0, 0);
  const small = scratch;
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(small, 0, 0, it.cols, it.rows, it.x, it.y, it.cols * it.cellW, it.rows * it.cellH);
  ctx.imageSmoothingEnabled = true;
}

function gridImage(it, colour) {
  const image = new ImageData(it.cols, it.rows);
  const cache = new Map();
  for (let k = 0; k < it.rows * it.cols; k += 1) {
    const c = colour(it.colours[k]);
    let rgb = cache.get(c);
    if (!rgb) {
      rgb = [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
      cache.set(c, rgb);
    }
    image.data[4 * k] = rgb[0];
    image.data[4 * k + 1] = rgb[1];
    image.data[4 * k + 2] = rgb[2];
    image.data[4 * k + 3] = 255;
  }
  return image;
}

/** Stacks figures vertically into one (for a panel's PNG/SVG export). */
export function stackFigures(figures, title, gap = 16) {
  return arrangeFigures(
    figures.map((f) => [f]),
    title,
    gap,
  );
}

/**
 * Figures in rows into one: each row left to right, rows top to bottom, `gap` apart (a panel's
 * PNG/SVG export laid out as its figures stand on screen).
 */
export function arrangeFigures(rows, title, gap = 16) {
  const rowWidth = (row) => row.reduce((w, f) => w + f.width, 0) + gap * (row.length - 1);
  const rowHeight = (row) => Math.max(...row.map((f) => f.height));
  const width = Math.max(1, ...rows.map(rowWidth));
  const height = rows.reduce((h, row) => h + rowHeight(row) + gap, 0);
  const out = new Figure(width, height, title);
  let y = 0;
  for (const row of rows) {
    let x = 0;
    for (const f of row) {
      for (const it of f.items) out.items.push(movedItem(it, x, y));
      for (const map of f.heatmaps) out.heatmaps.push({ ...map, x: map.x + x, y: map.y + y });
      x += f.width + gap;
    }
    y += rowHeight(row) + gap;
  }
  return out;
}

/** A copy of a drawing item moved by (dx, dy). */
export function movedItem(item, dx, dy) {
  const m = { ...item };
  if ('x' in m) m.x += dx;
  if ('y' in m) m.y += dy;
  if ('x1' in m) {
    m.x1 += dx;
    m.x2 += dx;
    m.y1 += dy;
    m.y2 += dy;
  }
  if (m.points) m.points = m.points.map(([px, py]) => [px + dx, py + dy]);
  return m;
}
