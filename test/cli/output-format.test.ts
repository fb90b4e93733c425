// Issue 29: the -o extension checked against the format written, on every verb that writes a file, as child
// processes. Without a format flag the extension picks the format where the verb writes it (vectorize: .svg,
// .pdf, .eps, .dxf; mockup: .png, .jpg); an extension naming a format the verb cannot write, or disagreeing with
// the format flag, is exit 2 naming both, before any work (no file written). `-o -` and names without an image
// extension keep the flag's format or the default.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { runCli, runCliBytes } from './run-cli.js';
import { TEST_GARMENT_CACHE_DIR } from '../garments-dir.js';

const ENV = { INKPREP_GARMENT_CACHE_DIR: TEST_GARMENT_CACHE_DIR, INKPREP_SS_ACCOUNT: '', INKPREP_SS_API_KEY: '' };
const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-cli-format-'));
const art = path.join(dir, 'art.png');
const onWhite = path.join(dir, 'white.png');

beforeAll(async () => {
  const data = Buffer.alloc(80 * 60 * 4);
  for (let y = 0; y < 60; y++) for (let x = 0; x < 80; x++) if ((x - 40) ** 2 + (y - 30) ** 2 < 20 ** 2) data.set([200, 30, 60, 255], (y * 80 + x) * 4);
  const png = await sharp(data, { raw: { width: 80, height: 60, channels: 4 } }).png().toBuffer();
  writeFileSync(art, png);
  writeFileSync(onWhite, await sharp(png).flatten({ background: '#ffffff' }).png().toBuffer());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const out = (name: string): string => path.join(dir, name);

/** The one error line. */
function errorOf(stderr: string): Record<string, unknown> {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** What the bytes are, by their signature. */
function kindOf(bytes: Buffer): string {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpeg';
  const head = bytes.subarray(0, 64).toString('latin1');
  if (head.startsWith('%PDF-')) return 'pdf';
  if (head.startsWith('%!PS')) return 'eps';
  if (head.startsWith('<svg') || head.startsWith('<?xml')) return 'svg';
  if (/^\s*0\s*\r?\n\s*SECTION/.test(head)) return 'dxf';
  return 'unknown';
}

const MOCKUP = ['--style', 'own:classic-tee', '--color', 'navy', '--placement', 'left-chest', '--output-size', '400'];

describe('an -o extension the verb cannot write, or that disagrees with the format flag: exit 2 naming both', () => {
  it.each([
    ['vectorize', [onWhite, '-o', out('x.png')], 'x.png names PNG, but vectorize writes SVG, PDF, EPS or DXF'],
    ['vectorize', [onWhite, '-o', out('x.svg'), '--output-format', 'pdf'], 'x.svg names SVG, but --output-format is pdf'],
    ['fix', [art, '-o', out('x.svg')], 'x.svg names SVG, but fix writes PNG only'],
    ['remove-bg', [onWhite, '-o', out('x.jpg')], 'x.jpg names JPEG, but remove-bg writes PNG only'],
    ['upscale', [art, '--scale', '2', '-o', out('x.webp')], 'x.webp names WEBP, but upscale writes PNG only'],
    ['mockup', [art, ...MOCKUP, '-o', out('x.pdf')], 'x.pdf names PDF, but mockup writes PNG or JPEG'],
    ['mockup', [art, ...MOCKUP, '-o', out('x.png'), '--format', 'jpeg'], 'x.png names PNG, but --format is jpeg'],
  ] as const)('%s %j', async (verb, args, message) => {
    const argv: readonly string[] = args;
    const target = argv[argv.indexOf('-o') + 1]!;
    const r = await runCli([verb, ...argv], ENV);
    expect(r.code, r.stderr).toBe(2);
    const line = errorOf(r.stderr);
    expect(line).toMatchObject({ code: 'usage', output: target });
    expect(line.error).toContain(message);
    expect(existsSync(target)).toBe(false);
    expect(r.stdout).toBe('');
  });
});

describe('the extension picks the format; flags that agree, other names and stdout are unaffected', () => {
  it.each([
    ['vectorize', [onWhite, '-o', out('v.svg')], 'v.svg', 'svg'],
    ['vectorize', [onWhite, '-o', out('v.pdf')], 'v.pdf', 'pdf'],
    ['vectorize', [onWhite, '-o', out('v.eps')], 'v.eps', 'eps'],
    ['vectorize', [onWhite, '-o', out('v.dxf')], 'v.dxf', 'dxf'],
    ['vectorize', [onWhite, '-o', out('V.PDF')], 'V.PDF', 'pdf'],
    ['vectorize', [onWhite, '-o', out('v2.pdf'), '--output-format', 'pdf'], 'v2.pdf', 'pdf'],
    ['vectorize', [onWhite, '-o', out('vector-out'), '--output-format', 'eps'], 'vector-out', 'eps'],
    ['vectorize', [onWhite, '-o', out('vector.tmp')], 'vector.tmp', 'svg'],
    ['fix', [art, '-o', out('f.PNG')], 'f.PNG', 'png'],
    ['mockup', [art, ...MOCKUP, '-o', out('m.jpg')], 'm.jpg', 'jpeg'],
    ['mockup', [art, ...MOCKUP, '-o', out('m.jpeg'), '--format', 'jpeg'], 'm.jpeg', 'jpeg'],
    ['mockup', [art, ...MOCKUP, '-o', out('m.png')], 'm.png', 'png'],
  ] as const)('%s %j writes %s', async (verb, args, name, kind) => {
    const r = await runCli([verb, ...args], ENV);
    expect(r.code, r.stderr).toBe(0);
    expect(kindOf(readFileSync(out(name)))).toBe(kind);
  });

  it('-o - writes the format flag\'s format (or the default) to stdout', async () => {
    const [eps, svg] = await Promise.all([
      runCliBytes(['vectorize', onWhite, '-o', '-', '--output-format', 'eps']),
      runCliBytes(['vectorize', onWhite, '-o', '-']),
    ]);
    expect(eps.code, eps.stderr).toBe(0);
    expect(kindOf(eps.stdout)).toBe('eps');
    expect(svg.code, svg.stderr).toBe(0);
    expect(kindOf(svg.stdout)).toBe('svg');
  });
});
