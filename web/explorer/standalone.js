// The classic-script entry (built to web/build/explorer/explorer.js by scripts/build-explorer.sh):
// the module's wasm bytes ride inside the script (packed: packed-wasm.js), so the page works opened
// from disk, where Chromium refuses ES modules and fetch. The script is loaded with `defer`, so the
// page's elements exist when it runs; CSP-friendly (no inline script is needed on the page).
import packedWasm from 'virtual:headwise-wasm-packed';
import { loadHeadwise } from '../headwise.js';
import { setClassicWorker } from '../pool/spawn.js';
import { HeadwiseExplorer } from './explorer-element.js';
import { optionsFromQuery } from './options.js';
import { unpackWasm } from './packed-wasm.js';
import { allowedOriginsFrom, listenForSlideMessages } from './slide-messages.js';

HeadwiseExplorer.loadModule = async () => loadHeadwise({ wasmBinary: await unpackWasm(packedWasm) });

const BUNDLE_URL = document.currentScript?.src ?? location.href;

// A classic script beside this one, which hands the script element that loaded it an object (an
// `event` event): this script cannot fetch files from disk (file://), and that works from file://
// and under script-src 'self'.
function besideBundle(file, event) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = new URL(file, BUNDLE_URL).href;
    script.addEventListener(event, (e) => resolve(e.detail), { once: true });
    script.addEventListener('load', () => reject(new Error(`${script.src} did not send "${event}"`)));
    script.addEventListener('error', () => reject(new Error(`could not load ${script.src}`)));
    document.head.append(script);
  });
}

// Checkpoints: each shipped checkpoint the Learn panel shows is a classic script beside the bundle,
// checkpoints/<name>.js (written by scripts/build-explorer.sh), loaded when first asked for.
const checkpoints = new Map();
HeadwiseExplorer.checkpointSource = (name) => {
  if (!checkpoints.has(name)) {
    const loading = besideBundle(`checkpoints/${name}.js`, 'headwise-checkpoint');
    checkpoints.set(name, loading);
    loading.catch(() => checkpoints.delete(name));
  }
  return checkpoints.get(name);
};
// The Learn panel's live training: classic workers from pool-worker.js beside the bundle (written by
// scripts/build-explorer.sh), loaded only when one starts. A same-origin file, which a strict CSP
// (no blob: workers) allows; from file://, where a file cannot be a worker, that script's text in a
// Blob URL.
setClassicWorker({
  url: new URL('pool-worker.js', BUNDLE_URL),
  source: () => besideBundle('pool-worker.js', 'headwise-worker-source'),
});
HeadwiseExplorer.workerKinds = ['blob'];
if (!customElements.get('headwise-explorer')) customElements.define('headwise-explorer', HeadwiseExplorer);

// ?slide=1 also hides the page's own header (index.html).
if (optionsFromQuery(location.search).options.slide) document.documentElement.classList.add('headwise-slide');

// embed.html: a framing slide deck steps the explorer with postMessage (see slide-messages.js).
const controlled = document.querySelector('headwise-explorer[accept-messages]');
if (controlled) listenForSlideMessages(window, controlled, { allowedOrigins: allowedOriginsFrom(location.search) });
