// `inkprep mockup <design> -o out.png --style ... --color ... --placement ...` as a child process through the
// workspace bin: writes the image, prints the 2.9 JSON (without base64) and warnings; exit 2 on a bad field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { TEST_GARMENT_CACHE_DIR } from '../garments-dir.js';

let dir = '';

function cli(args: string[]) {
  return runCli(args, { INKPREP_GARMENT_CACHE_DIR: TEST_GARMENT_CACHE_DIR, INKPREP_SS_ACCOUNT: '', INKPREP_SS_API_KEY: '' });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-cli-mockup-'));
  writeFileSync(path.join(dir, 'design.png'), await sharp({ create: { width: 600, height: 300, channels: 4, background: { r: 230, g: 30, b: 30, alpha: 1 } } }).png().toBuffer());
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('inkprep mockup', () => {
  it('renders true-to-size and prints the placement summary', async () => {
    const out = path.join(dir, 'out.jpg');
    const r = await cli(['mockup', path.join(dir, 'design.png'), '--style', 'own:classic-tee', '--color', 'navy', '--placement', 'full-front', '--output-size', '512', '-o', out]);
    // warnings are JSON lines; a slow run may also show plain progress lines (stderr is not a terminal)
    expect(r.stderr.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { code: string })).toContainEqual(expect.objectContaining({ code: 'low_dpi', warning: expect.any(String) }));
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { garment: { key: string; color: { id: string } }; placement: string; print: { width_in: number; effective_dpi: number }; image: { content_type: string } };
    expect(j.garment).toMatchObject({ key: 'own:classic-tee', color: { id: 'navy' } });
    expect(j.placement).toBe('full-front');
    expect(j.print.width_in).toBe(11);
    expect(j.print.effective_dpi).toBeCloseTo(54.5, 1);
    expect(j.image.content_type).toBe('image/jpeg');
    const meta = await sharp(readFileSync(out)).metadata();
    expect([meta.format, Math.max(meta.width!, meta.height!)]).toEqual(['jpeg', 512]);
  });

  it('exit 2 naming the field for a bad value', async () => {
    const r = await cli(['mockup', path.join(dir, 'design.png'), '--style', 'own:hoodie', '--placement', 'back-neck', '-o', path.join(dir, 'x.png')]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toMatchObject({ code: 'invalid_option', field: 'placement' });
  });
});
