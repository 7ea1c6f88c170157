// Saves a panel's figure as PNG or SVG and its numbers as JSON, as downloads made in the page
// (no server, works from file://).
import { LIGHT } from './figure.js';

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
