// POST /api/v1/underbase over real HTTP: the separation PDF, the white plate PNG and the JSON answer with both
// plates, the numbers in X- headers, metering like fix (the daily counter moves by one per call), and 400
// invalid_option naming the field.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, post, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
let art: Uint8Array;
beforeAll(async () => {
  t = await startTestServer();
  // 100 x 100 px: a 60 px red square on transparency with a black 10 px bar inside it
  const w = 100;
  const d = Buffer.alloc(w * w * 4);
  for (let y = 20; y < 80; y++) for (let x = 20; x < 80; x++) d.set(x >= 45 && x < 55 ? [0, 0, 0, 255] : [220, 20, 30, 255], (y * w + x) * 4);
  art = new Uint8Array(await sharp(d, { raw: { width: w, height: w, channels: 4 } }).png().toBuffer());
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/v1/underbase', () => {
  it('answers a separation PDF at the print size with the numbers in headers, counted like fix', async () => {
    const res = await post(t, '/api/v1/underbase', form(art, { garment_color: '#000000', print_width_inches: '1', choke_mm: '0' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const pdf = Buffer.from(res.bytes).toString('latin1');
    expect(pdf.startsWith('%PDF-1.4')).toBe(true);
    expect(pdf).toContain('/MediaBox [0 0 72 72]');
    expect(pdf).toContain('/Separation /White /DeviceCMYK');
    // the black bar is knocked out on a black garment: 60x50 px of red carries ink, at 100 DPI
    expect(Number(res.headers.get('x-color-ink-sq-in'))).toBeCloseTo(0.3, 3);
    expect(Number(res.headers.get('x-knocked-out-sq-in'))).toBeCloseTo(0.06, 3);
    expect(Number(res.headers.get('x-white-coverage'))).toBeCloseTo(30, 1);
    expect(res.headers.get('x-warnings')).toBe('');
    const before = Number(res.headers.get('x-ratelimit-remaining'));
    const again = await post(t, '/api/v1/underbase', form(art, { garment_color: '#000000', print_width_inches: '1', spot_name: 'W1' }));
    expect(Buffer.from(again.bytes).toString('latin1')).toContain('/Separation /W1 /DeviceCMYK');
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
  });

  it('format=png answers the white plate as grey; format=json both plates and the numbers', async () => {
    const png = await post(t, '/api/v1/underbase', form(art, { knockout: 'none', choke_mm: '0', format: 'png' }));
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const plate = await sharp(png.bytes).extractChannel(0).raw().toBuffer();
    expect(plate.reduce((n, v) => n + (v === 255 ? 1 : 0), 0)).toBe(3600);
    const js = await post(t, '/api/v1/underbase', form(art, { garment_color: '#000000', format: 'json' }));
    expect(js.status).toBe(200);
    const body = js.json!;
    expect(body).toMatchObject({ width: 100, height: 100, dpi: 300, garment_color: '#000000', knockout: 'garment', transparency_fix: null, warnings: [] });
    const white = await sharp(Buffer.from(body.white_plate as string, 'base64')).metadata();
    expect(white.width).toBe(100);
    const colour = await sharp(Buffer.from(body.color_plate as string, 'base64')).ensureAlpha().raw().toBuffer();
    let inked = 0;
    for (let i = 3; i < colour.length; i += 4) if (colour[i]) inked++;
    expect(inked).toBe(3000);
  });

  it('reports a hairline as too thin', async () => {
    const w = 200;
    const d = Buffer.alloc(w * 40 * 4);
    for (let x = 20; x < 180; x++) d.set([30, 60, 200, 255], (20 * w + x) * 4);
    const hair = new Uint8Array(await sharp(d, { raw: { width: w, height: 40, channels: 4 } }).png().toBuffer());
    const res = await post(t, '/api/v1/underbase', form(hair, { choke_mm: '0', format: 'json' }));
    const warnings = res.json!.warnings as Array<{ code: string; boxes: unknown[] }>;
    expect(warnings.map((x) => x.code)).toEqual(['white_too_thin']);
    expect(warnings[0]!.boxes[0]).toEqual({ x: 20, y: 20, width: 160, height: 1 });
  });

  it('the PDF separates (Ghostscript tiffsep) into a White plate equal to the png answer\'s plate, pixel for pixel', async (ctx) => {
    try {
      execFileSync('gs', ['--version'], { stdio: 'ignore' });
    } catch {
      console.log('underbase tiffsep check skipped: Ghostscript (gs) is not installed');
      ctx.skip();
    }
    const fields = { garment_color: '#000000', print_width_inches: '1' };
    const pdf = await post(t, '/api/v1/underbase', form(art, fields));
    const png = await post(t, '/api/v1/underbase', form(art, { ...fields, format: 'png' }));
    const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-underbase-http-'));
    try {
      writeFileSync(path.join(dir, 'a.pdf'), pdf.bytes);
      execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=tiffsep', '-r100', `-sOutputFile=${path.join(dir, 'sep.tif')}`, path.join(dir, 'a.pdf')]);
      expect(readdirSync(dir)).toContain('sep(White).tif');
      const white = await sharp(path.join(dir, 'sep(White).tif')).extractChannel(0).raw().toBuffer();
      const plate = await sharp(png.bytes).extractChannel(0).raw().toBuffer();
      expect(white.length).toBe(plate.length);
      let diff = 0;
      let inked = 0;
      for (let i = 0; i < plate.length; i++) {
        if (plate[i]! > 128) inked++;
        if ((white[i]! < 128) !== (plate[i]! > 128)) diff++; // tiffsep: 0 is full ink
      }
      expect(inked).toBeGreaterThan(2500); // the red around the knocked-out black bar, choked
      expect(diff).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects bad options naming the field', async () => {
    for (const [fields, field] of [
      [{ garment_color: 'navy' }, 'garment_color'],
      [{ knockout: 'garment' }, 'knockout'],
      [{ choke_mm: '9' }, 'choke_mm'],
      [{ format: 'tiff' }, 'format'],
      [{ spot_name: 'a b' }, 'spot_name'],
    ] as const) {
      const res = await post(t, '/api/v1/underbase', form(art, fields));
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_option', field });
    }
  });
});
