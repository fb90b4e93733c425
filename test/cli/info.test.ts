// `inkprep info <file>` as a child process through the workspace bin (node_modules/.bin/inkprep, the same
// link `npx inkprep` uses): JSON report on stdout, exit codes 0 ok / 2 usage / 3 bad input file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from './run-cli.js';
import { mkdtempSync, rmSync, writeFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { card } from '../engine/raster/fixtures.js';

let dir = '';

function cli(args: string[], viaNpx = false) {
  return runCli(args, {}, viaNpx);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-cli-'));
  writeFileSync(path.join(dir, 'art.png'), await card().withDensity(300).png().toBuffer());
  writeFileSync(path.join(dir, 'photo.jpg'), await card().flatten({ background: '#fff' }).jpeg().withMetadata({ orientation: 6 }).toBuffer());
  writeFileSync(path.join(dir, 'anim.gif'), await card().gif().toBuffer());
  writeFileSync(path.join(dir, 'notes.txt'), 'not an image');
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('inkprep info', () => {
  it('the bin is linked into node_modules/.bin by npm workspaces', () => {
    expect(realpathSync(BIN)).toBe(path.join(ROOT, 'adapter-http/bin/inkprep.js'));
  });

  it('prints the decode report of a PNG and a rotated JPEG as JSON, exit 0', async () => {
    const [png, jpg] = await Promise.all([cli(['info', path.join(dir, 'art.png')]), cli(['info', path.join(dir, 'photo.jpg')])]);
    expect(png.code).toBe(0);
    expect(JSON.parse(png.stdout)).toMatchObject({ width: 40, height: 20, format: 'png', is_jpeg: false, has_alpha: true, density: 300 });
    expect(jpg.code).toBe(0);
    expect(JSON.parse(jpg.stdout)).toMatchObject({ width: 20, height: 40, format: 'jpeg', is_jpeg: true, has_alpha: false, orientation: 6 });
  });

  it('works as `npx inkprep` from the repo root', async () => {
    const r = await cli(['info', path.join(dir, 'art.png')], true);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).width).toBe(40);
  });

  it('bad input files exit 3 with a JSON error on stderr', async () => {
    const [missing, text, gif] = await Promise.all([
      cli(['info', path.join(dir, 'nope.png')]),
      cli(['info', path.join(dir, 'notes.txt')]),
      cli(['info', path.join(dir, 'anim.gif')]),
    ]);
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stderr)).toMatchObject({ code: 'missing_image', path: path.join(dir, 'nope.png') });
    expect(text.code).toBe(3);
    expect(JSON.parse(text.stderr)).toMatchObject({ code: 'image_unreadable' });
    expect(gif.code).toBe(3);
    expect(JSON.parse(gif.stderr)).toMatchObject({ code: 'unsupported_format', format: 'gif' });
    expect(text.stdout).toBe('');
  });

  it('usage errors exit 2; --help exits 0', async () => {
    const [none, extra, unknown, bare, help] = await Promise.all([
      cli(['info']),
      cli(['info', 'a.png', 'b.png']),
      cli(['frobnicate']),
      cli([]),
      cli(['info', '--help']),
    ]);
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stderr)).toMatchObject({ code: 'usage', usage: 'inkprep info <file|->' });
    expect(extra.code).toBe(2);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ code: 'usage', error: expect.stringMatching(/unknown command/) });
    expect(bare.code).toBe(2);
    expect(bare.stdout).toMatch(/usage: inkprep <command>/);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/usage: inkprep info <file\|->/);
  });
});

