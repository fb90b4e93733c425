// `inkprep scan` and `inkprep fix` as child processes through the workspace bin: JSON report on stdout,
// the fixed PNG written to -o with its DPI, option errors naming the field (exit 2), unknown flags rejected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { existsSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { disc, png } from '../engine/scan/fixtures.js';

let dir = '';

function cli(args: string[]) {
  return runCli(args);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-scanfix-'));
  writeFileSync(path.join(dir, 'glow.png'), await png(disc(240, 240, { r: 60, glowSigma: 12 })));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('inkprep scan / fix', () => {
  it('scan prints the report as JSON with the print width applied', async () => {
    const r = await cli(['scan', path.join(dir, 'glow.png'), '--print-width-inches', '0.8']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { dpi: number; transparency_fix: { recommended: string }; suggestions: Array<{ field: string }> };
    expect(report.dpi).toBe(300);
    expect(report.transparency_fix.recommended).toBe('halftone');
    expect(report.suggestions.map((s) => s.field)).toContain('fix_halftone');
  });

  it('fix writes the PNG with its DPI and prints a summary', async () => {
    const out = path.join(dir, 'out.png');
    const r = await cli(['fix', path.join(dir, 'glow.png'), '-o', out, '--fix-halftone', 'true', '--print_width_inches', '0.8', '--fix-trim']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ applied: ['trim', 'halftone'] });
    const meta = await sharp(readFileSync(out)).metadata();
    expect(meta.format).toBe('png');
    expect(meta.density).toBeGreaterThan(100);
  });

  it('fix reports a halftone cell under 4 px as a warning: in the summary and as a JSON line on stderr', async () => {
    const out = path.join(dir, 'coarse.png');
    // 240 px at 4 in = 60 DPI: 55 lpi would be a 1.1 px cell
    const r = await cli(['fix', path.join(dir, 'glow.png'), '-o', out, '--fix-halftone', 'true', '--halftone-lpi', '55', '--print-width-inches', '4']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { warnings: Array<{ code: string; message: string }>; stats: Record<string, number> };
    expect(summary.warnings.map((w) => w.code)).toEqual(['halftone_cell_too_small']);
    expect(summary.stats.halftone_cell_px).toBe(4);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('{'));
    expect(lines.map((l) => (JSON.parse(l) as { code: string }).code)).toContain('halftone_cell_too_small');
  });

  it('bad values exit 2 naming the field; unknown flags and a missing -o are usage errors', async () => {
    const bad = await cli(['fix', path.join(dir, 'glow.png'), '-o', path.join(dir, 'x.png'), '--halftone-lpi', '80']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr)).toMatchObject({ code: 'invalid_option', field: 'halftone_lpi' });
    expect(existsSync(path.join(dir, 'x.png'))).toBe(false);
    const unknown = await cli(['scan', path.join(dir, 'glow.png'), '--colour', 'red']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option --colour/);
    expect((await cli(['fix', path.join(dir, 'glow.png')])).code).toBe(2);
    expect((await cli(['scan', path.join(dir, 'missing.png')])).code).toBe(3);
  });
});
