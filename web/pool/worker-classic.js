// The pool worker as one classic script with the wasm inside (built to web/build/pool/ by
// scripts/build-wasm.sh): the pool starts it from a Blob URL where a worker file cannot be loaded,
// such as a page opened from file://.
import wasmBase64 from 'virtual:headwise-wasm-base64';
import { loadHeadwise } from '../headwise.js';
import { serve } from './serve.js';
import { browserPort } from './worker-port.js';

const decode = (base64) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
serve(browserPort(), (wasmBinary) => loadHeadwise({ wasmBinary: wasmBinary ?? decode(wasmBase64) }));
