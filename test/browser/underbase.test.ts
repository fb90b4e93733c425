// The try-it page's Underbase tab in a real browser (Debian chromium through playwright-core) against a real
// server: paste the key, drop a generated PNG (a red block, a 3 px red hairline, a black bar on a black shirt
// and a 4 px black stripe inside a yellow block), pick the shirt colour from the own catalogue, run it, and
// check that the white plate and the colour plate load, that the composite canvas holds the shirt, the red
// art and the warning boxes, that the numbers are the API's own, that the hairline and the narrow knock-out
// are warned about in plain words, and that the separation PDF downloads. Screenshots go to
// test-artifacts/browser/. Skips, printing why, when chromium cannot start.
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { Catalog } from '../../adapter-http/src/catalog/index.js';
import { useCatalog } from '../../adapter-http/src/routes/mockup.js';
import { startTestServer, type TestServer } from '../http/harness.js';
import { artifact, chromiumOrSkip, download, dropFile, loaded, openPage, openWithKey, recordPosts, screenshotIfFailed } from './try-it.js';

const browser = await chromiumOrSkip();

const BLACK_SHIRT = '#1b1b1d'; // the own catalogue's Black
const RED = '#e63946';

// 600 x 400 px at 2 in wide = 300 DPI: 1 pt is 4.2 px, so the 3 px hairline's white (choked by 0.1 mm) is too
// thin, and the 4 px black stripe knocked out of the yellow is a gap under 2 pt (8.3 px).
const ART_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400">
  <rect x="40" y="40" width="300" height="200" fill="${RED}"/>
  <rect x="380" y="40" width="3" height="300" fill="${RED}"/>
  <rect x="60" y="280" width="260" height="80" fill="${BLACK_SHIRT}"/>
  <rect x="420" y="40" width="140" height="300" fill="#f1c40f"/>
  <rect x="488" y="40" width="4" height="300" fill="${BLACK_SHIRT}"/>
</svg>`;

interface UnderbaseJson {
  white_ink_sq_in: number;
  color_ink_sq_in: number;
  white_coverage_percent: number;
  knocked_out_sq_in: number;
  warnings: { code: string; boxes: unknown[] }[];
}

/** Pixels of the composite canvas near each of `colours` (max channel difference 12), and its size. */
async function canvasCounts(page: Page, colours: string[]): Promise<{ width: number; height: number; counts: number[] }> {
  return await page.evaluate(`(() => {
    const c = document.querySelector('[data-testid=underbase-composite]');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const want = ${JSON.stringify(colours)}.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
    const counts = want.map(() => 0);
    for (let i = 0; i < d.length; i += 4) {
      want.forEach((w, k) => {
        if (Math.abs(d[i] - w[0]) <= 12 && Math.abs(d[i + 1] - w[1]) <= 12 && Math.abs(d[i + 2] - w[2]) <= 12) counts[k]++;
      });
    }
    return { width: c.width, height: c.height, counts };
  })()`) as { width: number; height: number; counts: number[] };
}

describe.skipIf(!browser)('try-it page: underbase tab in chromium', () => {
  let t: TestServer;
  let context: BrowserContext;
  let page: Page;
  let art: Uint8Array;
  let consoleLines: string[];

  beforeAll(async () => {
    useCatalog(new Catalog()); // own blanks only: no supplier network in tests
    t = await startTestServer();
    art = new Uint8Array(await sharp(Buffer.from(ART_SVG)).png().toBuffer());
    ({ context, page, consoleLines } = await openPage(browser!));
  });

  afterEach((ctx) => screenshotIfFailed(ctx, page, 'failed-underbase-'));

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    useCatalog(null);
    await t?.close();
  });

  it('plates, the composite with the warning boxes, the numbers, the warnings and the PDF', async () => {
    await openWithKey(page, t);
    await dropFile(page, art, 'hairline.png');
    await loaded(page, '#original-img');

    // The shirt colours are the own catalogue's; picking one sets the colour box.
    await page.click('#tab-underbase');
    expect(await page.locator('#panel-underbase').isVisible()).toBe(true);
    await page.locator('#underbase-swatches button.swatch').first().waitFor();
    expect(await page.locator('#underbase-swatches button.swatch').count()).toBeGreaterThan(3);
    await page.fill('#underbase-form input[name=garment_color]', '#ffffff');
    await page.locator('#underbase-swatches button.swatch', { hasText: /^Black$/ }).click();
    expect(await page.inputValue('#underbase-form input[name=garment_color]')).toBe(BLACK_SHIRT);
    expect(await page.getAttribute('#underbase-swatches button.swatch[data-hex="#1b1b1d"]', 'aria-pressed')).toBe('true');

    await page.fill('#underbase-form input[name=print_width_inches]', '2');
    await page.selectOption('#underbase-form select[name=knockout]', 'garment');
    await page.fill('#underbase-form input[name=white_density]', '100');
    await page.fill('#underbase-form input[name=highlight_white]', '0');
    await page.fill('#underbase-form input[name=choke_mm]', '0.1');

    const { sent, stop } = recordPosts(page, '/api/v1/underbase');
    await page.click('#underbase-form button[type=submit]');
    await loaded(page, '[data-testid=underbase-white]');
    await loaded(page, '[data-testid=underbase-colour]');
    await page.locator('[data-testid=underbase-composite]').waitFor();

    // The page's usual headers: the key and an Idempotency-Key. (Chromium does not report a multipart body
    // that holds a file, so the fields are checked by their effect: the numbers below are the API's answer to
    // these fields, and the technical details list them.)
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers()['x-api-key']).toBe(t.key);
    expect(sent[0]!.headers()['idempotency-key']).toMatch(/^[0-9a-f]{32}$/);

    // The plates are the art's size; the composite is drawn at it, with a margin of shirt (6 % of 600 px).
    const sizes = await page.evaluate(`[...document.querySelectorAll('[data-testid=underbase-white], [data-testid=underbase-colour]')].map((i) => [i.naturalWidth, i.naturalHeight])`);
    expect(sizes).toEqual([[600, 400], [600, 400]]);
    // The composite: the black shirt shows (around the art and through the knocked-out black bar), the red
    // art is printed over white, and the warning boxes (pink: thin white, cyan: narrow gap) are drawn.
    const c = await canvasCounts(page, [BLACK_SHIRT, RED, '#ff2d95', '#00c2ff']);
    expect([c.width, c.height]).toEqual([672, 472]);
    const [shirt, red, pink, cyan] = c.counts as [number, number, number, number];
    expect(shirt / (672 * 472)).toBeGreaterThan(0.4);
    expect(red).toBeGreaterThan(300 * 200 * 0.9);
    expect(pink).toBeGreaterThan(100);
    expect(cyan).toBeGreaterThan(100);

    // The numbers are the API's own for the same request.
    const form = new FormData();
    form.append('image', new Blob([art]), 'hairline.png');
    for (const [k, v] of Object.entries({ garment_color: BLACK_SHIRT, print_width_inches: '2', knockout: 'garment', choke_mm: '0.1', white_density: '100', highlight_white: '0', format: 'json' })) form.append(k, v);
    const api = await (await fetch(t.url + '/api/v1/underbase', { method: 'POST', body: form, headers: { 'x-api-key': t.key } })).json() as UnderbaseJson;
    const out = page.locator('#underbase-out');
    const shown = await out.innerText();
    expect(shown).toContain(`White ink\n${api.white_ink_sq_in} sq in`);
    expect(shown).toContain(`Colour ink\n${api.color_ink_sq_in} sq in`);
    expect(shown).toContain(`White covers\n${api.white_coverage_percent} % of the print area`);
    expect(shown).toContain(`Left bare (shirt shows)\n${api.knocked_out_sq_in} sq in`);
    expect(api.knocked_out_sq_in).toBeGreaterThan(0);
    expect(await out.locator('dt[title=white_ink_sq_in]').textContent()).toBe('White ink');

    // The warnings: in plain words on screen, the codes as tooltips and in the technical details.
    expect(api.warnings.map((w) => w.code).sort()).toEqual(['knockout_gap_too_narrow', 'white_too_thin']);
    const thin = out.locator('li.warning[data-code=white_too_thin]');
    expect(await thin.getAttribute('title')).toBe('white_too_thin');
    expect(await thin.innerText()).toMatch(/white line is too thin to hold on the film.*Marked on the shirt picture/);
    expect(await out.locator('li.warning[data-code=knockout_gap_too_narrow]').innerText()).toMatch(/gap where the shirt shows through is too narrow/);
    expect(shown).not.toMatch(/white_too_thin|choke_mm|knockout=none|sq_in/);
    await out.locator('details.technical summary').click();
    expect(await out.innerText()).toMatch(/fields sent\s*garment_color=#1b1b1d, print_width_inches=2, choke_mm=0\.1, knockout=garment, white_density=100, highlight_white=0\n/);
    await out.locator('details.technical summary').click();
    await page.screenshot({ path: artifact('11-underbase.png'), fullPage: true });

    // The separation PDF: the same request with format=pdf, saved as a file.
    const { name, bytes: pdf } = await download(page, '[data-testid=underbase-pdf]', 120_000);
    stop();
    expect(name).toBe('hairline-underbase.pdf');
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.toString('latin1')).toContain('/Separation');
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers()['idempotency-key']).not.toBe(sent[0]!.headers()['idempotency-key']);
    expect(await page.locator('[data-testid=underbase-pdf-status]').textContent()).toMatch(/^Saved hairline-underbase\.pdf/);
  });

  it('clean art on a white shirt, soft edge cut: no warnings, and no CSP violation or page error on the way', async () => {
    const clean = new Uint8Array(await sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><circle cx="150" cy="100" r="80" fill="${RED}"/></svg>`) }])
      .png().toBuffer());
    await dropFile(page, clean, 'dot.png');
    await page.locator('#underbase-swatches button.swatch', { hasText: /^White$/ }).click();
    // The dot's anti-aliased edge is semi-transparent: cut it first, or it would be warned about.
    await page.selectOption('#underbase-form select[name=soft_fix]', 'alpha_threshold');
    await page.click('#underbase-form button[type=submit]');
    await page.locator('#underbase-out p.help', { hasText: 'None' }).waitFor({ timeout: 120_000 });
    expect(await page.locator('#underbase-out li.warning').count()).toBe(0);
    const c = await canvasCounts(page, ['#f6f6f3', RED]);
    expect([c.width, c.height]).toEqual([336, 236]); // 300 x 200 and 18 px of shirt around
    expect(c.counts[0]! / (336 * 236)).toBeGreaterThan(0.5); // the white shirt around the dot
    expect(c.counts[1]! / (336 * 236)).toBeGreaterThan(0.2); // the dot (pi * 80^2 / 79296 = 0.25)
    expect(await page.evaluate('window.__csp')).toEqual([]);
    expect(consoleLines.filter((l) => /Content Security Policy|pageerror|^error/i.test(l))).toEqual([]);
  });
});
