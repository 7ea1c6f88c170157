// The classic-script entry (built to web/build/explorer/explorer.js by scripts/build-explorer.sh):
// the module's wasm bytes ride inside the script, so the page works opened from disk, where
// Chromium refuses ES modules and fetch. The script is loaded with `defer`, so the page's elements
// exist when it runs; CSP-friendly (no inline script is needed on the page).
import wasmBase64 from 'virtual:headwise-wasm-base64';
import { loadHeadwise } from '../headwise.js';
import { HeadwiseExplorer } from './explorer-element.js';
import { optionsFromQuery } from './options.js';
import { allowedOriginsFrom, listenForSlideMessages } from './slide-messages.js';

function decode(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes;
}

HeadwiseExplorer.loadModule = () => loadHeadwise({ wasmBinary: decode(wasmBase64) });

// Checkpoints: this script cannot fetch files from disk (file://), so each shipped checkpoint the
// Learn panel shows is a classic script beside it, checkpoints/<name>.js (written by
// scripts/build-explorer.sh), loaded when first asked for: it hands its object to the script
// element that loaded it (a "headwise-checkpoint" event), which works from file:// and under
// script-src 'self'.
const BUNDLE_URL = document.currentScript?.src ?? location.href;
const checkpoints = new Map();
HeadwiseExplorer.checkpointSource = (name) => {
  if (!checkpoints.has(name)) {
    const loading = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = new URL(`checkpoints/${name}.js`, BUNDLE_URL).href;
      script.addEventListener('headwise-checkpoint', (event) => resolve(event.detail), { once: true });
      script.addEventListener('load', () => reject(new Error(`${script.src} did not hold checkpoint "${name}"`)));
      script.addEventListener('error', () => reject(new Error(`could not load ${script.src}`)));
      document.head.append(script);
    });
    checkpoints.set(name, loading);
    loading.catch(() => checkpoints.delete(name));
  }
  return checkpoints.get(name);
};
// The Learn panel's live training: a Blob-URL worker (the bundle has no worker file of its own);
// where a CSP refuses blob: workers, it trains on the page.
HeadwiseExplorer.workerKinds = ['blob'];
if (!customElements.get('headwise-explorer')) customElements.define('headwise-explorer', HeadwiseExplorer);

// ?slide=1 also hides the page's own header (index.html).
if (optionsFromQuery(location.search).options.slide) document.documentElement.classList.add('headwise-slide');

// embed.html: a framing slide deck steps the explorer with postMessage (see slide-messages.js).
const controlled = document.querySelector('headwise-explorer[accept-messages]');
if (controlled) listenForSlideMessages(window, controlled, { allowedOrigins: allowedOriginsFrom(location.search) });
