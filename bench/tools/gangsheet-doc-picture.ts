// Renders docs/algorithms/gangsheet.png, the first picture of docs/algorithms/gangsheet.md: 31 copies of eight
// open-corpus designs on a 22 in roll, nested by today's engine with the API's defaults (rotation any, 0.125 in
// spacing, 0.25 in margins, the 5000 ms budget's work) and drawn as format=png draws it, then put on grey (so the transparency
// reads on the page) and scaled to 900 px wide. It prints the numbers the doc's caption quotes. The steps are
// format=png's (engine/src/ops/gangsheet.ts: decode, layoutGangsheet, cutDesigns (each design cut to its ink),
// renderSheetPng at the art's DPI up to 300) with one change: the 5 s wall-clock cap is moved out of the way, as the gang-sheet bench does, so the
// layout is the one the default work budget gives on any machine (an API call gives the same one unless a
// loaded machine hits the cap, which the manifest's search_capped says).
// Run: node --import tsx bench/tools/gangsheet-doc-picture.ts [out.png]
import sharp from 'sharp';
import type { Raster } from '@inkprep/engine';
import { cutDesigns, decodeImage, GANGSHEET_PNG_MAX_DPI, layoutGangsheet, renderSheetPng, resolveGangsheet } from '@inkprep/engine/internals';
import { readCorpus } from '../../golden/lib/corpus.js';

/** The order: a corpus file, its print width in inches, how many copies (31 in all). */
const ORDER = [
  { file: 'noto-1f988-shark.svg', widthIn: 5, quantity: 3 },
  { file: 'tw-1f98a-fox.svg', widthIn: 4, quantity: 3 },
  { file: 'lettering-brew-co.svg', widthIn: 7, quantity: 2 },
  { file: 'noto-1f3c0-basketball.svg', widthIn: 2.5, quantity: 6 },
  { file: 'si-starbucks.svg', widthIn: 3, quantity: 4 },
  { file: 'lettering-good-vibes.svg', widthIn: 6, quantity: 3 },
  { file: 'om-black-2693-anchor.svg', widthIn: 3, quantity: 4 },
  { file: 'noto-1f680-rocket.svg', widthIn: 3, quantity: 6 },
];
/** The picture's width in pixels (about 41 px an inch on a 22 in roll) and the grey behind the film. */
const WIDTH_PX = 900;
const GREY = '#d0d0d0';
const out = process.argv[2] ?? 'docs/algorithms/gangsheet.png';

// the designs as a shop sends them: PNGs, 1024 px on the longer side (as the gang-sheet bench rasterises)
const rasters: Raster[] = [];
for (const o of ORDER) {
  const png = await sharp(Buffer.from(readCorpus(o.file)), { density: 300 }).resize({ width: 1024, height: 1024, fit: 'inside' }).png().toBuffer();
  rasters.push((await decodeImage(new Uint8Array(png))).raster);
}
const items = ORDER.map((o, design) => ({ design, quantity: o.quantity, width_in: o.widthIn }));
const cpu0 = process.cpuUsage();
const l = layoutGangsheet(rasters, resolveGangsheet({ items }), 3_600_000);
const cpu = process.cpuUsage(cpu0);
const first = l.sheets[0]!;
const dpi = Math.min(GANGSHEET_PNG_MAX_DPI, Math.round(l.maxDpi));
console.log(`${l.placements.length} copies of ${ORDER.length} designs, ${l.sheets.length} sheet(s); sheet 1: ${first.widthIn} x ${first.lengthIn} in, ` +
  `utilisation ${(first.utilisation * 100).toFixed(1)} %, ink ${first.inkSqIn} sq in; PNG at ${dpi} DPI; ${Math.round((cpu.user + cpu.system) / 1000)} ms CPU to nest`);
const turns = new Map<string, number>();
for (const p of l.placements) {
  const key = `${ORDER[p.design]!.file} ${p.rotation}`;
  turns.set(key, (turns.get(key) ?? 0) + 1);
}
console.log(`turns: ${[...turns].map(([k, n]) => `${k}: ${n}`).join(', ')}`);
const png = await renderSheetPng(first.widthIn, first.lengthIn, dpi, l.placements.filter((p) => p.sheet === 0), cutDesigns(rasters, l.items));
await sharp(png, { limitInputPixels: false }).flatten({ background: GREY }).resize({ width: WIDTH_PX }).png({ palette: true }).toFile(out);
console.log(`written ${out}`);
