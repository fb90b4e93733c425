// `inkprep gangsheet` as a child process: designs as repeated --design flags, the order inline or from a file
// (--items @file), the PDF written to -o with the manifest on stdout, the manifest as a JSON file, and an
// item error naming the item (exit 2); with --underbase true: the PDF's White separation, and a png sheet
// written as sheet.png plus sheet-white.png (or the zip with -o x.zip); the white layer's garment as a catalog
// style + colour (own, and a supplier's through a local S&S stub) gives the plate of the equivalent hex.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { OWN_STYLES } from '@inkprep/engine';
import { SS_RED, startSsStub } from '../http/ss-stub.js';
import { runCli } from './run-cli.js';

let dir = '';
const at = (name: string) => path.join(dir, name);
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-gangsheet-'));
  const w = 300;
  const disc = Buffer.alloc(w * w * 4);
  for (let y = 0; y < w; y++) for (let x = 0; x < w; x++) if ((x - 150) ** 2 + (y - 150) ** 2 <= 150 ** 2) disc.set([30, 30, 200, 255], (y * w + x) * 4);
  writeFileSync(at('disc.png'), await sharp(disc, { raw: { width: w, height: w, channels: 4 } }).png().toBuffer());
  const wedge = Buffer.alloc(w * 150 * 4);
  for (let y = 0; y < 150; y++) for (let x = 0; x < w; x++) if (y >= (x / w) * 150) wedge.set([30, 160, 30, 255], (y * w + x) * 4);
  writeFileSync(at('wedge.png'), await sharp(wedge, { raw: { width: w, height: 150, channels: 4 } }).png().toBuffer());
  writeFileSync(at('items.json'), JSON.stringify([{ design: 0, quantity: 3, width_in: 2 }, { design: 1, quantity: 4, width_in: 2 }]));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Runs whose outputs are compared must lay out alike: a long wall-clock cap keeps a busy machine's clock out of
// it (these small orders end their search on their own, as with the default budget).
const UNCAPPED = ['--time-budget-ms', '60000'];

describe('inkprep gangsheet', () => {
  it('writes the PDF and prints the manifest; --items @file; the json format writes the manifest', async () => {
    const r = await runCli(['gangsheet', '-o', at('sheet.pdf'), '--design', at('disc.png'), '--design', at('wedge.png'), '--items', `@${at('items.json')}`, '--sheet-width-in', '11', ...UNCAPPED]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(at('sheet.pdf')).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const summary = JSON.parse(r.stdout) as { format: string; sheets: { width_in: number; length_in: number }[]; placements: { item: number; copy: number }[] };
    expect(summary.format).toBe('pdf');
    expect(summary.sheets).toHaveLength(1);
    expect(summary.sheets[0]!.width_in).toBe(11);
    expect(summary.placements).toHaveLength(7);
    const j = await runCli(['gangsheet', '-o', at('sheet.json'), '--design', at('disc.png'), '--design', at('wedge.png'), '--items', readFileSync(at('items.json'), 'utf8'), '--sheet-width-in', '11', ...UNCAPPED]);
    expect(j.code, j.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(at('sheet.json'), 'utf8')) as { placements: unknown[]; sheets: unknown[] };
    expect(manifest.placements).toEqual(summary.placements);
    expect(manifest.sheets).toEqual(summary.sheets);
  }, 120_000);

  it('an item that fits nowhere is exit 2 naming the item', async () => {
    const r = await runCli(['gangsheet', '-o', at('bad.pdf'), '--design', at('disc.png'), '--items', '[{"design":0,"quantity":1,"width_in":1},{"design":0,"quantity":1,"width_in":12}]', '--sheet-width-in', '11', ...UNCAPPED]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('items[1].width_in');
    const none = await runCli(['gangsheet', '-o', at('none.pdf'), '--items', '[]']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--design');
  }, 120_000);

  it('--underbase true: the White separation in the PDF; a png sheet as sheet.png + sheet-white.png, or one zip', async () => {
    const base = ['--design', at('disc.png'), '--design', at('wedge.png'), '--items', `@${at('items.json')}`, '--sheet-width-in', '11', ...UNCAPPED, '--underbase', 'true', '--choke-mm', '0.3'];
    const pdf = await runCli(['gangsheet', '-o', at('white.pdf'), ...base, '--spot-name', 'W1']);
    expect(pdf.code, pdf.stderr).toBe(0);
    expect(readFileSync(at('white.pdf')).toString('latin1').match(/\/Separation \/W1 /g)).toHaveLength(2);
    const summary = JSON.parse(pdf.stdout) as { white: { spot_name: string; choke_mm: number; plate_sets: number } };
    expect(summary.white).toMatchObject({ spot_name: 'W1', choke_mm: 0.3, plate_sets: 2 });
    const png = await runCli(['gangsheet', '-o', at('white.png'), ...base]);
    expect(png.code, png.stderr).toBe(0);
    const colour = await sharp(at('white.png')).metadata();
    const white = await sharp(at('white-white.png')).metadata();
    expect([white.width, white.height]).toEqual([colour.width, colour.height]);
    expect([colour.channels, white.channels]).toEqual([4, 1]);
    const zip = await runCli(['gangsheet', '-o', at('sheet.zip'), ...base]);
    expect(zip.code, zip.stderr).toBe(0);
    expect(readFileSync(at('sheet.zip')).subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 3, 4]));
    expect(existsSync(at('sheet-white.png'))).toBe(false);
    const noWhite = await runCli(['gangsheet', '-o', at('plain.zip'), '--design', at('disc.png'), '--items', '[{"design":0,"width_in":2}]']);
    expect(noWhite.code).toBe(2);
    expect(noWhite.stderr).toContain('--underbase true');
  }, 180_000);

  it('--style and --color take the white layer\'s garment from the catalog: the plate of the equivalent hex', async () => {
    const navy = OWN_STYLES.find((st) => st.id === 'classic-tee')!.colors.find((c) => c.id === 'navy')!.hex;
    // a navy ring around a blue disc: the ring is knocked out on a navy shirt
    const ring = Buffer.alloc(200 * 200 * 4);
    for (let y = 0; y < 200; y++) for (let x = 0; x < 200; x++) {
      const r = Math.hypot(x - 100, y - 100);
      if (r < 95) ring.set(r < 55 ? [40, 140, 255, 255] : [...[1, 3, 5].map((i) => parseInt(navy.slice(i, i + 2), 16)), 255], (y * 200 + x) * 4);
    }
    writeFileSync(at('ring.png'), await sharp(ring, { raw: { width: 200, height: 200, channels: 4 } }).png().toBuffer());
    const stub = await startSsStub();
    const env = { INKPREP_SS_ACCOUNT: '1', INKPREP_SS_API_KEY: 'k', INKPREP_SS_BASE_URL: stub.baseUrl };
    try {
      const base = ['--design', at('ring.png'), '--items', '[{"design":0,"quantity":3,"width_in":2}]', '--sheet-width-in', '11', ...UNCAPPED, '--underbase', 'true', '--format', 'png'];
      const plate = async (name: string, garment: string[]) => {
        const r = await runCli(['gangsheet', '-o', at(`${name}.png`), ...base, ...garment], env);
        expect(r.code, r.stderr).toBe(0);
        return { white: (JSON.parse(r.stdout) as { white: Record<string, unknown> }).white, pixels: await sharp(at(`${name}-white.png`)).extractChannel(0).raw().toBuffer() };
      };
      const byStyle = await plate('own', ['--style', 'own:classic-tee', '--color', 'navy']);
      const byHex = await plate('hex', ['--garment-color', navy]);
      const bare = await plate('bare', []);
      expect(byStyle.white).toMatchObject({ garment_color: navy, garment_source: 'own:classic-tee:navy', knockout: 'garment' });
      expect(byStyle.pixels.equals(byHex.pixels)).toBe(true);
      expect(byStyle.pixels.equals(bare.pixels)).toBe(false);
      const supplier = await plate('ss', ['--style', 'ss:39', '--color', 'red']);
      expect(supplier.white).toMatchObject({ garment_color: SS_RED, garment_source: 'ss:39:red' });
      expect(supplier.pixels.equals((await plate('ss-hex', ['--garment-color', SS_RED])).pixels)).toBe(true);
      for (const [garment, field] of [[['--style', 'ss:39', '--color', 'ultraviolet'], 'color'], [['--style', 'own:tuxedo'], 'style']] as const) {
        const bad = await runCli(['gangsheet', '-o', at('bad.png'), ...base, ...garment], env);
        expect(bad.code, bad.stderr).toBe(2);
        expect(bad.stderr).toContain(`"field":"${field}"`);
      }
    } finally {
      await stub.close();
    }
  }, 180_000);
});
