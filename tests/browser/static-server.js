// Serves a folder as plain static files (Vite's preview server: no transforms, no HMR client), the
// way any static host would, on a free port of 127.0.0.1 (or `host`), with optional extra headers.
import { preview } from 'vite';
import { fileURLToPath } from 'node:url';

export const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));
export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples/', import.meta.url));

/** The strict policy the explorer must run under. */
export const STRICT_CSP = "script-src 'self' 'wasm-unsafe-eval'";
/** The same with everything else locked down too, as README suggests for hosts that set default-src. */
export const LOCKED_DOWN_CSP = [
  "default-src 'self'",
  STRICT_CSP,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
].join('; ');

export async function serveDir(dir, { headers = {}, host = '127.0.0.1' } = {}) {
  const server = await preview({
    root: dir,
    configFile: false,
    appType: 'mpa', // a missing file is a 404, not index.html
    logLevel: 'silent',
    build: { outDir: dir },
    preview: { host, port: 0, strictPort: false, open: false, headers },
  });
  const address = server.httpServer.address();
  return {
    url: `http://${host}:${address.port}/`,
    close: () => new Promise((resolve) => server.httpServer.close(resolve)),
  };
}

export const serveWeb = (options) => serveDir(WEB_DIR, options);
