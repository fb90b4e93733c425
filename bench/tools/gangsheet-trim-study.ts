// The bench's mixed set (bench/lib/gangsheet-sets.ts) laid out once with the default work budget (the clock's
// cap out of the way) and written as the PDF and the PNG of its first sheet, as the op writes them: the PDF's
// size, the PNG's SHA-256 and where the ink landed, so two builds (before and after a change to the outputs)
// can be compared on the same layout. Also checks every placement box lies on the sheet inside the margins.
// Run: node --import tsx bench/tools/gangsheet-trim-study.ts [outdir]   (writes layout.json, sheet.pdf, sheet.png)
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import type { Raster } from '@inkprep/engine';
import * as internals from '@inkprep/engine/internals';
import { layoutGangsheet, renderSheetPng, resolveGangsheet, writeGangPdf } from '@inkprep/engine/internals';
import { MARGIN, mixedSet, ROLL, SPACING } from '../lib/gangsheet-sets.js';
import { readCorpus } from '../../golden/lib/corpus.js';

const out = process.argv[2] ?? '/tmp/gangsheet-trim-study';
mkdirSync(out, { recursive: true });
const set = mixedSet(false);
const files = [...new Set(set.map((s) => s.file))];
const rasters: Raster[] = await Promise.all(files.map(async (f) => {
  const png = await sharp(Buffer.from(readCorpus(f)), { density: 300 }).resize({ width: 1024, height: 1024, fit: 'inside' }).png().toBuffer();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
}));
const items = set.map((s) => ({ design: files.indexOf(s.file), quantity: s.quantity, width_in: s.widthIn }));
const opts = resolveGangsheet({ items, sheetWidthIn: ROLL, maxLengthIn: 1200, spacingIn: SPACING, marginIn: MARGIN });
const l = layoutGangsheet(rasters, opts, 3_600_000);
// what the op draws: each design cut to its ink when the engine does so (cutDesigns), else the file as sent
const cut = (internals as Record<string, unknown>).cutDesigns as ((d: (Raster | null)[], items: unknown) => (Raster | null)[]) | undefined;
const drawn = cut ? cut([...rasters], (l as unknown as { items: unknown }).items) : rasters;
const sheet = l.sheets[0]!;
const pdf = writeGangPdf(ROLL, l.sheets.map((s) => s.lengthIn), l.placements, drawn);
const dpi = Math.min(300, Math.round(l.maxDpi));
const png = await renderSheetPng(ROLL, sheet.lengthIn, dpi, l.placements.filter((p) => p.sheet === 0), drawn);
writeFileSync(`${out}/sheet.pdf`, pdf);
writeFileSync(`${out}/sheet.png`, png);
writeFileSync(`${out}/layout.json`, JSON.stringify(l, null, 1));
let outside = 0;
for (const p of l.placements) {
  const len = l.sheets[p.sheet]!.lengthIn;
  if (p.xIn < MARGIN - 1e-9 || p.yIn < MARGIN - 1e-9 || p.xIn + p.widthIn > ROLL - MARGIN + 1e-9 || p.yIn + p.heightIn > len - MARGIN + 1e-9) outside++;
}
console.log(JSON.stringify({
  copies: l.placements.length, sheets: l.sheets.map((s) => s.lengthIn), searchCapped: l.searchCapped,
  pdfBytes: pdf.byteLength, pngBytes: png.byteLength, pngDpi: dpi, pngSha256: createHash('sha256').update(png).digest('hex'),
  boxesOutsideMargins: outside, minX: Math.min(...l.placements.map((p) => p.xIn)), minY: Math.min(...l.placements.map((p) => p.yIn)),
}));
