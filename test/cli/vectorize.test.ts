// `inkprep vectorize in.png -o out.svg [options]` as a child process through the workspace bin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';

let dir = '';

function cli(args: string[]) {
  return runCli(args);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-vec-'));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="100"><circle cx="50" cy="50" r="40" fill="#e63946"/><rect x="100" y="20" width="50" height="60" fill="#264653"/></svg>`;
  writeFileSync(path.join(dir, 'logo.png'), await sharp(Buffer.from(svg)).png().toBuffer());
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('inkprep vectorize', () => {
  it('writes the SVG and prints the stats with --json', async () => {
    const out = path.join(dir, 'logo.svg');
    const r = await cli(['vectorize', path.join(dir, 'logo.png'), '-o', out, '--colors', 'auto', '--detail', 'balanced', '--print-width-inches', '4', '--json']);
    expect(r.code).toBe(0);
    const stats = JSON.parse(r.stdout) as { paths: number; colorsUsed: number; width: number; height: number };
    expect(stats).toMatchObject({ colorsUsed: 2, width: 160, height: 100 });
    expect(stats.paths).toBeGreaterThanOrEqual(2);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toMatch(/^<svg[^>]*viewBox="0 0 160 100"/);
    expect(svg).toContain('width="4in"');
  });

  it('rejects a bad option value with exit 2 naming the field', async () => {
    const out = path.join(dir, 'bad.svg');
    const r = await cli(['vectorize', path.join(dir, 'logo.png'), '-o', out, '--speck-size', '40']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/speck_size/);
    expect(existsSync(out)).toBe(false);
  });

  it('needs an output file (exit 2) and an existing input (exit 3)', async () => {
    expect((await cli(['vectorize', path.join(dir, 'logo.png')])).code).toBe(2);
    expect((await cli(['vectorize', path.join(dir, 'missing.png'), '-o', path.join(dir, 'x.svg')])).code).toBe(3);
  });
});
