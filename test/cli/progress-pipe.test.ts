// Issue 29: progress when stderr is not a terminal (a log file, CI, a pipe), as child processes with piped
// stderr. Plain lines (newline-terminated, no carriage return or escape codes) one per INKPREP_PROGRESS_SECONDS
// (0 here, so a short job shows them without timing), one per stage with --progress, none with --quiet. No
// assertion on time beyond "at least one line appeared".
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { runCli } from './run-cli.js';

let dir = '';
let art = '';

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-cli-progress-'));
  const data = Buffer.alloc(90 * 70 * 4);
  for (let y = 0; y < 70; y++) for (let x = 0; x < 90; x++) if ((x - 45) ** 2 + (y - 35) ** 2 < 25 ** 2) data.set([30, 90, 200, 255], (y * 90 + x) * 4);
  art = path.join(dir, 'art.png');
  writeFileSync(art, await sharp(data, { raw: { width: 90, height: 70, channels: 4 } }).png().toBuffer());
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The progress lines of `verb` on stderr; every one must be a whole plain line. */
function progressLines(stderr: string, verb: string): string[] {
  expect(stderr).not.toContain('\r');
  expect(stderr).not.toContain('\x1b');
  const lines = stderr.split('\n').filter((l) => l.startsWith(`inkprep ${verb}: `));
  for (const l of lines) expect(l).toMatch(new RegExp(`^inkprep ${verb}: [a-z_-]+ \\d{1,3}% \\(\\d+\\.\\d s\\)$`));
  return lines;
}

const upscale = (extra: string[], env: Record<string, string>) => runCli(['upscale', art, '--scale', '2', '--route', 'resample', '-o', path.join(dir, `up-${extra.join('')}.png`), ...extra], env);

describe('progress on a pipe', () => {
  it('plain lines every INKPREP_PROGRESS_SECONDS (0: at every event), without --progress', async () => {
    const r = await upscale([], { INKPREP_PROGRESS_SECONDS: '0' });
    expect(r.code, r.stderr).toBe(0);
    const lines = progressLines(r.stderr, 'upscale');
    expect(lines.length, r.stderr).toBeGreaterThan(0);
    // the summary JSON on stdout is untouched by them
    expect(JSON.parse(r.stdout)).toMatchObject({ width: 180, height: 140 });
  });

  it('--progress: a line as each stage begins, even when the interval never passes', async () => {
    const r = await upscale(['--progress'], { INKPREP_PROGRESS_SECONDS: '3600' });
    expect(r.code, r.stderr).toBe(0);
    const lines = progressLines(r.stderr, 'upscale');
    expect(lines[0], r.stderr).toMatch(/^inkprep upscale: decode 0% /);
    const stages = lines.map((l) => l.split(' ')[2]);
    expect(stages).toContain('resample');
    expect(stages).toContain('encode');
    // one line per stage: no stage twice in a row
    stages.forEach((s, i) => expect(s).not.toBe(stages[i - 1]));
  });

  it('--quiet (and -q): no progress lines at all', async () => {
    const [long, short] = await Promise.all([
      upscale(['--quiet', '--progress'], { INKPREP_PROGRESS_SECONDS: '0' }),
      upscale(['-q'], { INKPREP_PROGRESS_SECONDS: '0' }),
    ]);
    for (const r of [long, short]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
    }
  });

  it('a bad INKPREP_PROGRESS_SECONDS is exit 2 naming the variable', async () => {
    const r = await upscale([], { INKPREP_PROGRESS_SECONDS: 'soon' });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ code: 'invalid_option', field: 'INKPREP_PROGRESS_SECONDS' });
  });
});
