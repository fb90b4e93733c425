// `inkprep underbase` as a child process: the separation PDF written to -o with the summary on stdout, the white
// plate PNG, the JSON file with both plates, warnings on stderr, and option errors naming the field (exit 2);
// a supplier --style resolved through the catalog (a local S&S stub).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { SS_RED, startSsStub } from '../http/ss-stub.js';
import { runCli } from './run-cli.js';

let dir = '';
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-underbase-'));
  const w = 120;
  const d = Buffer.alloc(w * w * 4);
  for (let y = 20; y < 100; y++) for (let x = 20; x < 100; x++) d.set(y === 60 ? [0, 0, 0, 255] : [250, 250, 250, 255], (y * w + x) * 4);
  writeFileSync(path.join(dir, 'art.png'), await sharp(d, { raw: { width: w, height: w, channels: 4 } }).png().toBuffer());
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('inkprep underbase', () => {
  it('writes the separation PDF and prints the numbers; a 1 px knocked-out line is a narrow gap', async () => {
    const out = path.join(dir, 'a.pdf');
    const r = await runCli(['underbase', path.join(dir, 'art.png'), '-o', out, '--garment-color', '#000000', '--print-width-inches', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out).subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
    const summary = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ output: out, format: 'pdf', knockout: 'garment', garment_color: '#000000' });
    expect(summary.white_only_sq_in).toBeGreaterThan(0.4);
    expect((summary.warnings as Array<{ code: string }>).map((w) => w.code)).toEqual(['knockout_gap_too_narrow']);
    expect(r.stderr).toContain('knockout_gap_too_narrow');
  });

  it('--format png writes the white plate; --format json the plates and numbers', async () => {
    const png = path.join(dir, 'w.png');
    expect((await runCli(['underbase', path.join(dir, 'art.png'), '-o', png, '--format', 'png'])).code).toBe(0);
    expect((await sharp(readFileSync(png)).metadata()).width).toBe(120);
    const js = path.join(dir, 'u.json');
    expect((await runCli(['underbase', path.join(dir, 'art.png'), '-o', js, '--format', 'json'])).code).toBe(0);
    const body = JSON.parse(readFileSync(js, 'utf8')) as Record<string, unknown>;
    expect(typeof body.white_plate).toBe('string');
    expect(typeof body.color_plate).toBe('string');
  });

  it('rejects a bad option naming the field (exit 2)', async () => {
    const r = await runCli(['underbase', path.join(dir, 'art.png'), '-o', path.join(dir, 'x.pdf'), '--knockout', 'garment']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('knockout');
  });

  it('a supplier --style takes the garment colour from the catalog', async () => {
    const stub = await startSsStub();
    try {
      const env = { INKPREP_SS_ACCOUNT: '1', INKPREP_SS_API_KEY: 'k', INKPREP_SS_BASE_URL: stub.baseUrl };
      const r = await runCli(['underbase', path.join(dir, 'art.png'), '-o', path.join(dir, 'ss.json'), '--format', 'json', '--style', 'ss:39', '--color', 'red'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ garment_color: SS_RED, garment_source: 'ss:39:red', knockout: 'garment' });
      const bad = await runCli(['underbase', path.join(dir, 'art.png'), '-o', path.join(dir, 'x.pdf'), '--style', 'ss:39', '--color', 'ultraviolet'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('ultraviolet');
    } finally {
      await stub.close();
    }
  });
});
