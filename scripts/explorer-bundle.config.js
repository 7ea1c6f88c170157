// Vite configuration of the explorer's classic-script bundle (see scripts/build-explorer.sh).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const VIRTUAL = 'virtual:headwise-wasm-packed';

/** The wasm bytes as the bundle carries them: deflate-raw, then base64 (unpackWasm in packed-wasm.js reads it). */
export const packWasm = (bytes) => deflateRawSync(bytes, { level: 9 }).toString('base64');

// The packed wasm as a string module: the bundle then needs no request to run. Base64 of the raw
// bytes was a third larger gzipped than the bytes themselves; of deflated bytes, about as large.
export const inlineWasm = {
  name: 'headwise-inline-wasm',
  resolveId: (id) => (id === VIRTUAL ? `\0${VIRTUAL}` : null),
  load(id) {
    if (id !== `\0${VIRTUAL}`) return null;
    return `export default ${JSON.stringify(packWasm(readFileSync(`${root}web/build/headwise-core.wasm`)))};`;
  },
};

// core-loader.js points at the wasm file by default; this bundle always passes wasmBinary, so that
// default would only add a second, unused copy of the wasm (Vite inlines it as a data URL).
const DEFAULT_WASM_URL = "new URL('./build/headwise-core.wasm', import.meta.url)";
export const dropDefaultWasmUrl = {
  name: 'headwise-drop-default-wasm-url',
  enforce: 'pre',
  transform(code, id) {
    if (!id.endsWith('/web/core-loader.js')) return null;
    if (!code.includes(DEFAULT_WASM_URL))
      this.error(`core-loader.js no longer contains ${DEFAULT_WASM_URL}; update ${import.meta.url}`);
    return code.replace(DEFAULT_WASM_URL, 'undefined');
  },
};

// checkpoint.js finds each shipped checkpoint file from its module URL, which a classic script
// has not (and Vite would inline every file, 840 KB): there the URLs are undefined and
// checkpoints are passed as objects.
const CHECKPOINT_URL = /new URL\('\.\/checkpoints\/[a-z0-9-]+\.json', import\.meta\.url\)/g;
export const dropCheckpointUrls = {
  name: 'headwise-drop-checkpoint-urls',
  enforce: 'pre',
  transform(code, id) {
    if (!id.endsWith('/web/checkpoint.js')) return null;
    if (!CHECKPOINT_URL.test(code)) this.error(`checkpoint.js no longer has its file URLs; update ${import.meta.url}`);
    return code.replace(CHECKPOINT_URL, 'undefined');
  },
};

// spawn.js finds the pool's module worker from its module URL, which a classic script has not, and
// imports the classic worker's source for a Blob URL, which would put a second copy of the glue in
// the page: the explorer bundle has no module worker (the URL is undefined), and standalone.js
// sets where its classic worker comes from (pool-worker.js beside the bundle, loaded when needed).
const POOL_WORKER_URL = "new URL('./worker.js', import.meta.url)";
const POOL_WORKER_SOURCE = "import('../build/pool/worker-source.js')";
export const dropPoolWorkerUrl = {
  name: 'headwise-drop-pool-worker-url',
  enforce: 'pre',
  transform(code, id) {
    if (!id.endsWith('/web/pool/spawn.js')) return null;
    for (const needed of [POOL_WORKER_URL, POOL_WORKER_SOURCE])
      if (!code.includes(needed)) this.error(`spawn.js no longer contains ${needed}; update ${import.meta.url}`);
    return code
      .replace(POOL_WORKER_URL, 'undefined')
      .replace(POOL_WORKER_SOURCE, 'Promise.reject(new Error("the explorer bundle sets its worker (standalone.js)"))');
  },
};

// core-loader.js reads the wasm file with node:fs when it runs in Node; the browser bundle never
// does, so that import resolves to a module that says so.
const NODE_FS = 'node:fs/promises';
export const noNodeFs = {
  name: 'headwise-no-node-fs',
  enforce: 'pre',
  resolveId: (id) => (id === NODE_FS ? `\0${NODE_FS}` : null),
  load: (id) =>
    id === `\0${NODE_FS}`
      ? 'export function readFile() { throw new Error("node:fs is not available in the browser bundle"); }'
      : null,
};

export default {
  root,
  logLevel: 'warn',
  plugins: [inlineWasm, dropDefaultWasmUrl, dropCheckpointUrls, dropPoolWorkerUrl, noNodeFs],
  build: {
    outDir: `${root}web/build/explorer`,
    emptyOutDir: true,
    target: 'es2022',
    minify: true,
    lib: {
      entry: `${root}web/explorer/standalone.js`,
      name: 'HeadwiseExplorerBundle',
      formats: ['iife'],
      fileName: () => 'explorer.js',
    },
  },
};
