// The CLI conventions every file verb shares, run as child processes: --version; `-` for stdin and stdout
// (stdout carries nothing but the output bytes); exit codes by cause (2 usage, 3 input, 4 output path,
// 1 processing) with one JSON error line on stderr; a progress line redrawn on a terminal, no escape codes otherwise.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp, { type Metadata } from 'sharp';
import { ROOT, runCli, runCliBytes, runCliInTerminal, terminalUnavailable } from './run-cli.js';
import { TEST_GARMENT_CACHE_DIR } from '../garments-dir.js';

const ENV = { INKPREP_GARMENT_CACHE_DIR: TEST_GARMENT_CACHE_DIR, INKPREP_SEGMENTATION_MODEL: '', INKPREP_SS_ACCOUNT: '', INKPREP_SS_API_KEY: '' };
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_IEND = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

let dir = '';
let art: Buffer; // a red disc on transparency
let onWhite: Buffer; // the same disc on white

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-cli-conv-'));
  const data = Buffer.alloc(120 * 90 * 4);
  for (let y = 0; y < 90; y++) for (let x = 0; x < 120; x++) if ((x - 60) ** 2 + (y - 45) ** 2 < 30 ** 2) data.set([200, 30, 60, 255], (y * 120 + x) * 4);
  art = await sharp(data, { raw: { width: 120, height: 90, channels: 4 } }).png().toBuffer();
  onWhite = await sharp(art).flatten({ background: '#ffffff' }).png().toBuffer();
  writeFileSync(path.join(dir, 'art.png'), art);
  writeFileSync(path.join(dir, 'white.png'), onWhite);
  writeFileSync(path.join(dir, 'notes.txt'), 'not an image');
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** stdout is exactly one PNG: signature first, IEND last, and it decodes. */
async function expectOnlyPng(bytes: Buffer): Promise<Metadata> {
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(bytes.subarray(bytes.length - 12).equals(PNG_IEND)).toBe(true);
  const meta = await sharp(bytes).metadata();
  expect(meta.format).toBe('png');
  return meta;
}

/** The last stderr line as the JSON error body. */
function errorLine(stderr: string): Record<string, unknown> {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe('inkprep --version', () => {
  it('prints the version of @inkprep/http (--version, -v), exit 0', async () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'adapter-http/package.json'), 'utf8')) as { version: string };
    const [long, short] = await Promise.all([runCli(['--version']), runCli(['-v'])]);
    for (const r of [long, short]) {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
      expect(r.stderr).toBe('');
    }
  });
});

describe('- for stdin and stdout', () => {
  it('info and scan read the image from stdin and print their JSON', async () => {
    const [info, scan] = await Promise.all([
      runCliBytes(['info', '-'], { stdin: art }),
      runCliBytes(['scan', '-', '--print-width-inches', '2'], { stdin: art }),
    ]);
    expect(info.code).toBe(0);
    expect(JSON.parse(info.stdout.toString())).toMatchObject({ width: 120, height: 90, format: 'png', has_alpha: true });
    expect(scan.code).toBe(0);
    expect(JSON.parse(scan.stdout.toString())).toMatchObject({ dpi: 60 });
  });

  it.each([
    ['fix', ['--fix-trim', 'true'], 'art', { width: 59, height: 59 }],
    ['remove-bg', [], 'white', { width: 120, height: 90 }],
    ['upscale', ['--scale', '2', '--route', 'resample'], 'art', { width: 240, height: 180 }],
    ['mockup', ['--style', 'own:classic-tee', '--color', 'navy', '--placement', 'left-chest', '--output-size', '400'], 'art', { width: 400 }],
  ] as const)('%s - -o - writes only the PNG to stdout; the summary goes to stderr', async (verb, extra, which, size) => {
    const r = await runCliBytes([verb, '-', '-o', '-', ...extra], { stdin: which === 'art' ? art : onWhite, env: ENV });
    expect(r.code, r.stderr).toBe(0);
    const meta = await expectOnlyPng(r.stdout);
    expect(meta).toMatchObject(size);
    const summary = r.stderr.split('\n').find((l) => l.startsWith('{'));
    expect(JSON.parse(summary ?? 'null')).toHaveProperty('output', '-');
  });

  it('vectorize - -o - writes only the SVG to stdout (--json stats on stderr)', async () => {
    const r = await runCliBytes(['vectorize', '-', '-o', '-', '--json'], { stdin: onWhite });
    expect(r.code, r.stderr).toBe(0);
    const svg = r.stdout.toString('utf8');
    expect(svg).toMatch(/^<svg [^>]*viewBox="0 0 120 90"/);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toMatch(/fill="#c81e3c"/);
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ colorsUsed: 2, width: 120, height: 90 });
    // The SVG renders back to the disc.
    const { data, info } = await sharp(Buffer.from(svg)).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray((45 * info.width + 60) * info.channels, (45 * info.width + 60) * info.channels + 3)]).toEqual([200, 30, 60]);
  });

  it('a file input with -o - and stdin input with a file output work too', async () => {
    const out = path.join(dir, 'from-stdin.png');
    const [toStdout, fromStdin] = await Promise.all([
      runCliBytes(['fix', path.join(dir, 'art.png'), '-o', '-']),
      runCliBytes(['fix', '-', '-o', out], { stdin: art }),
    ]);
    expect(toStdout.code).toBe(0);
    await expectOnlyPng(toStdout.stdout);
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout.toString())).toMatchObject({ output: out, width: 120 });
    await expectOnlyPng(readFileSync(out));
  });
});

describe('exit codes by cause, one JSON error line', () => {
  it('2: usage (unknown command or option, missing -o or input) and option values naming the field', async () => {
    const art = path.join(dir, 'art.png');
    const [cmd, opt, noOut, noIn, bad] = await Promise.all([
      runCli(['frobnicate']),
      runCli(['scan', art, '--colour', 'red']),
      runCli(['fix', art]),
      runCli(['vectorize', '-o', path.join(dir, 'x.svg')]),
      runCli(['vectorize', art, '-o', path.join(dir, 'x.svg'), '--colors', 'lots']),
    ]);
    for (const r of [cmd, opt, noOut, noIn, bad]) expect(r.code, r.stderr).toBe(2);
    expect(errorLine(cmd.stderr)).toMatchObject({ code: 'usage', error: expect.stringMatching(/unknown command "frobnicate"/) });
    expect(errorLine(opt.stderr)).toMatchObject({ code: 'usage', error: 'unknown option --colour for scan', option: '--colour', usage: 'inkprep scan <file|-> [--print-width-inches 12]' });
    expect(errorLine(noOut.stderr)).toMatchObject({ code: 'usage', error: expect.stringMatching(/missing -o/) });
    expect(errorLine(noIn.stderr)).toMatchObject({ code: 'usage' });
    expect(errorLine(bad.stderr)).toMatchObject({ code: 'invalid_option', field: 'colors', error: expect.stringMatching(/colors/) });
  });

  it('serve, cluster and admin report their errors the same way', async () => {
    const data = mkdtempSync(path.join(os.tmpdir(), 'inkprep-cli-conv-admin-'));
    try {
      const [serve, cluster, admin] = await Promise.all([
        runCli(['serve'], { PORT: 'eighty' }),
        runCli(['cluster', '--processes', '0']),
        runCli(['admin', 'account', 'create', '--name', 'X', '--plan', 'gold', '--create', '--json'], { INKPREP_DATA_DIR: data, DATABASE_URL: '' }),
      ]);
      // admin with --json: in text mode its stderr also carries the "store: ..." line before the error line
      for (const r of [serve, cluster, admin]) expect(r.code, r.stderr).toBe(2);
      expect(errorLine(serve.stderr)).toMatchObject({ code: 'invalid_option', error: expect.stringMatching(/PORT/) });
      expect(errorLine(cluster.stderr)).toMatchObject({ code: 'invalid_option', field: 'processes' });
      expect(errorLine(admin.stderr)).toMatchObject({ code: 'usage', error: expect.stringMatching(/--plan/) });
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('3: input missing, a folder, not an image, unsupported, or empty stdin', async () => {
    const [missing, folder, text, empty, webp] = await Promise.all([
      runCliBytes(['fix', path.join(dir, 'nope.png'), '-o', path.join(dir, 'x.png')]),
      runCliBytes(['info', dir]),
      runCliBytes(['vectorize', path.join(dir, 'notes.txt'), '-o', path.join(dir, 'x.svg')]),
      runCliBytes(['scan', '-']),
      runCliBytes(['remove-bg', '-', '-o', '-'], { stdin: await sharp(art).webp().toBuffer() }),
    ]);
    for (const r of [missing, folder, text, empty, webp]) {
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout.length).toBe(0);
    }
    expect(errorLine(missing.stderr)).toMatchObject({ code: 'missing_image', path: path.join(dir, 'nope.png') });
    expect(errorLine(folder.stderr)).toMatchObject({ code: 'image_unreadable', path: dir });
    expect(errorLine(text.stderr)).toMatchObject({ code: 'image_unreadable' });
    expect(errorLine(empty.stderr)).toMatchObject({ code: 'missing_image', path: '-' });
    expect(errorLine(webp.stderr)).toMatchObject({ code: 'unsupported_format' });
  });

  it('4: output folder missing, a file, or the output path a folder; checked before the work', async () => {
    writeFileSync(path.join(dir, 'plain-file'), 'x');
    mkdirSync(path.join(dir, 'a-folder.png'), { recursive: true });
    const art = path.join(dir, 'art.png');
    const targets = [path.join(dir, 'no-such-folder', 'out.png'), path.join(dir, 'plain-file', 'out.png'), path.join(dir, 'a-folder.png')];
    const runs = await Promise.all(targets.map((t) => runCli(['fix', art, '-o', t])));
    runs.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(4);
      expect(errorLine(r.stderr)).toMatchObject({ code: 'output_unwritable', path: targets[i] });
      expect(r.stdout).toBe('');
    });
  });

  it.skipIf(process.getuid?.() === 0)('4: an output folder without write permission (skipped as root, who may write anywhere)', async () => {
    const locked = path.join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    try {
      const r = await runCli(['vectorize', path.join(dir, 'white.png'), '-o', path.join(locked, 'out.svg')]);
      expect(r.code).toBe(4);
      expect(errorLine(r.stderr)).toMatchObject({ code: 'output_unwritable', error: expect.stringMatching(/not writable/) });
    } finally {
      chmodSync(locked, 0o755);
    }
  });

  it('1: processing failed (a segmentation model file that cannot be loaded)', async () => {
    const model = path.join(dir, 'broken.onnx');
    writeFileSync(model, 'not an onnx model');
    const r = await runCli(['remove-bg', path.join(dir, 'white.png'), '-o', path.join(dir, 'rb.png'), '--backend', 'model', '--model', model], ENV);
    expect(r.code, r.stderr).toBe(1);
    expect(errorLine(r.stderr)).toMatchObject({ code: 'processing_failed', error: expect.stringMatching(/model/) });
    expect(r.stdout).toBe('');
  });
});

const noTerminal = terminalUnavailable();
if (noTerminal) console.log(`skipping the terminal progress tests: ${noTerminal}`);

/** Progress line texts drawn (each starts with carriage return + erase line). */
function progressLines(output: string, verb: string): string[] {
  return output.split('\r\x1b[2K').filter((s) => s.startsWith(`inkprep ${verb}: `)).map((s) => s.replace(/\r?\n[\s\S]*$/, ''));
}

describe.skipIf(noTerminal !== null)('progress line on a terminal', () => {
  it.each([
    ['info', [], 'art', null],
    ['scan', [], 'art', null],
    ['fix', ['--fix-despeckle', 'true', '--fix-halftone', 'true'], 'art', 'out.png'],
    ['remove-bg', [], 'white', 'out.png'],
    ['upscale', ['--scale', '2'], 'art', 'out.png'],
    ['vectorize', [], 'white', 'out.svg'],
    ['mockup', ['--style', 'own:classic-tee', '--color', 'navy', '--placement', 'left-chest', '--output-size', '400'], 'art', 'out.png'],
  ] as const)('%s draws stage and percent in place and clears it', async (verb, extra, input, out) => {
    const args = [verb, path.join(dir, `${input}.png`), ...extra, ...(out ? ['-o', path.join(dir, `${verb}-${out}`)] : [])];
    const r = await runCliInTerminal(args, ENV);
    expect(r.code, r.output).toBe(0);
    const lines = progressLines(r.output, verb);
    expect(lines.length, r.output).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(new RegExp(`^inkprep ${verb}: [a-z_]+ \\d{1,3}% \\(\\d+\\.\\d s\\)$`));
    expect(lines[0]).toMatch(/: decode 0% /);
    // Redrawn in place (no newline inside the progress run) and erased before anything else is printed.
    const lastDraw = r.output.lastIndexOf(`inkprep ${verb}: `);
    const rest = r.output.slice(lastDraw);
    expect(rest.indexOf('\r\x1b[2K')).toBeGreaterThan(0);
    expect(rest.indexOf('\r\x1b[2K')).toBeLessThan(rest.search(/\n|$/));
    const first = r.output.indexOf(`inkprep ${verb}: `);
    expect(r.output.slice(first, lastDraw)).not.toMatch(/\n/);
  });

  it('vectorize goes through its stages in order', async () => {
    const r = await runCliInTerminal(['vectorize', path.join(dir, 'white.png'), '-o', path.join(dir, 'stages.svg')]);
    const stages = [...new Set(progressLines(r.output, 'vectorize').map((l) => l.split(' ')[2]))];
    expect(stages).toEqual(['decode', 'prepare', 'quantize', 'specks', 'trace', 'fills', 'svg']);
  });

  it('--quiet draws nothing; -o - to a terminal is refused for binary output (exit 2)', async () => {
    const quiet = await runCliInTerminal(['fix', path.join(dir, 'art.png'), '-o', path.join(dir, 'q.png'), '--quiet']);
    expect(quiet.code).toBe(0);
    expect(quiet.output).not.toMatch(/inkprep fix: /);
    const toTty = await runCliInTerminal(['fix', path.join(dir, 'art.png'), '-o', '-']);
    expect(toTty.code).toBe(2);
    expect(toTty.output).toMatch(/"code":"usage"/);
    expect(toTty.output).not.toMatch(/IEND/);
  });
});

describe('no escape codes when stderr is not a terminal', () => {
  it.each([
    ['vectorize', ['-o', 'np.svg'], 'white'],
    ['fix', ['-o', 'np.png', '--fix-despeckle', 'true'], 'art'],
    ['scan', [], 'art'],
  ] as const)('%s writes no redrawn line or escape codes to a pipe (progress there is plain lines: progress-pipe.test.ts)', async (verb, extra, input) => {
    const args = [verb, path.join(dir, `${input}.png`), ...extra.map((a) => (a.startsWith('np.') ? path.join(dir, a) : a))];
    const r = await runCli(args, { INKPREP_PROGRESS_SECONDS: '0' });
    expect(r.code, r.stderr).toBe(0);
    for (const l of r.stderr.split('\n').filter((x) => x.startsWith('inkprep '))) expect(l).toMatch(new RegExp(`^inkprep ${verb}: [a-z_-]+ \\d{1,3}% \\(\\d+\\.\\d s\\)$`));
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).not.toContain('\x1b[');
    expect(r.stdout).not.toContain('\x1b[');
  });
});
