// tests/browser/pool-page.js as one classic script with the wasm inside, for the page opened from
// file:// (built by tests/browser/pool.test.js).
import wasmBase64 from 'virtual:headwise-wasm-base64';
import { loadHeadwise } from '../../web/headwise.js';
import { useModule } from './pool-page.js';

const bytes = Uint8Array.from(atob(wasmBase64), (c) => c.charCodeAt(0));
useModule(() => loadHeadwise({ wasmBinary: bytes }));
