// Launches Debian's Chromium through playwright-core (no browser downloads) with flags that work
// as root on a machine without internet.
//
// When HEADWISE_CHROMIUM_WS names a running browser server (tests/browser/run.js starts one for
// the whole browser stage of `npm test`), launchChromium() connects to it instead of starting a
// Chromium of its own: each test file still gets its own Browser object, and its close() closes the
// contexts that file opened and disconnects, leaving the shared process to the next file. A file run
// on its own (`node --test tests/browser/x.test.js`) launches its own Chromium as before.
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

export function launchChromium() {
  if (SHARED_CHROMIUM_WS) return chromium.connect(SHARED_CHROMIUM_WS);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** One Chromium that several processes connect to (see tests/browser/run.js). */
export function launchChromiumServer() {
  return chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
