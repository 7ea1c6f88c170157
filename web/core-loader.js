// Loads the WebAssembly core in Node 18+ and in browsers. The Emscripten glue is built without
// its own Node or fetch code paths; the bytes are handed to it here, so bundlers, file servers
// and Node all see one explicit request for headwise-core.wasm (or none, given wasmBinary).
import createHeadwiseCore from './build/headwise-core.js';

const defaultWasmUrl = new URL('./build/headwise-core.wasm', import.meta.url);

const isNode =
  typeof process === 'object' && typeof process.versions?.node === 'string' && typeof window === 'undefined';

// Node reads a file: URL from disk. Through process.getBuiltinModule (Node 20.16+), not an import:
// bundlers then see no Node module in this file, and browsers never reach it.
export function readFileInNode(url) {
  const fs = process.getBuiltinModule?.('node:fs/promises');
  if (!fs) throw new Error(`reading ${url} needs Node 20.16 or later (or pass wasmBinary to loadHeadwise)`);
  return fs.readFile(url);
}

async function instantiateFromUrl(url, imports) {
  if (isNode && String(url).startsWith('file:')) return WebAssembly.instantiate(await readFileInNode(url), imports);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url}: HTTP ${response.status}`);
  if (
    typeof WebAssembly.instantiateStreaming === 'function' &&
    response.headers.get('content-type') === 'application/wasm'
  ) {
    return WebAssembly.instantiateStreaming(response, imports);
  }
  return WebAssembly.instantiate(await response.arrayBuffer(), imports);
}

/**
 * @param {{ wasmBinary?: ArrayBuffer | Uint8Array, wasmModule?: WebAssembly.Module, wasmUrl?: string | URL }} [options]
 * @returns {Promise<object>} the raw Embind module (private: use headwise.js); its
 *   headwiseWasmModule is the compiled WebAssembly.Module, from which workers start more instances
 */
export function loadCore({ wasmBinary, wasmModule, wasmUrl } = {}) {
  let rejectLoad;
  let core = null;
  let abortReason = null;
  let compiled = null;
  const failed = new Promise((_, reject) => {
    rejectLoad = reject;
  });
  const ready = createHeadwiseCore({
    instantiateWasm(imports, receive) {
      const instantiating = wasmModule
        ? WebAssembly.instantiate(wasmModule, imports).then((instance) => ({ instance, module: wasmModule }))
        : wasmBinary
          ? WebAssembly.instantiate(wasmBinary, imports)
          : instantiateFromUrl(wasmUrl ?? defaultWasmUrl, imports);
      instantiating.then((result) => {
        compiled = result.module;
        receive(result.instance, result.module);
      }, rejectLoad);
      return {};
    },
    print() {},
    printErr(text) {
      console.warn(`[headwise] ${text}`);
    },
    // After an abort the module's memory is in an unknown state; record it so the API can refuse.
    onAbort(what) {
      abortReason = String(what ?? 'unknown reason');
      if (core) core.headwiseAbortReason = abortReason;
    },
  });
  // The glue never settles if instantiation fails, so a failure must win the race by itself.
  return Promise.race([ready, failed]).then((loaded) => {
    core = loaded;
    core.headwiseAbortReason = abortReason;
    core.headwiseWasmModule = compiled;
    return core;
  });
}
