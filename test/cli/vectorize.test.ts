// `inkprep vectorize in.png -o out.svg [options]` as a child process through the workspace bin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliBytes, runCliInTerminal, terminalUnavailable } from './run-cli.js';
import { parseDxf } from '../engine/vectorize/formats/readers.js';
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

  it('the summary line says when fewer colours were painted than --colors asked for (issue 29)', async () => {
    const twoColours = path.join(dir, 'two.png');
    await sharp({ create: { width: 80, height: 60, channels: 3, background: '#ffffff' } })
      .composite([{ input: await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c81e3c' } }).png().toBuffer(), left: 20, top: 15 }])
      .png().toFile(twoColours);
    const [asked, auto] = await Promise.all([
      cli(['vectorize', twoColours, '-o', path.join(dir, 'two8.svg'), '--colors', '8']),
      cli(['vectorize', twoColours, '-o', path.join(dir, 'two-auto.svg')]),
    ]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toMatch(/: svg, \d+ paths, 2 colours \(8 requested: only 2 painted any shape\), \d+ ms\n/);
    expect(auto.code, auto.stderr).toBe(0);
    expect(auto.stderr).toMatch(/: svg, \d+ paths, 2 colours, \d+ ms\n/);
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

  it('-o picks the format from the extension: .pdf, .eps, .dxf (the summary line names it)', async () => {
    const png = path.join(dir, 'logo.png');
    for (const [ext, magic] of [['pdf', '%PDF-1.4'], ['eps', '%!PS-Adobe-3.0 EPSF-3.0'], ['dxf', '  0\nSECTION']] as const) {
      const out = path.join(dir, `logo.${ext}`);
      const r = await cli(['vectorize', png, '-o', out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`logo\\.${ext}: ${ext}, \\d+ paths, 2 colours`));
      expect(readFileSync(out).subarray(0, magic.length).toString('latin1')).toBe(magic);
    }
  });

  it('--output-format names the format of an -o without an image extension; --dxf-units mm; --json reports the format; an extension that disagrees is exit 2', async () => {
    const out = path.join(dir, 'cut.out');
    const r = await cli(['vectorize', path.join(dir, 'logo.png'), '-o', out, '--output-format', 'dxf', '--dxf-units', 'mm', '--print-width-inches', '4', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const stats = JSON.parse(r.stdout) as { format: string; paths: number };
    expect(stats.format).toBe('dxf');
    const dxf = parseDxf(readFileSync(out, 'utf8'));
    expect(dxf.header.$INSUNITS).toBe(4);
    expect(dxf.header.$LIMMAX).toMatchObject({ x: 101.6, y: 63.5 });
    expect(dxf.polylines.length).toBe(stats.paths);
    // a PDF into a .svg name was written before (issue 29): now refused before any work, naming both
    const pdfNamedSvg = path.join(dir, 'really.svg');
    const refused = await cli(['vectorize', path.join(dir, 'logo.png'), '-o', pdfNamedSvg, '--output-format', 'pdf']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stderr.trim())).toMatchObject({ code: 'usage', output: pdfNamedSvg, format: 'svg', output_format: 'pdf' });
    expect(existsSync(pdfNamedSvg)).toBe(false);
  });

  it('-o - writes EPS text to stdout with --output-format eps; a bad format is exit 2 naming the field', async () => {
    const r = await runCliBytes(['vectorize', '-', '-o', '-', '--output-format', 'eps'], { stdin: readFileSync(path.join(dir, 'logo.png')) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.subarray(0, 23).toString('latin1')).toBe('%!PS-Adobe-3.0 EPSF-3.0');
    expect(r.stderr).toMatch(/^stdout: eps, /);
    const bad = await cli(['vectorize', path.join(dir, 'logo.png'), '-o', path.join(dir, 'bad.pdf'), '--output-format', 'tiff']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr.trim())).toMatchObject({ code: 'invalid_option', field: 'output_format' });
  });

  it.skipIf(terminalUnavailable() !== null)('PDF to stdout is refused on a terminal (binary), SVG is not', async () => {
    const pdf = await runCliInTerminal(['vectorize', path.join(dir, 'logo.png'), '-o', '-', '--output-format', 'pdf']);
    expect(pdf.code).toBe(2);
    expect(pdf.output).toMatch(/terminal/);
    const svg = await runCliInTerminal(['vectorize', path.join(dir, 'logo.png'), '-o', '-', '--quiet']);
    expect(svg.code).toBe(0);
    expect(svg.output).toMatch(/<svg/);
  });
});
