// The try-it page's Gang sheet tab in a real browser (Debian chromium through playwright-core) against a real
// server: paste the key, add two designs through the file chooser (several files at once), set their copies
// and widths, pick the film width, turn the white layer on, make the sheet, and check that the preview and
// the white plate load on the same pixel grid, that the summary numbers and the per-design table are the
// API's own manifest, and that the PDF with the White separation downloads. Then the shirt picked from the
// catalogue's swatches: sent as style + color, the same white as its hex; the colour box again sends the hex.
// Then the white layer off: one PNG, no white pane. Screenshots go to test-artifacts/browser/. Skips, printing why, when chromium cannot start.
import sharp from 'sharp';
import { OWN_STYLES } from '@inkprep/engine';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../http/harness.js';
import { artifact, chromiumOrSkip, download, loaded, openPage, openWithKey, recordPosts, screenshotIfFailed } from './try-it.js';

const browser = await chromiumOrSkip();

// 300 px designs: at 2.5 in wide they are 120 DPI (under the 150 a DTF print needs: a low_resolution warning
// each), the sheet's PNG too.
const DISC_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><circle cx="150" cy="150" r="140" fill="#1f6fd1"/></svg>';
const BADGE_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><rect x="10" y="10" width="280" height="180" fill="#e63946"/><rect x="40" y="90" width="220" height="20" fill="#1b1b1d"/></svg>';

interface Manifest {
  sheets: { width_in: number; length_in: number }[];
  utilisation: number;
  ink_sq_in: number;
  placements: { item: number }[];
  white: { spot_name: string; white_ink_sq_in: number; choke_mm: number; garment_color: string | null; garment_source: string | null } | null;
}

describe.skipIf(!browser)('try-it page: gang sheet tab in chromium', () => {
  let t: TestServer;
  let context: BrowserContext;
  let page: Page;
  let disc: Buffer;
  let badge: Buffer;
  let consoleLines: string[];

  beforeAll(async () => {
    t = await startTestServer();
    disc = await sharp(Buffer.from(DISC_SVG)).png().toBuffer();
    badge = await sharp(Buffer.from(BADGE_SVG)).png().toBuffer();
    ({ context, page, consoleLines } = await openPage(browser!));
  });

  afterEach((ctx) => screenshotIfFailed(ctx, page, 'failed-gangsheet-'));

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('designs with copies and widths, the white layer, the preview and white plate, the manifest\'s numbers and the PDF', async () => {
    await openWithKey(page, t);
    await page.click('#tab-gangsheet');
    expect(await page.locator('#panel-gangsheet').isVisible()).toBe(true);

    // Two designs at once through the chooser, then their copies and widths.
    await page.setInputFiles('#gangsheet-files', [
      { name: 'disc.png', mimeType: 'image/png', buffer: disc },
      { name: 'badge.png', mimeType: 'image/png', buffer: badge },
    ]);
    const rows = page.locator('[data-testid=gangsheet-design]');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await page.locator('#gangsheet-empty').isHidden()).toBe(true);
    await rows.nth(0).locator('input[name=quantity]').fill('4');
    await rows.nth(0).locator('input[name=width_in]').fill('2.5');
    await rows.nth(1).locator('input[name=quantity]').fill('3');
    await rows.nth(1).locator('input[name=width_in]').fill('2.5');
    await page.selectOption('#gangsheet-form select[name=sheet_width_in]', '11');
    expect(await page.locator('#gangsheet-white-options input[name=choke_mm]').isDisabled()).toBe(true);
    await page.check('#gangsheet-form input[name=underbase]');
    expect(await page.locator('#gangsheet-white-options input[name=choke_mm]').isDisabled()).toBe(false);
    await page.fill('#gangsheet-form input[name=garment_color]', '#1b1b1d');
    await page.fill('#gangsheet-form input[name=choke_mm]', '0.2');

    const { sent, stop } = recordPosts(page, '/api/v1/gangsheet');
    await page.click('#gangsheet-form button[type=submit]');
    await loaded(page, '[data-testid=gangsheet-preview]');
    await loaded(page, '[data-testid=gangsheet-white]');
    expect(sent).toHaveLength(2); // the manifest, then the picture
    expect(sent[0]!.headers()['idempotency-key']).not.toBe(sent[1]!.headers()['idempotency-key']);

    // The colour sheet and its white plate: one pixel grid, the film's width at the art's 120 DPI.
    const sizes = await page.evaluate(`[...document.querySelectorAll('[data-testid=gangsheet-preview], [data-testid=gangsheet-white]')].map((i) => [i.naturalWidth, i.naturalHeight])`) as [number, number][];
    expect(sizes[0]![0]).toBe(11 * 120);
    expect(sizes[1]).toEqual(sizes[0]);

    // The numbers are the API's manifest for the same order.
    const form = new FormData();
    form.append('design', new Blob([disc]), 'disc.png');
    form.append('design', new Blob([badge]), 'badge.png');
    const fields = { items: JSON.stringify([{ design: 0, quantity: 4, width_in: 2.5 }, { design: 1, quantity: 3, width_in: 2.5 }]), sheet_width_in: '11', rotation: 'any', underbase: 'true', garment_color: '#1b1b1d', knockout: 'garment', choke_mm: '0.2', format: 'json' };
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const api = await (await fetch(t.url + '/api/v1/gangsheet', { method: 'POST', body: form, headers: { 'x-api-key': t.key } })).json() as Manifest;
    const summary = await page.locator('[data-testid=gangsheet-summary]').innerText();
    expect(summary).toContain(`Length to cut\n${api.sheets[0]!.length_in} in`);
    expect(summary).toContain('Copies\n7');
    expect(summary).toContain(`Film used by ink\n${(api.utilisation * 100).toFixed(1)} %`);
    expect(summary).toContain(`White layer\nWhite separation, ${api.white!.white_ink_sq_in} sq in of white, pulled in 0.2 mm`);
    const table = await page.locator('[data-testid=gangsheet-items]').innerText();
    expect(table).toMatch(/disc\.png\s+2\.5 in\s+4\s+4/);
    expect(table).toMatch(/badge\.png\s+2\.5 in\s+3\s+3/);
    // 120 DPI art: warned per design in plain words
    expect(await page.locator('[data-testid=gangsheet-warnings] li[data-code=low_resolution]').count()).toBe(2);
    expect(await page.locator('[data-testid=gangsheet-warnings]').innerText()).toMatch(/disc\.png: The art is only 120 DPI/);
    await page.screenshot({ path: artifact('12-gangsheet.png'), fullPage: true });

    // The PDF: the same order as format=pdf, with the White separation.
    const { name, bytes: pdf } = await download(page, '[data-testid=gangsheet-pdf]', 120_000);
    stop();
    expect(name).toBe('disc-gangsheet.pdf');
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.toString('latin1').match(/\/Separation \/White /g)).toHaveLength(2);
    expect(sent).toHaveLength(3);
    await expect.poll(() => page.locator('[data-testid=gangsheet-pdf-status]').textContent()).toMatch(/^Saved disc-gangsheet\.pdf .*1 page .*spot colour/);
  });

  it('a shirt from the catalogue\'s swatches is sent as style + color and makes the white its hex makes', async () => {
    const navy = OWN_STYLES.find((st) => st.id === 'classic-tee')!.colors.find((c) => c.id === 'navy')!.hex;
    const swatches = page.locator('#gangsheet-swatches button');
    await expect.poll(() => swatches.count()).toBeGreaterThan(1);
    await page.click('#gangsheet-swatches button[data-color=navy]');
    expect(await page.getAttribute('#gangsheet-swatches button[data-color=navy]', 'aria-pressed')).toBe('true');
    expect(await page.inputValue('#gangsheet-form input[name=garment_color]')).toBe(navy);
    await page.click('#gangsheet-form button[type=submit]');
    await page.locator('[data-testid=gangsheet-summary]', { hasText: /Shirt\s*own:classic-tee:navy/ }).waitFor({ timeout: 120_000 });
    await loaded(page, '[data-testid=gangsheet-white]');
    // the fields the page sent, as its technical details list them (the request's multipart body is not
    // readable through playwright once it carries files)
    const sentFields = () => page.locator('#gangsheet-out details.technical').textContent();
    expect(await sentFields()).toMatch(/underbase=true, style=own:classic-tee, color=navy, knockout=garment/);
    expect(await sentFields()).not.toContain('garment_color=');
    // the same order with the hex: the same white ink, as the page shows it
    const form = new FormData();
    form.append('design', new Blob([disc]), 'disc.png');
    form.append('design', new Blob([badge]), 'badge.png');
    const fields = { items: JSON.stringify([{ design: 0, quantity: 4, width_in: 2.5 }, { design: 1, quantity: 3, width_in: 2.5 }]), sheet_width_in: '11', rotation: 'any', underbase: 'true', garment_color: navy, knockout: 'garment', choke_mm: '0.2', format: 'json' };
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const api = await (await fetch(t.url + '/api/v1/gangsheet', { method: 'POST', body: form, headers: { 'x-api-key': t.key } })).json() as Manifest;
    const summary = await page.locator('[data-testid=gangsheet-summary]').innerText();
    expect(summary).toContain(`White separation, ${api.white!.white_ink_sq_in} sq in of white`);
    expect(summary).toContain(`Shirt\nown:classic-tee:navy (${navy})`);
    await page.screenshot({ path: artifact('12b-gangsheet-catalogue-shirt.png'), fullPage: true });

    // a colour of one's own in the colour box: the swatch is let go and the hex is sent
    await page.fill('#gangsheet-form input[name=garment_color]', '#336699');
    expect(await page.getAttribute('#gangsheet-swatches button[data-color=navy]', 'aria-pressed')).toBe('false');
    await page.click('#gangsheet-form button[type=submit]');
    await page.locator('[data-testid=gangsheet-summary]', { hasText: /Shirt\s*#336699/ }).waitFor({ timeout: 120_000 });
    expect(await sentFields()).toMatch(/underbase=true, garment_color=#336699, knockout=garment/);
    expect(await sentFields()).not.toContain('style=');
  });

  it('without the white layer: one PNG, no white plate; a removed design leaves the order; no CSP violation or page error', async () => {
    await page.uncheck('#gangsheet-form input[name=underbase]');
    await page.locator('[data-testid=gangsheet-design]').nth(1).locator('button').click();
    await expect.poll(() => page.locator('[data-testid=gangsheet-design]').count()).toBe(1);
    await page.click('#gangsheet-form button[type=submit]');
    await page.locator('[data-testid=gangsheet-summary]', { hasText: /White layer\s*none/ }).waitFor({ timeout: 120_000 });
    await loaded(page, '[data-testid=gangsheet-preview]');
    expect(await page.locator('[data-testid=gangsheet-white]').count()).toBe(0);
    expect(await page.locator('[data-testid=gangsheet-summary]').innerText()).toContain('Copies\n4');
    expect(await page.evaluate('window.__csp')).toEqual([]);
    expect(consoleLines.filter((l) => /Content Security Policy|pageerror|^error/i.test(l))).toEqual([]);
  });
});
