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

export function exportSVG(figure, name) {
  save(`${name}.svg`, new Blob([figure.toSVG(LIGHT)], { type: 'image/svg+xml' }));
}

export function exportPNG(figure, name, scale = 2) {
  const canvas = document.createElement('canvas');
  figure.drawTo(canvas, LIGHT, scale);
  const ctx = canvas.getContext('2d');
  ctx.globalCompositeOperation = 'destination-over';
  ctx.fillStyle = LIGHT.bg;
  ctx.fillRect(0, 0, figure.width, figure.height);
  canvas.toBlob((blob) => save(`${name}.png`, blob), 'image/png');
}

// Typed arrays become plain arrays; non-finite numbers (masked scores) become null, as JSON requires.
export function toJSONText(data) {
  return JSON.stringify(data, (key, value) => {
    if (ArrayBuffer.isView(value)) return Array.from(value, (v) => (Number.isFinite(v) ? v : null));
    if (typeof value === 'number' && !Number.isFinite(value)) return null;
    return value;
  }, 1);
}

export function exportJSON(data, name) {
  save(`${name}.json`, new Blob([toJSONText(data)], { type: 'application/json' }));
}
