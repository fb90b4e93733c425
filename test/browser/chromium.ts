// Launch Debian's chromium through playwright-core for the browser tests, or say why it cannot start (the
// tests then skip with that reason printed). Flags keep a headless run quiet on a machine without network:
// no background networking, component updates, sync or QUIC.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';

/** Where the browser tests write their screenshots (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/browser/', import.meta.url));

export function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** A running chromium, or the reason there is none. */
export async function launchChromium(): Promise<{ browser: Browser } | { reason: string }> {
  const exe = process.env.CHROMIUM_PATH?.trim() || CANDIDATES.find((p) => existsSync(p));
  if (!exe) return { reason: `no chromium binary (looked for ${CANDIDATES.join(', ')}; apt-get install chromium, or set CHROMIUM_PATH)` };
  let chromium: typeof import('playwright-core').chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (err) {
    return { reason: `playwright-core is not installed: ${err instanceof Error ? err.message : String(err)}` };
  }
  try {
    const browser = await chromium.launch({
      executablePath: exe,
      timeout: 30_000,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    return { browser };
  } catch (err) {
    return { reason: `chromium (${exe}) did not start: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}` };
  }
}
