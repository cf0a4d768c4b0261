/**
 * Debian's Chromium driven by playwright-core, with the flags this machine needs: no
 * sandbox as root, no GPU, and no background networking (the network is closed, and
 * Chromium's own connections would otherwise be refused many at a time).
 */
import { chromium, type Browser } from 'playwright-core';
import { ensureTools } from './tools.js';

/** Launches headless Chromium with the server run's private environment. */
export async function launchBrowser(env: NodeJS.ProcessEnv): Promise<Browser> {
  const tools = ensureTools();
  return await chromium.launch({
    executablePath: tools.chromium,
    headless: true,
    env: env as Record<string, string>,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
