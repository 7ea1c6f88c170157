// The classic-script entry (built to web/build/explorer.js by scripts/build-explorer.sh): the
// module's wasm bytes ride inside the script, so the page works opened from disk, where Chromium
// refuses ES modules and fetch.
import wasmBase64 from 'virtual:headwise-wasm-base64';
import { loadHeadwise } from '../headwise.js';
import { HeadwiseExplorer } from './explorer-element.js';

function decode(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes;
}

HeadwiseExplorer.loadModule = () => loadHeadwise({ wasmBinary: decode(wasmBase64) });
if (!customElements.get('headwise-explorer')) customElements.define('headwise-explorer', HeadwiseExplorer);
