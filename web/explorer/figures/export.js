// Saves a panel's figure as PNG or SVG and its numbers as JSON, as downloads made in the page
// (no server, works from file://).
import { FONT, LIGHT } from './figure.js';

function save(filename, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// XML 1.0 forbids most control characters even when escaped, and lone surrogates cannot be
// encoded: a sentence such as "a\u0001b" would make the file not well-formed. Each becomes U+FFFD.
const NOT_XML = new RegExp(
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]' +
    '|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]',
  'g',
);

/** The figure as a well-formed SVG document, in `palette`'s colours (the page's theme). */
export function svgText(figure, palette = LIGHT) {
  return figure.toSVG(palette).replace(NOT_XML, '\uFFFD');
}

export function exportSVG(figure, name, palette = LIGHT) {
  save(`${name}.svg`, new Blob([svgText(figure, palette)], { type: 'image/svg+xml' }));
}

export function exportPNG(figure, name, palette = LIGHT, scale = 2) {
  const canvas = document.createElement('canvas');
  figure.drawTo(canvas, palette, scale);
  const ctx = canvas.getContext('2d');
  ctx.globalCompositeOperation = 'destination-over';
  ctx.fillStyle = palette.bg;
  ctx.fillRect(0, 0, figure.width, figure.height);
  canvas.toBlob((blob) => save(`${name}.png`, blob), 'image/png');
}

/** The 16:9 slide image: its size, margins, the title's size and the gap between figures (px). */
export const SLIDE_PNG = Object.freeze({ width: 1920, height: 1080, margin: 48, titleSize: 48, gap: 32 });

/**
 * Where figures ({ width, height }) stand on a 16:9 slide under a title: in rows (in order, as even
 * as can be), all at one scale, the largest that fits the slide (at most 4). Returns the scale and
 * each figure's box { x, y, w, h } in slide pixels.
 */
export function slideLayout(figures, { width, height, margin, titleSize, gap } = SLIDE_PNG) {
  const top = margin + Math.ceil(titleSize * 1.6);
  const room = { w: width - 2 * margin, h: height - top - margin };
  let best = null;
  for (let rows = 1; rows <= Math.max(1, figures.length); rows += 1) {
    const per = Math.ceil(figures.length / rows);
    const groups = [];
    for (let i = 0; i < figures.length; i += per) groups.push(figures.slice(i, i + per));
    const heights = groups.map((g) => Math.max(...g.map((f) => f.height)));
    const scaleW = Math.min(...groups.map((g) => (room.w - gap * (g.length - 1)) / g.reduce((a, f) => a + f.width, 0)));
    const scaleH = (room.h - gap * (groups.length - 1)) / heights.reduce((a, b) => a + b, 0);
    const scale = Math.min(4, scaleW, scaleH);
    if (!best || scale > best.scale) best = { scale, groups, heights };
  }
  const { scale, groups, heights } = best;
  const used = heights.reduce((a, h) => a + h * scale, 0) + gap * (groups.length - 1);
  let y = top + Math.max(0, (room.h - used) / 2);
  const boxes = [];
  groups.forEach((g, r) => {
    const rowWidth = g.reduce((a, f) => a + f.width * scale, 0) + gap * (g.length - 1);
    let x = margin + Math.max(0, (room.w - rowWidth) / 2);
    for (const f of g) {
      boxes.push({
        x: Math.round(x),
        y: Math.round(y),
        w: Math.round(f.width * scale),
        h: Math.round(f.height * scale),
      });
      x += f.width * scale + gap;
    }
    y += heights[r] * scale + gap;
  });
  return { scale, top, boxes };
}

/**
 * The figures laid out on a 1920x1080 canvas under `title` (slideLayout), in `palette`'s colours.
 * Returns the canvas and what is where (boxes, the title's size, the smallest and median text size
 * of the figures as drawn), which the download button keeps for checks.
 */
export function slideCanvas(figures, title, palette = LIGHT) {
  const { width, height, margin, titleSize } = SLIDE_PNG;
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = palette.bg;
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = palette.fg;
  ctx.font = `600 ${titleSize}px ${FONT}`;
  ctx.textBaseline = 'middle';
  ctx.fillText(title, margin, margin + titleSize / 2, width - 2 * margin);
  const { scale, boxes } = slideLayout(figures);
  const sizes = [];
  figures.forEach((figure, k) => {
    const one = document.createElement('canvas');
    figure.drawTo(one, palette, scale);
    ctx.drawImage(one, boxes[k].x, boxes[k].y, boxes[k].w, boxes[k].h);
    for (const it of figure.items) if (it.kind === 'text') sizes.push(it.size * scale);
  });
  sizes.sort((a, b) => a - b);
  const text = { min: sizes[0] ?? null, median: sizes[Math.floor(sizes.length / 2)] ?? null };
  return { canvas, layout: { width, height, titleSize, scale, boxes, text } };
}

/** Saves figures as one 16:9 PNG (1920x1080) with the panel's title; returns the layout drawn. */
export function exportSlidePNG(figures, title, name, palette = LIGHT) {
  const { canvas, layout } = slideCanvas(figures, title, palette);
  canvas.toBlob((blob) => save(`${name}-16x9.png`, blob), 'image/png');
  return layout;
}

// Typed arrays become plain arrays; non-finite numbers (masked scores) become null, as JSON requires.
export function toJSONText(data) {
  return JSON.stringify(
    data,
    (key, value) => {
      if (ArrayBuffer.isView(value)) return Array.from(value, (v) => (Number.isFinite(v) ? v : null));
      if (typeof value === 'number' && !Number.isFinite(value)) return null;
      return value;
    },
    1,
  );
}

export function exportJSON(data, name) {
  save(`${name}.json`, new Blob([toJSONText(data)], { type: 'application/json' }));
}
