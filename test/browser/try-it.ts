// What the browser tests of the try-it page share: Debian's chromium through playwright-core (or, when it
// cannot start, the reason printed and the file's tests skipped), a page that records CSP violations and
// console errors, the API key pasted in, a file dropped on the drop zone, a download saved, waits for a
// picture or a text, and a screenshot of the page when a test fails. Launch flags keep a headless run quiet on a machine without
// network: no background networking, component updates, sync or QUIC.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Locator, Page, Request } from 'playwright-core';
import type { TestContext } from 'vitest';
import type { TestServer } from '../http/harness.js';

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

/** A running chromium for a test file, or null after printing why its tests skip (a skip must say why). */
export async function chromiumOrSkip(): Promise<Browser | null> {
  const launched = await launchChromium();
  if ('reason' in launched) {
    console.warn(`[browser tests skipped] ${launched.reason}`);
    return null;
  }
  return launched.browser;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** The page's console lines (`type: text`) and uncaught errors (`pageerror: message`), in order. */
  consoleLines: string[];
}

/**
 * A 1280 x 900 page at scale 1 in a fresh context. CSP violations are recorded in `window.__csp` by an init
 * script (the test's, not the page's), so a test can check that none happened.
 */
export async function openPage(browser: Browser): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await context.addInitScript('window.__csp = []; document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));');
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  const consoleLines: string[] = [];
  page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
  return { context, page, consoleLines };
}

/** Paste the server's key into the open page and wait until the page has accepted it. */
export async function useKey(page: Page, key: string): Promise<void> {
  await page.fill('#key-input', key);
  await page.click('#key-use');
  await page.locator('#key-status .ok').waitFor();
}

/** Load the try-it page of `t` and use its key. */
export async function openWithKey(page: Page, t: TestServer): Promise<void> {
  await page.goto(t.url + '/');
  await useKey(page, t.key);
}

/** Drop `bytes` as a file on the page's drop zone (a real DragEvent carrying a DataTransfer). */
export async function dropFile(page: Page, bytes: Uint8Array, name: string, type = 'image/png'): Promise<void> {
  await page.evaluate(`(() => {
    const bytes = Uint8Array.from(atob(${JSON.stringify(Buffer.from(bytes).toString('base64'))}), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], ${JSON.stringify(name)}, { type: ${JSON.stringify(type)} }));
    const zone = document.getElementById('drop');
    for (const t of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(t, { dataTransfer: dt, bubbles: true, cancelable: true }));
  })()`);
}

/** Click `target` (a selector or a locator) and take the download it starts: its suggested name and bytes. */
export async function download(page: Page, target: string | Locator, timeoutMs?: number): Promise<{ name: string; bytes: Buffer }> {
  const [d] = await Promise.all([
    page.waitForEvent('download', timeoutMs === undefined ? undefined : { timeout: timeoutMs }),
    typeof target === 'string' ? page.click(target) : target.click(),
  ]);
  return { name: d.suggestedFilename(), bytes: readFileSync((await d.path())!) };
}

/** Record the page's POSTs to `apiPath` (e.g. `/api/v1/underbase`) in `sent` until `stop()`. */
export function recordPosts(page: Page, apiPath: string): { sent: Request[]; stop(): void } {
  const sent: Request[] = [];
  const onRequest = (r: Request): void => void (r.method() === 'POST' && r.url().endsWith(apiPath) && sent.push(r));
  page.on('request', onRequest);
  return { sent, stop: () => void page.off('request', onRequest) };
}

/** The page's globals as the predicates below use them (the tests are type-checked without the DOM lib). */
interface PageGlobals {
  document: { querySelector(selector: string): { complete?: boolean; naturalWidth?: number; textContent?: string | null } | null };
}

/** Wait until the <img> matched by `selector` has decoded pixels. */
export async function loaded(page: Page, selector: string): Promise<void> {
  // A function, not a string: a string predicate would be eval'd inside the page, which its CSP forbids.
  await page.waitForFunction((sel) => {
    const i = (globalThis as unknown as PageGlobals).document.querySelector(sel);
    return !!i && !!i.complete && (i.naturalWidth ?? 0) > 0;
  }, selector, { timeout: 120_000 });
}

/** Wait until the text of `selector` matches `pattern`. */
export async function textMatches(page: Page, selector: string, pattern: RegExp): Promise<void> {
  await page.waitForFunction(([sel, src]) => new RegExp(src!).test((globalThis as unknown as PageGlobals).document.querySelector(sel!)?.textContent ?? ''), [selector, pattern.source]);
}

/** For afterEach: a failed test leaves a full-page picture, `<prefix><test name, at most nameChars>.png`. */
export async function screenshotIfFailed(ctx: TestContext, page: Page | undefined, prefix: string, nameChars = 50): Promise<void> {
  if (ctx.task.result?.state !== 'fail' || !page) return;
  await page.screenshot({ path: artifact(`${prefix}${ctx.task.name.replace(/\W+/g, '-').slice(0, nameChars)}.png`), fullPage: true }).catch(() => {});
}
