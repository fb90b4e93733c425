// Renders docs/algorithms/underbase-previews.png: corpus art on several garment colours, each as the white plate
// (white on a dark ground), the colour plate (knock-out applied, on a checkerboard) and the composite as it
// prints (garment, then white, then colour). Run: node --import tsx bench/tools/underbase-previews.ts [out.png] [rows]
// (rows: a comma list of row numbers from 0, e.g. `2,4` for the README's two-row picture).
import sharp, { type OverlayOptions } from 'sharp';
import { createEngine } from '@inkprep/engine';
import { corpusArt } from '../../golden/lib/customer-art.js';

/** Art and the garments to show it on (black line art on black shows the knock-out). */
const ROWS: Array<[string, string, string]> = [
  ['lettering-good-vibes.svg', 'black', '#1b1b1d'], ['lettering-good-vibes.svg', 'heather grey', '#aaaaa8'],
  ['noto-1f3c0-basketball.svg', 'black', '#1b1b1d'], ['noto-1f3c0-basketball.svg', 'white', '#f6f6f3'],
  ['flag-ca.svg', 'navy', '#1e2840'], ['noto-1f308-rainbow.svg', 'black', '#1b1b1d'],
];
const SIZE = 360;
const PAD = 12;

const engine = createEngine({ threads: 0 });
const out = process.argv[2] ?? 'docs/algorithms/underbase-previews.png';

function hexRgb(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const tiles: OverlayOptions[] = [];
const pick = process.argv[3]?.split(',').map(Number);
const rows = pick ? ROWS.filter((_, i) => pick.includes(i)) : ROWS;
let top = 30;
for (const [file, name, hex] of rows) {
  const art = await corpusArt(file, SIZE - 2 * PAD, PAD);
  {
    const res = await engine.underbase(art, { garmentColor: hex, printWidthInches: 4, format: 'json' });
    const white = await sharp(res.data).extractChannel(0).raw().toBuffer();
    const colour = await sharp(res.colourPlate!).ensureAlpha().raw().toBuffer();
    const [gr, gg, gb] = hexRgb(hex);
    const n = art.width * art.height;
    const plate = Buffer.alloc(n * 3);
    const comp = Buffer.alloc(n * 3);
    const check = Buffer.alloc(n * 3);
    for (let i = 0; i < n; i++) {
      const w = white[i]! / 255;
      // white plate: white ink on a dark slate ground
      for (let c = 0; c < 3; c++) plate[i * 3 + c] = Math.round(40 + (250 - 40) * w);
      const x = i % art.width, y = Math.floor(i / art.width);
      const cb = ((x >> 3) + (y >> 3)) & 1 ? 200 : 235;
      const a = colour[i * 4 + 3]! / 255;
      const g = [gr, gg, gb];
      for (let c = 0; c < 3; c++) {
        const base = g[c]! + (250 - g[c]!) * w; // white ink over the garment
        comp[i * 3 + c] = Math.round(base * (1 - a) + colour[i * 4 + c]! * a);
        check[i * 3 + c] = Math.round(cb * (1 - a) + colour[i * 4 + c]! * a);
      }
    }
    const raw = { width: art.width, height: art.height, channels: 3 as const };
    for (const [k, buf] of [plate, check, comp].entries()) {
      tiles.push({ input: await sharp(buf, { raw }).png().toBuffer(), left: k * (SIZE + 10), top });
    }
    const label = `${file.replace('.svg', '')} on ${name} ${hex}: white ${res.stats.whiteCoveragePercent} %, knocked out ${res.stats.knockedOutSqIn} sq in${res.warnings.length ? `, ${res.warnings.map((w) => w.code).join(', ')}` : ''}`;
    tiles.push({ input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${3 * SIZE + 20}" height="26"><text x="2" y="19" font-family="DejaVu Sans, sans-serif" font-size="16" fill="#222">${label}</text></svg>`), left: 0, top: top - 26 });
    top += art.height + 34;
  }
}
await sharp({ create: { width: 3 * SIZE + 20, height: top, channels: 3, background: '#ffffff' } }).composite(tiles).png().toFile(out);
await engine.close();
console.log(`wrote ${out} (${rows.length} rows: white plate | colour plate | composite on the garment)`);
