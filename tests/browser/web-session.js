// The hooks most browser test files share: one Chromium and one server of web/ for the file's tests,
// both closed after them. Tests read them as web.browser and web.server.
import { after, before } from 'node:test';
import { launchChromium } from './chromium.js';
import { serveWeb } from './static-server.js';

export function chromiumAndWeb() {
  const web = { browser: null, server: null };
  before(async () => {
    web.browser = await launchChromium();
    web.server = await serveWeb();
  });
  after(async () => {
    await web.browser?.close();
    await web.server?.close();
  });
  return web;
}
