// Measures the `nothing_to_print` threshold (engine/src/underbase/report.ts, NOTHING_TO_PRINT_PERCENT) on real
// art: every open-corpus SVG, plus a few customer-upload variants of the black art (a light fringe left by a
// magic-wand cut-out, a glow and shadow), through the underbase plates on the catalog's colours (own style
// classic-tee: black, white, navy, heather grey, red; default knock-out = garment, default tolerance), and
// prints, per art and shirt, the share of the art's inked pixels that still print (counted, the warning's first
// measure) and of its ink (pixels weighted by alpha, what the warning compares now), both from printedShare,
// the warning's own function; then the distribution and the lowest cases. Results: docs/benchmarks/underbase.md.
// Run: node --import tsx bench/tools/underbase-nothing-to-print.ts [--size 1000] [--png out.png case ...]
// (a case is `file@colour[@variant]`, e.g. `gi-barn-owl.svg@black@fringe`: a contact sheet of those cases,
// each as white plate | colour plate | composite on the shirt, as bench/tools/underbase-previews.ts draws them).
import { readFileSync } from 'node:fs';
import sharp, { type OverlayOptions } from 'sharp';
import { computePlates, printedShare, resolveUnderbase, NOTHING_TO_PRINT_PERCENT, type PlateSet } from '@inkprep/engine/internals';
import type { Raster } from '@inkprep/engine';
import { corpusDir } from '../../golden/lib/corpus.js';
import { corpusArt, glowAndShadow, whiteOutline } from '../../golden/lib/customer-art.js';

const SHIRTS = ['black', 'white', 'navy', 'heather-grey', 'red'] as const;
const STYLE = 'own:classic-tee';
/** Upload variants built from one-colour black art (the art a dark shirt swallows). */
const VARIANTS = {
  fringe: (file: string, size: number) => whiteOutline(file, size, [0, 0, 0]),
  glow: (file: string, size: number) => glowAndShadow(file, size),
} as const;
type Variant = keyof typeof VARIANTS;

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const SIZE = Number(opt('--size') ?? 1000);

function art(file: string, variant: Variant | undefined, size: number): Promise<Raster> {
  return variant ? VARIANTS[variant](file, size) : corpusArt(file, size);
}

function plates(r: Raster, colour: string): PlateSet {
  return computePlates(r, resolveUnderbase({ style: STYLE, color: colour, printWidthInches: 10 }));
}

/** `pct`: share of the inked pixels that print (counted); `ink`: share of the ink (alpha-weighted), what the warning uses. */
function percent(p: PlateSet): { pct: number; ink: number } {
  const { inked, printed, inkPercent } = printedShare(p);
  return { pct: inked ? (printed / inked) * 100 : 0, ink: inkPercent };
}

async function table(): Promise<void> {
  const dir = corpusDir();
  if (!dir) throw new Error('corpus not found');
  const manifest = JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8')) as { items: Array<{ file: string; palette: string[] }> };
  const rows: Array<{ name: string; cells: Array<{ pct: number; ink: number }> }> = [];
  const blackArt: string[] = [];
  const f = (v: number): string => v.toFixed(v < 10 ? 2 : 1);
  console.log(`share that prints after the knock-out, %: inked pixels counted / ink (alpha-weighted); warning under ${NOTHING_TO_PRINT_PERCENT} % of the ink; art ${SIZE} px long side`);
  console.log(['art', ...SHIRTS].join('\t'));
  const run = async (name: string, r: Raster): Promise<void> => {
    const cells = SHIRTS.map((c) => percent(plates(r, c)));
    rows.push({ name, cells });
    console.log([name, ...cells.map((c) => `${f(c.pct)}/${f(c.ink)}`)].join('\t'));
  };
  for (const it of manifest.items) {
    await run(it.file, await corpusArt(it.file, SIZE));
    if (it.palette.length === 1 && it.palette[0] === '#000000') blackArt.push(it.file);
  }
  for (const file of blackArt) for (const v of Object.keys(VARIANTS) as Variant[]) await run(`${file}@${v}`, await art(file, v, SIZE));
  const bands = [0, 0.1, 1, 2, 5, 10, 50, 100.0001];
  for (const key of ['pct', 'ink'] as const) {
    console.log(`\nbands of ${key === 'pct' ? 'counted pixels' : 'ink'}: how many art per shirt print a share in [lo, hi) %`);
    console.log(['band', ...SHIRTS].join('\t'));
    for (let b = 0; b < bands.length - 1; b++) {
      const lo = bands[b]!, hi = bands[b + 1]!;
      console.log([`${lo}-${hi > 100 ? 100 : hi}`, ...SHIRTS.map((_, k) => rows.filter((r) => r.cells[k]![key] >= lo && r.cells[k]![key] < hi).length)].join('\t'));
    }
  }
  const low = rows.flatMap((r) => r.cells.map((c, k) => ({ name: r.name, shirt: SHIRTS[k]!, ...c }))).filter((x) => Math.min(x.pct, x.ink) < 50).sort((a, b) => a.ink - b.ink);
  console.log('\nall (art, shirt) under 50 % on either measure, lowest ink first: pixels %, ink %');
  for (const x of low) console.log(`${f(x.pct)}\t${f(x.ink)}\t${x.name}\t${x.shirt}`);
}

function hexRgb(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

async function sheet(out: string, cases: string[]): Promise<void> {
  const S = 320;
  const tiles: OverlayOptions[] = [];
  let top = 30;
  for (const c of cases) {
    const [file, colour, variant] = c.split('@') as [string, string, Variant | undefined];
    const r = await art(file, variant, S);
    const o = resolveUnderbase({ style: STYLE, color: colour, printWidthInches: 4 });
    const p = computePlates(r, o);
    const { pct, ink } = percent(p);
    const [gr, gg, gb] = hexRgb(o.garment!.hex);
    const g = [gr, gg, gb];
    const n = p.width * p.height;
    const plate = Buffer.alloc(n * 3), check = Buffer.alloc(n * 3), comp = Buffer.alloc(n * 3);
    const col = p.colour.data;
    for (let i = 0; i < n; i++) {
      const w = p.white[i]! / 255;
      const x = i % p.width, y = (i - x) / p.width;
      const cb = ((x >> 3) + (y >> 3)) & 1 ? 200 : 235;
      const a = col[i * 4 + 3]! / 255;
      for (let k = 0; k < 3; k++) {
        plate[i * 3 + k] = Math.round(40 + 210 * w);
        const base = g[k]! + (250 - g[k]!) * w;
        comp[i * 3 + k] = Math.round(base * (1 - a) + col[i * 4 + k]! * a);
        check[i * 3 + k] = Math.round(cb * (1 - a) + col[i * 4 + k]! * a);
      }
    }
    const raw = { width: p.width, height: p.height, channels: 3 as const };
    for (const [k, b] of [plate, check, comp].entries()) tiles.push({ input: await sharp(b, { raw }).png().toBuffer(), left: k * (S + 10), top });
    const label = `${c}: ${pct.toFixed(2)} % of inked pixels, ${ink.toFixed(2)} % of the ink print${ink < NOTHING_TO_PRINT_PERCENT ? ' (nothing_to_print)' : ''}`;
    tiles.push({ input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${3 * S + 20}" height="26"><text x="2" y="19" font-family="DejaVu Sans, sans-serif" font-size="15" fill="#222">${label}</text></svg>`), left: 0, top: top - 26 });
    top += p.height + 34;
  }
  await sharp({ create: { width: 3 * S + 20, height: top, channels: 3, background: '#ffffff' } }).composite(tiles).png().toFile(out);
  console.log(`wrote ${out}: white plate | colour plate | composite on the shirt`);
}

const png = opt('--png');
if (png) await sheet(png, args.slice(args.indexOf('--png') + 2));
else await table();
