import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium (`apt-get install chromium`), driven by playwright-core. Never a browser
 * download: a missing binary is a failure that says how to install it.
 */
export const CHROMIUM = process.env.PKG_TEST_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with 'apt-get install -y chromium' (or set PKG_TEST_CHROMIUM)`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}
