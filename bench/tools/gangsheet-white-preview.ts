// Renders docs/algorithms/gangsheet-white.png: a 13 in gang sheet of corpus art for a black shirt with the white
// layer, as a PDF viewer shows it (poppler, left) and its White separation as the RIP gets it (Ghostscript
// tiffsep, white ink drawn white, right). Needs gs and pdftoppm.
// Run: node --import tsx bench/tools/gangsheet-white-preview.ts [out.png]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createEngine, packDesigns } from '@inkprep/engine';
import { readCorpus } from '../../golden/lib/corpus.js';

const FILES = ['lettering-good-vibes.svg', 'noto-1f3c0-basketball.svg', 'tw-1f98a-fox.svg'];
const ITEMS = [{ design: 0, quantity: 3, width_in: 4 }, { design: 1, quantity: 4, width_in: 2.5 }, { design: 2, quantity: 3, width_in: 3 }];
const DPI = 60;
const out = process.argv[2] ?? 'docs/algorithms/gangsheet-white.png';

const designs = await Promise.all(FILES.map(async (f) => new Uint8Array(await sharp(Buffer.from(readCorpus(f)), { density: 300 }).resize({ width: 600 }).png().toBuffer())));
const engine = createEngine({ threads: 0 });
const sheet = await engine.gangsheet(packDesigns(designs), { items: ITEMS, sheetWidthIn: 13, underbase: true, garmentColor: '#1b1b1d', format: 'pdf' });
await engine.close();
const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-gangwhite-preview-'));
try {
  const pdf = path.join(dir, 'sheet.pdf');
  writeFileSync(pdf, sheet.data);
  execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=tiffsep', `-r${DPI}`, `-sOutputFile=${path.join(dir, 'sep.tif')}`, pdf]);
  execFileSync('pdftoppm', ['-r', String(DPI), '-png', '-singlefile', pdf, path.join(dir, 'composite')]);
  // tiffsep: 0 is full ink; negated, the white ink shows white on black
  const white = await sharp(path.join(dir, 'sep(White).tif')).extractChannel(0).negate().toColourspace('srgb').png().toBuffer();
  const view = await sharp(path.join(dir, 'composite.png')).png().toBuffer();
  const { width = 0, height = 0 } = await sharp(view).metadata();
  await sharp({ create: { width: width * 2 + 30, height: height + 20, channels: 3, background: '#888888' } })
    .composite([{ input: view, left: 10, top: 10 }, { input: white, left: width + 20, top: 10 }]).png().toFile(out);
  console.log(`wrote ${out} (${width * 2 + 30} x ${height + 20}); white layer ${JSON.stringify(sheet.layout.white)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
