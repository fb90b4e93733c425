// The try-it page at GET / driven end to end in a real browser (Debian chromium through playwright-core)
// against a real server: paste the key, drop a corpus image, vectorize (the SVG preview is checked in a
// screenshot for the art's own colours), scan -> one-click fix, remove-bg over the checkerboard, upscale,
// mockup with its print-size numbers; a wrong key shows the API's 401 message and code; the key never
// reaches localStorage, sessionStorage or cookies; no CSP violation happens. Screenshots are written to
// test-artifacts/browser/. Skips, printing why, when chromium cannot start.
import { readFileSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page, Request, Response } from 'playwright-core';
import { Catalog } from '../../adapter-http/src/catalog/index.js';
import { useCatalog } from '../../adapter-http/src/routes/mockup.js';
import { startTestServer, until, type TestServer } from '../http/harness.js';
import { artifact, chromiumOrSkip, download, dropFile, loaded, openPage, screenshotIfFailed, textMatches, useKey } from './try-it.js';

// Blank garment renders are cached on disk across runs (shared with test/http/mockup.test.ts).

const browser = await chromiumOrSkip();

// A corpus logo: basketball, 3 flat colours on transparency (manifest palette).
const CORPUS = 'noto-1f3c0-basketball.svg';
const ORANGE: [number, number, number][] = [[0xef, 0x6c, 0x32], [0xdc, 0x58, 0x19]];
const DARK: [number, number, number] = [0x2d, 0x31, 0x30];

type RGB = [number, number, number];

/** Share of the screenshot's pixels within `tol` (max channel difference) of any of `colours`. */
async function share(png: Buffer, colours: RGB[], tol = 28): Promise<number> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let hit = 0;
  const n = info.width * info.height;
  for (let i = 0; i < n; i++) {
    const r = data[i * 3]!, g = data[i * 3 + 1]!, b = data[i * 3 + 2]!;
    if (colours.some(([cr, cg, cb]) => Math.abs(r - cr) <= tol && Math.abs(g - cg) <= tol && Math.abs(b - cb) <= tol)) hit++;
  }
  return hit / n;
}

/** The page's globals as the predicates below use them (this file is type-checked without the DOM lib). */
interface PageGlobals {
  document: { querySelectorAll(selector: string): Iterable<{ complete: boolean; naturalWidth: number }> };
  __csp: string[];
}

// The test timeout is the suite's (vitest.config.ts); loaded() waits up to 120 s for a picture: on a loaded
// 2-core machine a cold blank-garment render or the first vectorize can take long.
describe.skipIf(!browser)('try-it page in chromium', () => {
  let t: TestServer;
  let context: BrowserContext;
  let page: Page;
  let art: Uint8Array;
  let consoleLines: string[];

  beforeAll(async () => {
    useCatalog(new Catalog()); // own blanks only: no supplier network in tests
    t = await startTestServer();
    art = new Uint8Array(await sharp(readFileSync(new URL(`../../corpus/open/${CORPUS}`, import.meta.url)), { density: 72 })
      .resize(320, 320, { fit: 'inside' }).png().toBuffer());
    ({ context, page, consoleLines } = await openPage(browser!));
  });

  afterEach((ctx) => screenshotIfFailed(ctx, page, 'failed-', 60));

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    useCatalog(null);
    await t?.close();
  });

  it('a wrong key shows the API 401 message and code', async () => {
    const res = await page.goto(t.url + '/');
    expect(res!.status()).toBe(200);
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self'");
    // The server publishes its OpenAPI document: the page links it.
    await page.locator('#docs-links a[href="/api/v1/openapi.json"]').waitFor();
    await page.fill('#key-input', 'ink_not_a_real_key');
    await page.click('#key-use');
    const status = page.locator('#key-status .error');
    await status.waitFor();
    // Exactly what the API answers to that key, in its own words.
    const api = await fetch(t.url + '/api/v1/vectorize', { headers: { 'x-api-key': 'ink_not_a_real_key' } });
    const body = await api.json() as { error: string; code: string };
    expect(api.status).toBe(401);
    expect(await status.locator('.error-message').textContent()).toBe(body.error);
    expect(await status.locator('.error-code').textContent()).toBe(body.code);
    expect(body.code).toBe('unauthorized');
    expect(await status.textContent()).toContain('HTTP 401');
    await page.screenshot({ path: artifact('01-wrong-key.png') });
  });

  it('keyboard: the tabs follow the arrow keys, and the file chooser is reachable', async () => {
    await page.focus('#tab-scan');
    await page.keyboard.press('ArrowRight');
    expect(await page.getAttribute('#tab-vectorize', 'aria-selected')).toBe('true');
    expect(await page.evaluate('document.activeElement.id')).toBe('tab-vectorize');
    expect(await page.locator('#panel-vectorize').isVisible()).toBe(true);
    expect(await page.locator('#panel-scan').isHidden()).toBe(true);
    await page.keyboard.press('End');
    expect(await page.getAttribute('#tab-gangsheet', 'aria-selected')).toBe('true');
    await page.keyboard.press('Home');
    expect(await page.getAttribute('#tab-scan', 'aria-selected')).toBe('true');
    // The hidden-looking file input is a real, labelled, focusable control.
    await page.focus('#file-input');
    expect(await page.evaluate('document.activeElement.id')).toBe('file-input');
    expect(await page.locator('label[for=file-input]').count()).toBe(1);
  });

  it('with the key: limits, drop a corpus image, vectorize and see the SVG preview', async () => {
    await useKey(page, t.key);
    const limits = await page.locator('#limits').textContent();
    expect(limits).toContain('Vectorize queue');
    expect(limits).toMatch(/Queue\s*nobody waiting\s*Room for\s*\d+ waiting/);
    expect(limits).toMatch(/Daily allowance\s*(Unlimited \(fair use\)|\d+ of \d+ used today \(\d+ left\))/);
    // In plain words on screen; the API's names (fields, raw status reads) are one click away.
    const shown = await page.locator('#limits').innerText();
    expect(shown).not.toMatch(/uncapped|max_waiting|GET \/api/);
    expect(await page.locator('#limits dt[title="max_waiting"]').textContent()).toBe('Room for');
    await page.click('#limits details.technical summary');
    expect(await page.locator('#limits').innerText()).toMatch(/GET \/api\/v1\/vectorize\s*\{"queue":\{"converting":false/);

    await dropFile(page, art, 'basketball.png', 'image/png');
    await loaded(page, '#original-img');
    await textMatches(page, '#original-caption', /basketball\.png · 320 × 320 px/);

    await page.click('#tab-vectorize');
    await page.selectOption('#vectorize-form select[name=detail]', 'precise');
    // Someone else's conversion holds the line: the page shows the queue (GET /vectorize) while it waits.
    const held = await t.server.services.vectorizeQueue.acquire();
    try {
      await page.click('#vectorize-form button[type=submit]');
      await textMatches(page, '#vectorize-queue', /Waiting \d+ s · Queue: 1 ahead of you/);
      expect(await page.locator('#vectorize-queue').getAttribute('title')).toBe('GET /api/v1/vectorize: converting=true, waiting=1, max_waiting=8');
      await textMatches(page, '#limits', /Right now\s*converting a file\s*Queue\s*1 waiting\s*Room for\s*8 waiting/);
      await page.screenshot({ path: artifact('02-vectorize-waiting.png') });
    } finally {
      held.release();
    }
    await loaded(page, '[data-testid=svg-preview]');
    expect(await page.locator('#vectorize-queue').textContent()).toBe('');
    const out = page.locator('#vectorize-out');
    // A shop owner's words on screen: no header names, times in seconds.
    const visible = await out.innerText();
    expect(visible).toMatch(/Shapes\s*\d+/);
    expect(visible).toMatch(/Processing time\s*\d+(\.\d)? s/);
    expect(visible).toMatch(/Time in queue\s*(no wait|\d+(\.\d)? s)/);
    expect(visible).not.toMatch(/X-Trace-Ms|X-Queue-Ms|X-Paths|detail=precise/);
    expect(await out.locator('dt[title="X-Trace-Ms"]').textContent()).toBe('Processing time');
    // ... and the technical names one click away.
    await out.locator('details.technical summary').click();
    expect(await out.innerText()).toMatch(/X-Queue-Ms\s*[1-9]\d*/);
    expect(await out.innerText()).toContain('detail=precise');
    await out.locator('details.technical summary').click(); // folded again for the screenshots
    expect(await out.innerText()).not.toContain('X-Queue-Ms');
    expect(await out.locator('a[download$=".svg"]').count()).toBe(1);

    // The SVG really rendered: its pane shows the ball's own orange and dark line colours, not blank.
    await page.selectOption('#vectorize-out select[aria-label^=Zoom]', '1');
    const shot = await page.locator('[data-testid=svg-preview]').screenshot({ path: artifact('02-svg-preview.png') });
    expect(await share(shot, ORANGE)).toBeGreaterThan(0.25);
    expect(await share(shot, [DARK])).toBeGreaterThan(0.03);
    await page.screenshot({ path: artifact('03-vectorize.png'), fullPage: true });
    // Another output format of 4.8: DXF in millimetres, downloaded (no preview).
    await page.selectOption('#vectorize-form select[name=output_format]', 'dxf');
    await page.selectOption('#vectorize-form select[name=dxf_units]', 'mm');
    await page.click('#vectorize-form button[type=submit]');
    await out.locator('a[download$=".dxf"]').waitFor();
    expect(await out.textContent()).toContain('output_format=dxf, dxf_units=mm');
    const dxfText = (await download(page, out.locator('a[download$=".dxf"]'))).bytes.toString('utf8');
    expect(dxfText).toMatch(/^\s*0\s*\r?\nSECTION/);
    expect(dxfText).toContain('POLYLINE');
    expect(dxfText).toMatch(/\$INSUNITS\s*\r?\n\s*70\s*\r?\n\s*4\b/); // 4 = millimetres
    await page.selectOption('#vectorize-form select[name=output_format]', 'svg');
    await page.click('#vectorize-form button[type=submit]');
    await loaded(page, '[data-testid=svg-preview]');
    // The toggle shows one side alone.
    await page.selectOption('#vectorize-out select[aria-label^=Show]', { label: 'SVG only' });
    expect(await page.locator('#vectorize-out figure.pane').first().isHidden()).toBe(true);
    expect(await page.locator('[data-testid=svg-preview]').isVisible()).toBe(true);
    await page.selectOption('#vectorize-out select[aria-label^=Show]', { label: 'Side by side' });

    // The download is the API's SVG.
    const svg = await download(page, out.locator('a[download$=".svg"]'));
    expect(svg.name).toBe('basketball.svg');
    const svgText = svg.bytes.toString('utf8');
    expect(svgText).toMatch(/<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svgText).toContain('<path');
  });

  it('scan shows the checklist, and the one-click fix gives an after image', async () => {
    // The same art with softened edges (a 1.5 px blur): the scan recommends "either" transparency fix.
    const soft = new Uint8Array(await sharp(art).blur(1.5).png().toBuffer());
    await dropFile(page, soft, 'basketball-soft.png', 'image/png');
    await textMatches(page, '#original-caption', /basketball-soft\.png · 320/);
    await page.click('#tab-scan');
    await page.fill('#scan-form input[name=print_width_inches]', '4');
    await page.click('#scan-form button[type=submit]');
    const report = page.locator('[data-testid=scan-report]');
    await report.waitFor();
    expect(await report.locator('.checklist li[data-code=low_resolution]').count()).toBe(1);
    expect(await report.locator('.checklist li[data-code=soft_edges]').count()).toBe(1);
    expect(await report.locator('.recommend').textContent()).toContain('Recommended transparency fix: either');
    expect(await report.locator('.suggestion input[data-field=fix_trim]').isChecked()).toBe(true);
    expect(await report.locator('.suggestion input[data-field=fix_alpha_threshold]').isChecked()).toBe(true);
    // Plain words on screen, the form fields as tooltips.
    expect(await report.innerText()).not.toMatch(/fix_trim|fix_alpha_threshold|low_resolution/);
    expect(await report.locator('.suggestion label[title^="fix_trim="]').count()).toBe(1);
    await page.screenshot({ path: artifact('04-scan.png'), fullPage: true });

    // "either": take halftone dots instead of the cut, then one click.
    await report.locator('input[name=either][value=halftone]').check();
    await page.click('#fix-apply');
    await loaded(page, '[data-testid=fix-after]');
    // fix_trim + resize to 300 DPI at 4 in: the after image is the trimmed art, resized.
    const size = await page.evaluate(`(() => { const i = document.querySelector('[data-testid=fix-after]'); return [i.naturalWidth, i.naturalHeight]; })()`) as number[];
    expect(size[0]).toBeGreaterThan(320);
    await page.selectOption('#scan-out select[aria-label^=Zoom]', '1');
    // 100 %: one image pixel per screen pixel (device scale 1 here).
    const shown = await page.locator('[data-testid=fix-after]').boundingBox();
    expect(Math.round(shown!.width)).toBe(size[0]);
    const after = await page.locator('[data-testid=fix-after]').screenshot({ path: artifact('05-fix-after.png') });
    expect(await share(after, ORANGE)).toBeGreaterThan(0.2);
    await page.selectOption('#scan-out select[aria-label^=Zoom]', 'fit');
    await page.screenshot({ path: artifact('06-fix.png'), fullPage: true });
    expect(await page.locator('#scan-out').textContent()).toContain('fix_halftone=true');
    // The downloaded PNG is the halftoned fix: every pixel fully opaque or fully transparent.
    const fixed = await download(page, page.locator('#scan-out a[download$="-fixed.png"]'));
    const { data, info } = await sharp(fixed.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual(size);
    let semi = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0 && data[i]! < 255) semi++;
    expect(semi).toBe(0);
    // Back to the corpus image for the next tools.
    await dropFile(page, art, 'basketball.png', 'image/png');
    await textMatches(page, '#original-caption', /basketball\.png · 320/);
  });

  it('the page sends one Idempotency-Key per action: the same scan again is replayed and counted once', async () => {
    const sent: (string | undefined)[] = [];
    const answers: { replayed: string | undefined; remaining: number }[] = [];
    const isScan = (r: Request): boolean => r.method() === 'POST' && r.url().endsWith('/api/v1/scan');
    const onRequest = (r: Request): void => void (isScan(r) && sent.push(r.headers()['idempotency-key']));
    const onResponse = (r: Response): void => void (isScan(r.request()) && answers.push({ replayed: r.headers()['idempotent-replayed'], remaining: Number(r.headers()['x-ratelimit-remaining']) }));
    page.on('request', onRequest);
    page.on('response', onResponse);
    try {
      await page.click('#tab-scan');
      for (const [i, width] of ['6', '6', '7'].entries()) {
        await page.fill('#scan-form input[name=print_width_inches]', width);
        await page.click('#scan-form button[type=submit]'); // waits until the button is enabled (the previous scan done)
        await until(() => answers.length === i + 1, 60_000, `scan answer ${i + 1}`);
      }
    } finally {
      page.off('request', onRequest);
      page.off('response', onResponse);
    }
    expect(sent[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(sent[1]).toBe(sent[0]); // the same file and fields: the same action
    expect(sent[2]).not.toBe(sent[0]); // other fields: a new action
    expect(answers.map((a) => a.replayed)).toEqual([undefined, 'true', undefined]);
    // Two scans charged one use: the third (new) action has exactly one use fewer left than the first.
    expect(answers[2]!.remaining).toBe(answers[0]!.remaining - 1);
  });

  it('remove-bg shows the result over a checkerboard and over the garment colour', async () => {
    // The corpus' customer-upload form: the art flattened on white, as a JPEG.
    const jpeg = new Uint8Array(await sharp(art).flatten({ background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer());
    await dropFile(page, jpeg, 'basketball.jpg', 'image/jpeg');
    await textMatches(page, '#original-caption', /basketball\.jpg · 320/);
    await page.click('#tab-removebg');
    await page.click('#removebg-form button[type=submit]');
    await loaded(page, '[data-testid=removebg-checker]');
    await loaded(page, '[data-testid=removebg-garment]');
    const checkerPane = page.locator('.viewport.checker:has([data-testid=removebg-checker])');
    expect(await checkerPane.count()).toBe(1);
    const shot = await checkerPane.screenshot({ path: artifact('07-removebg-checker.png') });
    expect(await share(shot, ORANGE)).toBeGreaterThan(0.1);
    expect(await share(shot, [[0xd9, 0xdc, 0xe0]], 6)).toBeGreaterThan(0.02); // the checkerboard shows through
    const garment = await page.locator('.viewport:has([data-testid=removebg-garment])').screenshot();
    expect(await share(garment, [[0x1d, 0x35, 0x57]], 6)).toBeGreaterThan(0.05); // default navy garment
    expect(await page.locator('#removebg-out').innerText()).toMatch(/How\s*cut around the artwork/);
    expect(await page.locator('#removebg-out').textContent()).toMatch(/X-Method\s*matte/);
    await page.screenshot({ path: artifact('08-removebg.png'), fullPage: true });
    // The cut-out becomes the image of the next tools.
    await page.click('#removebg-out button.secondary');
    await textMatches(page, '#original-caption', /basketball-cutout\.png/);
  });

  it('upscale gives a download link to the result', async () => {
    await page.click('#tab-upscale');
    await page.selectOption('#upscale-form select[name=scale]', '2');
    await page.click('#upscale-form button[type=submit]');
    const link = page.locator('[data-testid=upscale-download]');
    await link.waitFor();
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\/api\/v1\/upscale\/results\//);
    const got = await page.evaluate(`fetch(${JSON.stringify(href)}).then((r) => [r.status, r.headers.get('content-type')])`);
    expect(got).toEqual([200, 'image/png']);
  });

  it('mockup: garment search, style, then the image with its print size and warnings', async () => {
    await page.click('#tab-mockup');
    expect(await page.locator('#mockup-form').isHidden()).toBe(true); // nothing to render before a garment is chosen
    await page.click('#garment-search button[type=submit]');
    await page.locator('#garment-results input[value="own:classic-tee"]').check();
    await page.locator('#mockup-form').waitFor({ state: 'visible' });
    expect(await page.locator('#mockup-form select[name=placement] option').count()).toBeGreaterThan(1);
    await page.selectOption('#mockup-form select[name=size]', { index: 2 });
    await page.fill('#mockup-form input[name=print_width_in]', '10');
    await page.selectOption('#mockup-form select[name=output_size]', '800');
    await page.selectOption('#mockup-form select[name=preview_fix]', 'alpha_threshold');
    await page.click('#mockup-form button[type=submit]');
    await loaded(page, '[data-testid=mockup-image]');
    expect(await page.locator('[data-testid=print-size]').textContent()).toMatch(/^10 × 10 in$/);
    const text = await page.locator('#mockup-out').textContent();
    expect(text).toContain('Effective DPI');
    expect(text).toContain('low_dpi'); // 320 px over 10 in (a warning's code: its tooltip and in the technical details)
    const visibleText = await page.locator('#mockup-out').innerText();
    expect(visibleText).toMatch(/Previewed fix\s*cut the soft edge/);
    expect(visibleText).not.toMatch(/low_dpi/); // (a warning's message may name a fix field: the engine's words)
    expect(await page.locator('#mockup-out li.warning[title=low_dpi]').count()).toBe(1);
    const shot = await page.locator('[data-testid=mockup-image]').screenshot();
    expect(await share(shot, ORANGE, 40)).toBeGreaterThan(0.01);
    await page.screenshot({ path: artifact('09-mockup.png'), fullPage: true });
  });

  it('mockup: "All colours" renders every colour of the style in one batch and shows the hosted images', async () => {
    // (the garment chosen and the form filled by the test above)
    const colours = await page.locator('#mockup-form select[name=color] option').count();
    expect(colours).toBe(10);
    await page.click('#mockup-all-colours');
    await page.waitForFunction((n) => {
      const imgs = [...(globalThis as unknown as PageGlobals).document.querySelectorAll('[data-testid=mockup-grid-image]')];
      return imgs.length === n && imgs.every((i) => i.complete && i.naturalWidth > 0);
    }, colours, { timeout: 180_000 });
    const captions = await page.locator('[data-testid=mockup-grid] figcaption').allTextContents();
    expect(captions.map((c) => c.split(' · ')[0])).toEqual(await page.locator('#mockup-form select[name=color] option').evaluateAll((os) => os.map((o) => (o.textContent ?? '').replace(/ #[0-9a-f]{6}$/i, ''))));
    expect(await page.locator('#mockup-out').textContent()).toContain('10 mockups, one use each');
    const shot = await page.locator('[data-testid=mockup-grid-image]').first().screenshot();
    expect(await share(shot, ORANGE, 40)).toBeGreaterThan(0.01);
    await page.screenshot({ path: artifact('09b-mockup-all-colours.png'), fullPage: true });
  });

  it('an API error is shown in its own words: message, code and status', async () => {
    const webp = new Uint8Array(await sharp(art).webp().toBuffer());
    await dropFile(page, webp, 'basketball.webp', 'image/webp');
    await textMatches(page, '#original-caption', /basketball\.webp · 320/);
    await page.click('#tab-upscale');
    await page.click('#upscale-form button[type=submit]');
    const box = page.locator('#upscale-out .error');
    await box.waitFor();
    const f = new FormData();
    f.append('image', new Blob([webp]), 'basketball.webp');
    const api = await fetch(t.url + '/api/v1/upscale', { method: 'POST', body: f, headers: { 'x-api-key': t.key } });
    const body = await api.json() as { error: string; code: string };
    expect(api.status).toBe(400);
    expect(await box.locator('.error-message').textContent()).toBe(body.error);
    expect(await box.locator('.error-code').textContent()).toBe(body.code);
    expect(await box.textContent()).toContain('HTTP 400');
    await page.screenshot({ path: artifact('10-error.png') });
  });

  it('the key stays in memory: no storage, no cookie; no CSP violation on the way', async () => {
    const stored = await page.evaluate(`JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage), document.cookie])`) as string;
    expect(stored).not.toContain(t.key);
    expect(stored).toBe('[[],[],""]');
    expect(await page.evaluate('window.__csp')).toEqual([]);
    expect(consoleLines.filter((l) => /Content Security Policy|pageerror/i.test(l))).toEqual([]);
  });

  it('the CSP is enforced: a third-party image and an inline script are refused', async () => {
    await page.evaluate(`(() => {
      const img = document.createElement('img'); img.src = 'https://example.com/x.png'; document.body.append(img);
      const s = document.createElement('script'); s.textContent = 'window.__inline = 1'; document.body.append(s);
    })()`);
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).__csp.length >= 2, undefined, { timeout: 10_000 });
    const v = await page.evaluate('window.__csp') as string[];
    expect(v.some((x) => x.startsWith('img-src') && x.includes('example.com'))).toBe(true);
    expect(v.some((x) => x.startsWith('script-src'))).toBe(true);
    expect(await page.evaluate('window.__inline')).toBeUndefined();
  });
});

// Keep the artefact folder's purpose visible to whoever opens it.
if (browser) writeFileSync(artifact('README.txt'), 'Screenshots from test/browser/page.test.ts (regenerated on every run).\n');
