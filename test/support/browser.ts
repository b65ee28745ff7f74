// Chromium for the browser tests, driven by playwright-core: the binary scripts/test.sh found or installed
// (PMX_CHROMIUM), or, when a test file runs on its own, whatever scripts/browser.sh finds or installs now.
// There is no skipping: without a browser the test fails with the script's message.

import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Where the browser tests save their screenshots (gitignored). */
export const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', '.screenshots');

export function chromiumPath(): string {
  const failed = process.env.PMX_BROWSER_ERROR;
  if (failed !== undefined && failed !== '') throw new Error(`no browser for the UI tests: ${failed}`);
  const known = process.env.PMX_CHROMIUM;
  if (known !== undefined && known !== '') return known;
  try {
    const out = execFileSync('bash', [join(import.meta.dirname, '..', '..', 'scripts', 'browser.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return out.trim().split('\n').at(-1) as string;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`no browser for the UI tests: ${stderr.trim()}`);
  }
}

export async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
