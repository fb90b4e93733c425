// `inkprep remove-bg in.jpg -o out.png` as a child process: writes a transparent PNG of the same size and
// prints method/warnings as JSON; exit codes 2 (bad option) and 3 (bad input).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';

let dir = '';

function cli(args: string[]) {
  return runCli(args, { INKPREP_SEGMENTATION_MODEL: '' });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-rbg-'));
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="90"><circle cx="60" cy="45" r="30" fill="#c03030"/></svg>';
  writeFileSync(path.join(dir, 'in.jpg'), await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer());
  writeFileSync(path.join(dir, 'in.webp'), await sharp(Buffer.from(svg)).webp().toBuffer());
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('inkprep remove-bg', () => {
  it('writes a transparent PNG of the same size and reports the method', async () => {
    const out = path.join(dir, 'out.png');
    const r = await cli(['remove-bg', path.join(dir, 'in.jpg'), '-o', out]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ output: out, width: 120, height: 90, method: 'matte', warnings: [] });
    const { data, info } = await sharp(readFileSync(out)).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([120, 90, 4]);
    expect(data[3]).toBe(0); // corner transparent
    expect(data[(45 * 120 + 60) * 4 + 3]).toBe(255); // centre of the disc opaque
  });

  it('exit 3 for a WebP input (PNG or JPEG only), 2 for a bad option or missing -o', async () => {
    expect((await cli(['remove-bg', path.join(dir, 'in.webp'), '-o', path.join(dir, 'x.png')])).code).toBe(3);
    const bad = await cli(['remove-bg', path.join(dir, 'in.jpg'), '-o', path.join(dir, 'x.png'), '--backend', 'model']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr)).toMatchObject({ code: 'invalid_option', field: 'backend' });
    expect((await cli(['remove-bg', path.join(dir, 'in.jpg')])).code).toBe(2);
  });
});
