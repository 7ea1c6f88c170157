// Launches Debian's Chromium through playwright-core (no browser downloads) with flags that work
// as root on a machine without internet.
//
// When HEADWISE_CHROMIUM_WS names a running browser server (tests/browser/run.js starts one for
// the whole browser stage of `npm test`), launchChromium() connects to it instead of starting a
// Chromium of its own: each test file still gets its own Browser object, and its close() closes the
// contexts that file opened and disconnects, leaving the shared process to the next file. A file run
// on its own (`node --test tests/browser/x.test.js`) launches its own Chromium as before.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The endpoint of the shared browser server, if the stage runs one. */
export const SHARED_CHROMIUM_WS = process.env.HEADWISE_CHROMIUM_WS || null;

export async function launchChromium() {
  if (!SHARED_CHROMIUM_WS) return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const browser = await chromium.connect(SHARED_CHROMIUM_WS);
  // Connected, a download's path() throws ("not available when connecting remotely"); tests read
  // downloads through path() as with a launched browser, so path() saves a local copy and names it.
  const watch = (context) => context.on('page', (page) => page.on('download', localPath));
  const { newContext, newPage } = browser;
  browser.newContext = async (...args) => {
    const context = await newContext.apply(browser, args);
    watch(context);
    return context;
  };
  browser.newPage = async (...args) => {
    const page = await newPage.apply(browser, args);
    page.on('download', localPath);
    return page;
  };
  return browser;
}

let downloads = null;
const copies = new WeakMap();
function localPath(download) {
  const proto = Object.getPrototypeOf(download);
  if (proto.headwiseLocalPath) return;
  proto.headwiseLocalPath = true;
  proto.path = function path() {
    if (!copies.has(this)) {
      if (!downloads) {
        downloads = mkdtempSync(join(tmpdir(), 'headwise-downloads-'));
        process.on('exit', () => rmSync(downloads, { recursive: true, force: true }));
      }
      const file = join(mkdtempSync(join(downloads, 'd-')), this.suggestedFilename());
      copies.set(
        this,
        this.saveAs(file).then(() => file),
      );
    }
    return copies.get(this);
  };
}

/** One Chromium that several processes connect to (see tests/browser/run.js). */
export function launchChromiumServer() {
  return chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
