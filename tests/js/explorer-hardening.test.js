// Two small explorer fixes of the hardening pass (each test failed before its fix): the SVG
// export stays well-formed XML with control characters in the text, and malformed JSON that
// names headwise gets an error reply.
import { expect, test } from 'vitest';
import { Figure } from '../../web/explorer/figures/figure.js';
import { svgText } from '../../web/explorer/figures/export.js';
import { answer } from '../../web/explorer/slide-messages.js';

// Characters XML 1.0 allows: tab, newline, carriage return, U+0020..U+D7FF, U+E000..U+FFFD, and
// astral characters as whole surrogate pairs.
const wellFormedChars = (text) => /^(?:[\t\n\r\u0020-\uD7FF\uE000-\uFFFD]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/.test(text);

test('the SVG of a sentence with control characters (sentence=a%01b) is well-formed', () => {
  const figure = new Figure(100, 40, 'a\u0001b');
  figure.text(10, 10, 'a\u0001b\u001f\uD800 <&> 🙂');
  const svg = svgText(figure);
  expect(wellFormedChars(svg)).toBe(true);
  expect(svg).toContain('a\uFFFDb\uFFFD\uFFFD &lt;&amp;&gt; 🙂');
  expect(wellFormedChars(figure.toSVG())).toBe(false); // what the export used to save
});

test('a malformed JSON string that names headwise gets an error reply', () => {
  const element = {};
  const reply = answer(element, '{"headwise": 1, "method": "getState"');
  expect(reply).toMatchObject({ headwise: 1, id: null, ok: false });
  expect(reply.error).toMatch(/^malformed JSON: /);
  expect(answer(element, '{"other": 1')).toBe(null); // not ours: still ignored
});
