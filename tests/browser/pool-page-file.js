// tests/browser/pool-page.js as one classic script with the wasm inside (packed, as in the explorer
// bundle), for the page opened from file:// (built by tests/browser/pool.test.js).
import packedWasm from 'virtual:headwise-wasm-packed';
import { loadHeadwise } from '../../web/headwise.js';
import { unpackWasm } from '../../web/explorer/packed-wasm.js';
import { useModule } from './pool-page.js';

useModule(async () => loadHeadwise({ wasmBinary: await unpackWasm(packedWasm) }));
