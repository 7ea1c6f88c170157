// The pool worker as one classic script (built to web/build/pool/ by scripts/build-wasm.sh): the
// pool starts it from a Blob URL where a worker file cannot be loaded, such as a page opened from
// file://. It has no wasm of its own: the pool's init message brings its compiled module.
import { loadHeadwise } from '../loaded-module.js';
import { serve } from './serve.js';
import { browserPort } from './worker-port.js';

serve(browserPort(), ({ wasmBinary, wasmModule }) => {
  if (!wasmBinary && !wasmModule) throw new Error('this worker needs the wasm in its init message (wasmModule)');
  return loadHeadwise(wasmModule ? { wasmModule } : { wasmBinary });
});
