// Vite configuration of the pool's classic worker (see scripts/build-wasm.sh): web/pool/worker-classic.js
// with the module's JS inside (the wasm comes in its init message), written as
// web/build/pool/worker-source.js, an ES module whose default export is the script's text (the pool
// starts it from a Blob URL, e.g. on file://).
import { fileURLToPath } from 'node:url';
import { dropCheckpointUrls, dropDefaultWasmUrl, noNodeFs } from './explorer-bundle.config.js';

const root = fileURLToPath(new URL('..', import.meta.url));

// The worker never starts workers itself: its copy of the pool gets no worker source (which is
// what this build makes).
const noNestedSource = {
  name: 'headwise-pool-no-nested-source',
  enforce: 'pre',
  resolveId: (id) => (id.endsWith('/build/pool/worker-source.js') ? '\0pool-worker-source' : null),
  load: (id) => (id === '\0pool-worker-source' ? 'export default "";' : null),
};

const asSourceModule = {
  name: 'headwise-pool-worker-source',
  generateBundle(_, bundle) {
    const [name, chunk] = Object.entries(bundle).find(([, c]) => c.type === 'chunk');
    delete bundle[name];
    this.emitFile({
      type: 'asset',
      fileName: 'worker-source.js',
      source: [
        '// Built by scripts/build-wasm.sh from web/pool/worker-classic.js.',
        `export default ${JSON.stringify(chunk.code)};\n`,
      ].join('\n'),
    });
  },
};

export default {
  root,
  logLevel: 'warn',
  plugins: [dropDefaultWasmUrl, dropCheckpointUrls, noNodeFs, noNestedSource, asSourceModule],
  build: {
    outDir: `${root}web/build/pool`,
    emptyOutDir: true,
    target: 'es2022',
    minify: true,
    lib: {
      entry: `${root}web/pool/worker-classic.js`,
      name: 'HeadwisePoolWorker',
      formats: ['iife'],
      fileName: () => 'worker-classic.js',
    },
  },
};
