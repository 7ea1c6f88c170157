// The steps panel in Chromium, read from what it draws: the shape labels of the lecture's batch,
// the attend step's maps (every head's scores before the softmax, checked cell by cell against an
// independent double-precision reference from the module's own weights, and after it), and the
// out-projection laid out as the product concat @ W_out = output, with a crop of GPT-2's W_out
// that shows its weights.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumAndWeb } from './web-session.js';
import { ARTIFACTS, openExplorer } from './page-checks.js';
import { loadHeadwise } from '../../web/headwise.js';
import { embedTokens } from '../../web/explorer/lecture/token-embeddings.js';
import { diverging, viridis } from '../../web/explorer/figures/colour-scale.js';
import { LIGHT } from '../../web/explorer/figures/figure.js';
import { referenceMha } from '../js/reference.js';

// The lecture's sentence in two halves, the page's default batch.
const LECTURE = [
  ['The', 'dog', 'chased', 'the', 'ball', ','],
  ['but', 'it', 'could', 'not', 'catch', 'it'],
];

const web = chromiumAndWeb();
let hw;

before(async () => {
  hw = await loadHeadwise();
});

/** The module's own forward pass in double precision: seeded weights, token vectors, plain loops. */
function reference({ dModel, heads, seed = 1, causal = true }, sentences) {
  const config = { batch: sentences.length, tokens: sentences[0].length, dModel, heads, causal, seed };
  const layer = hw.createAttention(config);
  const weights = layer.getWeights();
  layer.dispose();
  const x = embedTokens(hw, sentences.flat(), dModel);
  return { ...referenceMha({ ...config, headDim: dModel / heads }, weights, x), weights };
}

const shadow = (page, fn, arg) => page.locator('headwise-explorer').evaluate(fn, arg);

async function goToStep(page, step) {
  await shadow(page, (host, s) => host.goToStep(s), step);
  await page.waitForFunction(
    (s) =>
      document
        .querySelector('headwise-explorer')
        .shadowRoot.querySelector('#panel-steps .status')
        .textContent.startsWith(`Step ${s + 1} of 5`),
    step,
  );
}

/** Every shape label of the steps list, in order (all steps, the current one or not). */
const shapeLabels = (page) =>
  shadow(page, (host) =>
    [...host.shadowRoot.querySelectorAll('#panel-steps .steps code.shape')].map((c) => c.textContent),
  );

const lectureShapes = (B, T, H, hd) => {
  const s = (...d) => `(${d.join(', ')})`;
  const D = H * hd;
  return [s(B, T, D), s(B, T, H, hd), s(B, H, T, hd), s(B, H, T, T), s(B, H, T, T), s(B, H, T, hd)].concat([
    s(B, T, H, hd),
    s(B, T, D),
    s(B, T, D),
  ]);
};

/** The shown canvases of the steps panel: aria-label, box on the page, and pixels (0xrrggbb, alpha). */
async function stepCanvases(page, selector = '#panel-steps .figures > canvas:not([hidden])') {
  const canvases = await shadow(
    page,
    (host, selector) =>
      [...host.shadowRoot.querySelectorAll(selector)].map((canvas) => {
        const box = canvas.getBoundingClientRect();
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        let binary = ''; // base64: a million numbers as JSON would take seconds to cross over
        for (let k = 0; k < data.length; k += 0x8000) binary += String.fromCharCode(...data.subarray(k, k + 0x8000));
        return {
          label: canvas.getAttribute('aria-label'),
          box: { x: box.x, y: box.y, w: box.width, h: box.height },
          width: canvas.width,
          height: canvas.height,
          data: btoa(binary),
        };
      }),
    selector,
  );
  return canvases.map((c) => ({ ...c, data: new Uint8Array(Buffer.from(c.data, 'base64')) }));
}

const rgbOf = (hex) => parseInt(hex.slice(1, 7), 16);
const pixelOf =
  ({ width, data }) =>
  (x, y) => {
    const k = 4 * (y * width + x);
    return data[k + 3] === 255 ? (data[k] << 16) | (data[k + 1] << 8) | data[k + 2] : -1;
  };
const PUOR = new Set(Array.from({ length: 257 }, (_, k) => rgbOf(diverging(k / 128 - 1, 1))));
const VIRIDIS = new Set(Array.from({ length: 256 }, (_, k) => rgbOf(viridis(k / 255))));
const GREY = rgbOf(LIGHT.masked);

/** The bounding box of the opaque pixels whose colour is in `colours`. */
function boxOf(image, colours) {
  const pixel = pixelOf(image);
  let [x0, y0, x1, y1] = [image.width, image.height, -1, -1];
  for (let y = 0; y < image.height; y += 1) {
    for (let x = 0; x < image.width; x += 1) {
      if (!colours.has(pixel(x, y))) continue;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
  }
  return { x: x0, y: y0, w: x1 + 1 - x0, h: y1 + 1 - y0 };
}

/** Boxes of the connected regions (4-neighbours) of opaque pixels in `colours`, larger than minArea. */
function regionsOf(image, colours, minArea = 200) {
  const pixel = pixelOf(image);
  const { width, height } = image;
  const seen = new Uint8Array(width * height);
  const regions = [];
  for (let start = 0; start < width * height; start += 1) {
    if (seen[start] || !colours.has(pixel(start % width, Math.floor(start / width)))) continue;
    const stack = [start];
    seen[start] = 1;
    let [x0, y0, x1, y1, n] = [width, height, -1, -1, 0];
    while (stack.length) {
      const k = stack.pop();
      const x = k % width;
      const y = Math.floor(k / width);
      [x0, y0, x1, y1, n] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y), n + 1];
      for (const [nx, ny] of [
        [x + 1, y],
        [x - 1, y],
        [x, y + 1],
        [x, y - 1],
      ]) {
        const m = ny * width + nx;
        if (nx < 0 || ny < 0 || nx >= width || ny >= height || seen[m]) continue;
        if (!colours.has(pixel(nx, ny))) continue;
        seen[m] = 1;
        stack.push(m);
      }
    }
    if (n >= minArea) regions.push({ x: x0, y: y0, w: x1 + 1 - x0, h: y1 + 1 - y0, pixels: n });
  }
  return regions.sort((a, b) => a.x - b.x || a.y - b.y);
}

/** The table the panel offers for a map, by its caption: rows of cell texts. */
async function tableCells(page, caption) {
  // A slide hides the tables' disclosure; opening it builds them, as a click would.
  await shadow(page, (host) => {
    host.shadowRoot.querySelector('#panel-steps details.numbers').open = true;
  });
  await page.waitForFunction(
    (want) =>
      [...document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('#panel-steps caption')].some(
        (c) => c.textContent === want,
      ),
    caption,
  );
  return shadow(
    page,
    (host, want) => {
      const table = [...host.shadowRoot.querySelectorAll('#panel-steps table')].find(
        (t) => t.caption.textContent === want,
      );
      return table ? [...table.tBodies[0].rows].map((tr) => [...tr.cells].slice(1).map((td) => td.textContent)) : null;
    },
    caption,
  );
}

/**
 * The map as drawn against the reference, cell by cell: the pixel near each cell's top-left corner
 * (clear of any printed value) has the colour of the reference value (either neighbouring level of
 * the scale is accepted), or the grey of a masked cell exactly where j > i.
 */
function assertMapDrawn(image, T, colourOf, masked, name) {
  const colours = new Set([...PUOR, ...VIRIDIS, GREY]);
  const box = boxOf(image, colours);
  const [cw, ch] = [box.w / T, box.h / T];
  assert.ok(cw >= 4 && ch >= 4, `${name}: cells of ${cw} x ${ch} px`);
  const pixel = pixelOf(image);
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      const got = pixel(Math.floor(box.x + (j + 0.2) * cw), Math.floor(box.y + (i + 0.2) * ch));
      const want = masked(i, j) ? [GREY] : colourOf(i, j);
      assert.ok(
        want.includes(got),
        `${name} cell ${i}, ${j}: drawn #${got.toString(16)}, want ${want.map((c) => c.toString(16))}`,
      );
    }
  }
}

describe('the steps panel', () => {
  test("shape labels: the lecture's (2, 6, 6) -> (2, 6, 2, 3) -> (2, 2, 6, 3) -> (2, 2, 6, 6), any batch", async () => {
    const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html?panel=steps`);
    try {
      assert.deepEqual(await shapeLabels(page), lectureShapes(2, 6, 2, 3));
      // Three lines of five tokens, width 8 in 4 heads: the shapes follow B, T, heads and head_dim.
      const sentence = 'a b c d e\nf g h i j\nk l m n o';
      await shadow(page, (host, s) => host.setConfig({ sentence: s, width: 8, heads: 4 }), sentence);
      await page.waitForFunction(() =>
        [...document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('#panel-steps code.shape')].some(
          (c) => c.textContent === '(3, 4, 5, 5)',
        ),
      );
      assert.deepEqual(await shapeLabels(page), lectureShapes(3, 5, 4, 2));
      // One line is a batch of one; lines of different lengths are refused in words.
      await shadow(page, (host) => host.setConfig({ sentence: 'The dog chased the ball', preset: 'gpt2' }));
      await page.waitForFunction(() =>
        [...document.querySelector('headwise-explorer').shadowRoot.querySelectorAll('#panel-steps code.shape')].some(
          (c) => c.textContent === '(1, 12, 5, 5)',
        ),
      );
      assert.deepEqual(await shapeLabels(page), lectureShapes(1, 5, 12, 64));
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the input panel shows the batch: two token lists, x of shape (2, 6, 6)', async () => {
    const { page, context, problems } = await openExplorer(web.browser, `${web.server.url}index.html?panel=input`);
    try {
      const lists = await shadow(page, (host) =>
        [...host.shadowRoot.querySelectorAll('#panel-input ol.tokens')].map((ol) =>
          [...ol.children].map((li) => li.textContent),
        ),
      );
      assert.deepEqual(lists, LECTURE);
      assert.match(await page.locator('[data-panel="input"] .status').innerText(), /input x has shape \(2, 6, 6\)/);
      await shadow(page, (host) => host.setConfig({ sentence: 'All dogs are animals\nAll animals are dogs .' }));
      await page.waitForFunction(() =>
        /same number of tokens; these have 4, 5/.test(
          document.querySelector('headwise-explorer').shadowRoot.querySelector('#panel-input .status').textContent,
        ),
      );
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  for (const { name, query, H, hd } of [
    { name: 'toy', query: '', H: 2, hd: 3 },
    { name: 'GPT-2', query: '&preset=gpt2', H: 12, hd: 64 },
  ]) {
    test(`attend (${name}): 2 x ${H} maps, q.k / sqrt(hd) masked above the diagonal, then softmax`, async () => {
      const url = `${web.server.url}embed.html?panel=steps${query}`;
      const { page, context, problems } = await openExplorer(web.browser, url, { width: 1280, height: 720 });
      try {
        await goToStep(page, 2);
        const T = 6;
        const ref = reference({ dModel: H * hd, heads: H }, LECTURE);
        const canvases = await stepCanvases(page);
        assert.equal(canvases.length, 2 * H, `maps: ${canvases.map((c) => c.label).join(' | ')}`);
        // Per head its pair, scores then softmax, side by side on one row; the grid in at most 4 rows.
        for (let h = 0; h < H; h += 1) {
          const [pre, post] = [canvases[2 * h], canvases[2 * h + 1]];
          assert.match(pre.label, new RegExp(`^Head ${h + 1} scores before softmax, q\\.k / sqrt\\(${hd}\\)`));
          assert.match(post.label, new RegExp(`^Head ${h + 1} attention after softmax`));
          assert.ok(Math.abs(pre.box.y - post.box.y) < 1 && pre.box.x + pre.box.w <= post.box.x, `head ${h + 1} pair`);
        }
        const rows = new Set(canvases.map((c) => Math.round(c.box.y))).size;
        assert.ok(rows <= 4, `${rows} rows of maps`);
        const bottom = Math.max(...canvases.map((c) => c.box.y + c.box.h));
        console.log(`# attend ${name} at 1280x720: ${canvases.length} maps in ${rows} rows, bottom ${bottom} px`);
        assert.ok(bottom <= 720, `the maps end at ${bottom} px, below the 720 px slide`);

        // One scale for every head's scores: the largest |reference score| unmasked, sentence 1.
        let maxAbs = 0;
        for (let k = 0; k < H * T * T; k += 1) {
          if (Number.isFinite(ref.scores[k])) maxAbs = Math.max(maxAbs, Math.abs(ref.scores[k]));
        }
        const level = (v) => Math.round((0.5 + v / (2 * maxAbs)) * 256);
        const puor = (v) => [-1, 0, 1].map((d) => rgbOf(diverging(((level(v) + d) / 256 - 0.5) * 2 * maxAbs, maxAbs)));
        const masked = (i, j) => j > i;
        let worst = 0;
        for (const h of H === 2 ? [0, 1] : [0, 5, 11]) {
          const at = (i, j) => (h * T + i) * T + j;
          const scores = await tableCells(page, `Head ${h + 1} scores before softmax`);
          const attention = await tableCells(page, `Head ${h + 1} attention after softmax`);
          for (let i = 0; i < T; i += 1) {
            let sum = 0;
            for (let j = 0; j < T; j += 1) {
              if (masked(i, j)) {
                assert.equal(scores[i][j], 'masked', `head ${h + 1} score ${i}, ${j}`);
                assert.equal(ref.scores[at(i, j)], -Infinity);
                assert.equal(attention[i][j], 'masked');
                continue;
              }
              // q.k / sqrt(hd) from the reference's own q and k, and as the reference computed it.
              let dot = 0;
              for (let e = 0; e < hd; e += 1) dot += ref.q[(h * T + i) * hd + e] * ref.k[(h * T + j) * hd + e];
              assert.ok(Math.abs(dot / Math.sqrt(hd) - ref.scores[at(i, j)]) < 1e-12);
              const diff = Math.abs(Number(scores[i][j]) - ref.scores[at(i, j)]);
              worst = Math.max(worst, diff);
              assert.ok(
                diff <= 6e-5,
                `head ${h + 1} score ${i}, ${j}: ${scores[i][j]} against ${ref.scores[at(i, j)]}`,
              );
              assert.ok(Math.abs(Number(attention[i][j]) - ref.attention[at(i, j)]) <= 6e-5);
              sum += Number(attention[i][j]);
            }
            assert.ok(Math.abs(sum - 1) <= T * 5e-5, `head ${h + 1} row ${i} of the softmax sums to ${sum}`);
          }
          assertMapDrawn(canvases[2 * h], T, (i, j) => puor(ref.scores[at(i, j)]), masked, `head ${h + 1} scores`);
          const viridisNear = (v) => [-5e-5, 0, 5e-5].map((d) => rgbOf(viridis(v + d)));
          assertMapDrawn(
            canvases[2 * h + 1],
            T,
            (i, j) => viridisNear(ref.attention[at(i, j)]),
            masked,
            `head ${h + 1} softmax`,
          );
        }
        console.log(`# attend ${name}: worst |table score - double reference| = ${worst.toExponential(2)}`);
        await page.screenshot({ path: `${ARTIFACTS}steps-attend-${name}-1280x720.png` });
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }

  // The steps panel's out-project step (the batch's 2 x 6 rows) and the heads panel's mixing figure
  // (the whole sentence's 12 rows; on a slide with GPT-2's 12 heads, its button shows it in place of
  // the maps): the same product.
  for (const { name, query, D, panel } of [
    { name: 'toy', query: '', D: 6, panel: 'steps' },
    { name: 'GPT-2', query: '&preset=gpt2', D: 768, panel: 'steps' },
    { name: 'GPT-2', query: '&preset=gpt2', D: 768, panel: 'heads' },
  ]) {
    const where = panel === 'steps' ? 'out-project' : 'heads panel';
    test(`${where} (${name}): concat @ W_out = output left to right, grids aligned`, async () => {
      const url = `${web.server.url}embed.html?panel=${panel}${query}`;
      const { page, context, problems } = await openExplorer(web.browser, url, { width: 1280, height: 720 });
      try {
        if (panel === 'steps') await goToStep(page, 4);
        else {
          // The trained models load after the first render and draw the panel again: click after.
          await page.locator('#panel-heads[data-heads-weights]:not([data-heads-weights="loading"])').waitFor();
          await page.locator('[data-panel="heads"] button.mix-toggle').click();
        }
        const canvases =
          panel === 'steps' ? await stepCanvases(page) : await stepCanvases(page, '#panel-heads .figures.mix > canvas');
        assert.equal(canvases.length, 1);
        const [product] = canvases;
        const rows = 12;
        assert.match(
          product.label,
          panel === 'steps'
            ? new RegExp(`^output = concat @ W_out: concat \\(${rows} x ${D}\\), W_out \\(${D} x ${D}\\)`)
            : new RegExp(`output = concat @ W_out, \\(${rows}, ${D}\\) @ \\(${D}, ${D}\\) = \\(${rows}, ${D}\\)`),
        );
        const regions = regionsOf(product, PUOR);
        const big = D > 64;
        assert.equal(regions.length, big ? 4 : 3, `grids: ${JSON.stringify(regions)}`);
        const [concat, wOut, ...rest] = regions;
        const crop = big ? rest[0] : null;
        const output = rest.at(-1);
        // Left to right, tops aligned, concat and output the same rows.
        assert.ok(concat.x + concat.w < wOut.x && wOut.x + wOut.w < output.x, 'concat, W_out, output left to right');
        for (const r of [wOut, output]) assert.ok(Math.abs(r.y - concat.y) <= 1, `tops: ${concat.y}, ${r.y}`);
        assert.ok(Math.abs(output.h - concat.h) <= 1, `rows: ${concat.h} and ${output.h} px tall`);
        // The operators sit between, at concat's middle rows: dark pixels in each gap.
        const pixel = pixelOf(product);
        const middle = Math.floor(concat.y + concat.h / 2);
        const inkBetween = (a, b) => {
          let ink = 0;
          for (let y = middle - 8; y <= middle + 8; y += 1) {
            for (let x = a.x + a.w + 2; x < b.x - 2; x += 1)
              if (product.data[4 * (y * product.width + x) + 3] >= 128) ink += 1;
          }
          return ink;
        };
        const ink = [inkBetween(concat, wOut), inkBetween(wOut, output)];
        assert.ok(ink[0] > 5 && ink[1] > 5, `an operator in each gap: ${ink} dark pixels, ${JSON.stringify(regions)}`);
        const spread = (r) => {
          const values = [];
          for (let y = r.y + 1; y < r.y + r.h - 1; y += 1) {
            for (let x = r.x + 1; x < r.x + r.w - 1; x += 1) {
              const c = pixel(x, y);
              if (c >= 0) values.push(((c >> 16) & 255) + ((c >> 8) & 255) + (c & 255));
            }
          }
          const mean = values.reduce((a, b) => a + b, 0) / values.length;
          return Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
        };
        if (big) {
          // The crop: under the block view, and the weights visible (not a flat field).
          assert.ok(
            crop.y > wOut.y + wOut.h && crop.x < wOut.x + wOut.w && crop.x + crop.w > wOut.x,
            'crop under W_out',
          );
          const [flat, detailed] = [spread(wOut), spread(crop)];
          console.log(
            `# GPT-2 W_out: pixel spread (std of r+g+b) block view ${flat.toFixed(1)}, crop ${detailed.toFixed(1)}`,
          );
          assert.ok(detailed > 60, `the crop's pixels spread by ${detailed.toFixed(1)}: a flat field`);
          assert.ok(detailed > 3 * flat, 'the crop shows what the block view cannot');
          if (panel === 'steps') {
            const note = await page.locator('[data-panel="steps"] .step-note').innerText();
            assert.match(note, /block averages are all close to 0 .* top-left 64 x 64 weights are drawn one by one/);
          }
        }
        await page.screenshot({ path: `${ARTIFACTS}${panel}-out-project-${name}-1280x720.png` });
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
