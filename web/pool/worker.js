// A pool worker as an ES module: a browser module Worker (a same-origin file, so it runs under
// script-src 'self') or a Node worker_threads Worker. The wasm comes from its usual URL next to
// the JS API, or from the init message.
import { loadHeadwise } from '../loaded-module.js';
import { serve } from './serve.js';
import { browserPort, inBrowserWorker, nodePort } from './worker-port.js';

const load = ({ wasmBinary, wasmModule }) =>
  loadHeadwise(wasmModule ? { wasmModule } : wasmBinary ? { wasmBinary } : undefined);
if (inBrowserWorker()) serve(browserPort(), load);
else serve(await nodePort(), load);
