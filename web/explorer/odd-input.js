// What is wrong with an input the explorer cannot draw (heads that do not divide the width, lines
// of different lengths, an empty sentence, too many tokens), in words, with the valid choices as
// options one click applies. The element keeps the last good figures on screen beside it.
import { DEFAULT_TEXT } from './lecture/presets.js';
import { tokenize } from './lecture/tokenizer.js';
import { el } from './dom.js';

/** The divisors of n in increasing order, at most `limit` of them. */
export function divisorsOf(n, limit = 12) {
  const small = [];
  for (let d = 1; d * d <= n && small.length < 1000; d += 1) if (n % d === 0) small.push(d, n / d);
  return [...new Set(small)].sort((a, b) => a - b).slice(0, limit);
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * @param o the options asked for; c the computation's result for them
 * @returns {{ text: string, choices: { label: string, options: object }[] } | null} null when c can be drawn
 */
export function oddInput(o, c) {
  if (c.status === 'sentence') {
    const lines = String(o.sentence)
      .split(/\r\n|\r|\n/)
      .filter((line) => tokenize(line).count > 0);
    const choices = [];
    if (lines.length > 1)
      choices.push({ label: 'Join the lines into one sentence', options: { sentence: lines.join(' ') } });
    const { tokens, count } = tokenize(lines.join(' '), o.maxTokens);
    if (count > o.maxTokens) {
      choices.push({ label: `Keep the first ${o.maxTokens} tokens`, options: { sentence: tokens.join(' ') } });
    }
    choices.push({ label: "Use the lecture's sentence", options: { sentence: DEFAULT_TEXT } });
    return { text: c.message, choices };
  }
  if (c.status !== 'invalid') return null;
  const width = o.dModel;
  if (!Number.isInteger(width) || width < 1) {
    return { text: `The width must be a whole number of at least 1 (it is ${String(width)}).`, choices: [] };
  }
  const heads = divisorsOf(width);
  const divides = Number.isInteger(o.heads) && o.heads >= 1 && width % o.heads === 0;
  const text = divides
    ? `This configuration cannot be drawn: ${c.message}.`
    : `Width ${width} cannot be split into ${String(o.heads)} heads: heads x head_dim must equal the width. ` +
      `Heads that divide ${width}:`;
  return { text, choices: heads.map((h) => ({ label: plural(h, 'head'), options: { heads: h } })) };
}

// Its look lives here, with it (the explorer's stylesheet belongs to the panels' layout). Compact,
// as it joins a slide's text: the words, the buttons after them, then a short note.
const BOX_STYLE = 'border-left: 4px solid var(--error); padding: 0 0 0 0.75rem; margin: 0.4rem 0; color: var(--fg)';
const CHOICES_STYLE = 'display: inline-flex; flex-wrap: wrap; gap: 0.4rem; margin-left: 0.4rem; vertical-align: middle';
const BUTTON_STYLE = 'min-height: 0; padding: 0.1rem 0.6rem';
const KEPT_STYLE = 'display: block; margin-top: 0.2rem; color: var(--muted); font-size: 0.85em';

/**
 * The box that says it: the problem (unless `words` is false: the input panel says it in its
 * rule), a button per choice after it, and what is still shown.
 */
export function oddInputBox(problem, { shown, choose, words = true }) {
  const buttons = problem.choices.map((c) =>
    el('button', { type: 'button', text: c.label, style: BUTTON_STYLE, onclick: () => choose(c.options) }),
  );
  return el(
    'div',
    { class: 'odd-input', role: 'alert', style: BOX_STYLE },
    el(
      'p',
      { style: 'margin: 0' },
      words ? problem.text : null,
      buttons.length
        ? el('span', { role: 'group', 'aria-label': 'Valid choices', style: CHOICES_STYLE }, buttons)
        : null,
      shown ? el('span', { class: 'kept', text: shown, style: KEPT_STYLE }) : null,
    ),
  );
}
