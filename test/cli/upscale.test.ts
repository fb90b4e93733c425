// `inkprep upscale <file> --scale 2|4 -o out.png` as a child process: JSON summary on stdout, the PNG at
// the scaled size, a summary line on stderr stating requested vs effective scale and why, exit 2 for a bad
// scale, exit 3 for input over 4x the budget (image_too_large).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';

let dir = '';

function cli(args: string[]) {
  return runCli(args);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-cli-upscale-'));
  const data = Buffer.alloc(24 * 20 * 4);
  for (let y = 5; y < 15; y++) for (let x = 6; x < 18; x++) data.set([200, 40, 120, 255], (y * 24 + x) * 4);
  writeFileSync(path.join(dir, 'art.png'), await sharp(data, { raw: { width: 24, height: 20, channels: 4 } }).png().toBuffer());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('inkprep upscale', () => {
  it('writes the upscaled PNG and prints the route and sizes', async () => {
    const out = path.join(dir, 'out.png');
    const r = await cli(['upscale', path.join(dir, 'art.png'), '--scale', '2', '-o', out]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ output: out, width: 48, height: 40, scale: 2, preShrunk: false, effectiveScale: 2 });
    expect(['vector', 'model', 'resample']).toContain(summary.route);
    const meta = await sharp(readFileSync(out)).metadata();
    expect([meta.width, meta.height, meta.hasAlpha]).toEqual([48, 40, true]);
  });

  it('the summary line on stderr says when the effective scale differs from the request, and why', async () => {
    const shrunk = path.join(dir, 'shrunk.png');
    // 24x20 = 480 px over a 2x budget of 120: shrunk to 12x10 first, so 2x gives 24x20 (effective 1x)
    const [small, plain, quiet] = await Promise.all([
      cli(['upscale', path.join(dir, 'art.png'), '--scale', '2', '--budget', '120', '--route', 'resample', '-o', shrunk]),
      cli(['upscale', path.join(dir, 'art.png'), '--scale', '2', '--route', 'resample', '-o', path.join(dir, 'plain.png')]),
      cli(['upscale', path.join(dir, 'art.png'), '--scale', '2', '--budget', '120', '--route', 'resample', '-o', path.join(dir, 'quiet.png'), '--quiet']),
    ]);
    expect(small.code, small.stderr).toBe(0);
    expect(JSON.parse(small.stdout)).toMatchObject({ preShrunk: true, effectiveScale: 1, from: { width: 24, height: 20 }, to: { width: 12, height: 10 } });
    expect(small.stderr).toContain(`${shrunk}: 24x20 PNG, resample route; scale 2x requested, 1x effective: the 24x20 input (480 px) was first shrunk to 12x10 to fit the 2x upscale budget of 120 px (--budget)\n`);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(`${path.join(dir, 'plain.png')}: 48x40 PNG, resample route\n`);
    expect(plain.stderr).not.toContain('requested');
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('exit 2 for a bad scale, exit 3 above 4x the budget', async () => {
    const bad = await cli(['upscale', path.join(dir, 'art.png'), '--scale', '3', '-o', path.join(dir, 'x.png')]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr)).toMatchObject({ code: 'invalid_option', field: 'scale' });
    const big = await cli(['upscale', path.join(dir, 'art.png'), '--budget4x', '100', '-o', path.join(dir, 'y.png')]);
    expect(big.code).toBe(3);
    expect(JSON.parse(big.stderr)).toMatchObject({ code: 'image_too_large', maxPixels: 400, pixels: 480 });
  });
});
