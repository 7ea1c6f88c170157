// Tiny DOM helpers. User text only ever goes in through textContent, never as markup.

/** el('p', { class: 'note', text: 'hi' }, child, ...) */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof node[key] !== 'function' && !key.startsWith('aria') && !key.startsWith('data'))
      node[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

export const formatNumber = (v) => {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e4 ? v.toPrecision(3) : v.toExponential(2);
};

export const shapeText = (shape) => `(${shape.join(', ')})`;
