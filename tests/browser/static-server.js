// Serves web/ as plain static files (Vite's preview server: no transforms, no HMR client), the way
// any static host would, on a free port of 127.0.0.1.
import { preview } from 'vite';
import { fileURLToPath } from 'node:url';

export const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

export async function serveWeb() {
  const server = await preview({
    root: WEB_DIR,
    configFile: false,
    logLevel: 'silent',
    build: { outDir: WEB_DIR },
    preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
  });
  const address = server.httpServer.address();
  return { url: `http://127.0.0.1:${address.port}/`, close: () => new Promise((resolve) => server.httpServer.close(resolve)) };
}
