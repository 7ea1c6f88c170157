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
if (!customElements.get('headwise-explorer')) customElements.define('headwise-explorer', HeadwiseExplorer);

// ?slide=1 also hides the page's own header (index.html).
if (optionsFromQuery(location.search).options.slide) document.documentElement.classList.add('headwise-slide');

// embed.html: a framing slide deck steps the explorer with postMessage (see slide-messages.js).
const controlled = document.querySelector('headwise-explorer[accept-messages]');
if (controlled) listenForSlideMessages(window, controlled, { allowedOrigins: allowedOriginsFrom(location.search) });
