// Issue 29: a misspelt or unknown flag is rejected on every verb, as a child process: exit 2, one JSON error
// line naming the flag (`option`) and, when a flag the verb takes is close, `suggestion` (did you mean). The
// table covers every verb `inkprep --help` lists (the test fails when a verb is added without a row), and
// nothing runs: no output file, nothing on stdout, no server started, no store created.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { BIN, ROOT } from './run-cli.js';
import { TEST_GARMENT_CACHE_DIR } from '../garments-dir.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-cli-flags-'));
const data = path.join(dir, 'data'); // INKPREP_DATA_DIR: must stay absent (no store, no models folder)
const art = path.join(dir, 'art.png');

beforeAll(async () => {
  writeFileSync(art, await sharp({ create: { width: 60, height: 40, channels: 4, background: { r: 200, g: 30, b: 60, alpha: 1 } } }).png().toBuffer());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the CLI; a verb that ignored the flag and went on to serve is stopped after 120 s (and fails the test). */
function run(args: string[]): Promise<Run> {
  const env = {
    ...process.env, NO_COLOR: '1', PORT: '0', INKPREP_DATA_DIR: data, DATABASE_URL: '',
    INKPREP_GARMENT_CACHE_DIR: TEST_GARMENT_CACHE_DIR, INKPREP_SS_ACCOUNT: '', INKPREP_SS_API_KEY: '',
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const out = (name: string): string => path.join(dir, name);

/** [verb as --help lists it, argv, the flag named, the suggestion (undefined: none is close)] */
const CASES: readonly (readonly [string, readonly string[], string, string | undefined])[] = [
  ['vectorize', ['vectorize', art, '-o', out('v.svg'), '--colours', '8'], '--colours', '--colors'],
  ['vectorize', ['vectorize', art, '-o', out('v2.svg'), '--frobnicate'], '--frobnicate', undefined],
  ['fix', ['fix', art, '-o', out('f.png'), '--fix-despekle'], '--fix-despekle', '--fix-despeckle'],
  ['fix', ['fix', art, '-x', '-o', out('f2.png')], '-x', undefined],
  ['underbase', ['underbase', art, '-o', out('u.pdf'), '--choke', '0.2'], '--choke', '--choke-mm'],
  ['gangsheet', ['gangsheet', '--design', art, '-o', out('g.pdf'), '--items', '[{"design":0,"width_in":2}]', '--spacing', '0.2'], '--spacing', '--spacing-in'],
  ['scan', ['scan', art, '--print-width', '2'], '--print-width', '--print-width-inches'],
  ['upscale', ['upscale', art, '-o', out('u.png'), '--scael', '2'], '--scael', '--scale'],
  ['remove-bg', ['remove-bg', art, '-o', out('r.png'), '--bakend', 'cut'], '--bakend', '--backend'],
  ['mockup', ['mockup', art, '-o', out('m.png'), '--style', 'own:classic-tee', '--placment', 'left-chest'], '--placment', '--placement'],
  ['mockup-batch', ['mockup-batch', art, '-o', out('mb'), '--style', 'own:classic-tee', '--items', '[{}]', '--colour', 'navy'], '--colour', '--color'],
  ['info', ['info', art, '--jsno'], '--jsno', '--json'],
  ['models', ['models', 'list', '--dri', out('models')], '--dri', '--dir'],
  ['admin', ['admin', 'account', 'create', '--nmae', 'X', '--plan', 'pro', '--create'], '--nmae', '--name'],
  ['admin', ['admin', 'account', 'list', '--create', '--verbose'], '--verbose', undefined],
  ['admin', ['admin', 'webhook-secret', 'rotate', 'acc_0000000000000000', '--create', '--grace', '1'], '--grace', '--grace-hours'],
  ['serve', ['serve', '--hlep'], '--hlep', '--help'],
  ['serve', ['serve', '--port', '0'], '--port', undefined],
  ['cluster', ['cluster', '--proceses', '1'], '--proceses', '--processes'],
];

describe('unknown flags on every verb', () => {
  it('the table has a row for every verb inkprep --help lists', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    const verbs = [...help.stdout.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1]);
    expect(verbs.length).toBeGreaterThan(5);
    expect([...new Set(CASES.map((c) => c[0]))].sort()).toEqual([...verbs].sort());
  });

  it.each(CASES)('%s %j: exit 2 naming %s (suggesting %s), nothing run', async (_verb, argv, flag, suggestion) => {
    const before = readdirSync(dir).sort();
    const r = await run([...argv]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ code: 'usage', option: flag });
    expect(line.error).toContain(`unknown option ${flag} for ${_verb}`);
    if (suggestion) {
      expect(line.suggestion).toBe(suggestion);
      expect(line.error).toContain(`did you mean ${suggestion}?`);
    } else {
      expect(line).not.toHaveProperty('suggestion');
      expect(line.error).not.toContain('did you mean');
    }
    // nothing written: no output file, no store, no data folder
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(existsSync(data)).toBe(false);
  });

  it('a misspelt command: exit 2 with the nearest command', async () => {
    const [near, far] = await Promise.all([run(['vectorise', art, '-o', out('c.svg')]), run(['frobnicate'])]);
    for (const r of [near, far]) expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(near.stderr.trim())).toMatchObject({ code: 'usage', suggestion: 'vectorize', error: expect.stringContaining('did you mean vectorize?') });
    expect(JSON.parse(far.stderr.trim())).not.toHaveProperty('suggestion');
    expect(existsSync(out('c.svg'))).toBe(false);
  });

  it('several unknown flags are named together, each with its suggestion', async () => {
    const r = await run(['vectorize', art, '-o', out('v3.svg'), '--colours', '4', '--detial', 'high']);
    expect(r.code).toBe(2);
    const line = JSON.parse(r.stderr.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ code: 'usage', option: '--colours', suggestion: '--colors' });
    expect(line.error).toMatch(/^unknown options --colours \(did you mean --colors\?\), --detial \(did you mean --detail\?\) for vectorize$/);
  });
});
