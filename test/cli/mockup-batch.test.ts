// `inkprep mockup-batch` as a child process: one design on several garments written as one file per item into
// the -o folder (created), the JSON listing each file with its 2.9 facts on stdout, --items @file, and an item
// error naming the item (exit 2, no file written).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { runCli } from './run-cli.js';

let dir = '';
const at = (name: string) => path.join(dir, name);
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-mockup-batch-'));
  writeFileSync(at('art.png'), await sharp({ create: { width: 600, height: 450, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: { create: { width: 400, height: 300, channels: 4, background: { r: 230, g: 30, b: 30, alpha: 1 } } }, left: 100, top: 75 }])
    .png().toBuffer());
  writeFileSync(at('items.json'), JSON.stringify([{ color: 'black' }, { color: 'white', placement: 'left-chest' }, { style: 'own:hoodie', color: 'navy' }]));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('inkprep mockup-batch', () => {
  it('writes one image per item into the folder and prints the list', async () => {
    const r = await runCli(['mockup-batch', at('art.png'), '-o', at('out'), '--style', 'own:classic-tee', '--output-size', '400', '--items', `@${at('items.json')}`, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { count: number; images: { index: number; file: string; garment: { key: string; color: { id: string } }; placement: string; print: { width_in: number } }[] };
    expect(body.count).toBe(3);
    expect(body.images.map((i) => path.basename(i.file))).toEqual(['00-own-classic-tee-black-full-front.png', '01-own-classic-tee-white-left-chest.png', '02-own-hoodie-navy-full-front.png']);
    expect(readdirSync(at('out')).sort()).toEqual(body.images.map((i) => path.basename(i.file)).sort());
    for (const img of body.images) {
      const meta = await sharp(img.file).metadata();
      expect(meta.format).toBe('png');
      expect(Math.max(meta.width!, meta.height!)).toBe(400);
    }
    expect(body.images[1]!.print.width_in).toBeLessThan(body.images[0]!.print.width_in);
  }, 300_000);

  it('an item mistake names the item (exit 2) and writes nothing', async () => {
    const r = await runCli(['mockup-batch', at('art.png'), '-o', at('bad'), '--style', 'own:classic-tee', '--items', '[{"color":"black"},{"color":"nope"}]']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toMatchObject({ code: 'invalid_option', field: 'items[1].color' });
    expect(existsSync(at('bad')) ? readdirSync(at('bad')) : []).toEqual([]);
  }, 120_000);
});
