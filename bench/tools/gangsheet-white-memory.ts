// Peak memory of a 22 x 200 in gang sheet at 300 DPI with and without the white layer (issue 32): the same
// order (corpus art at 2-6 in, 300 DPI, repeated until the sheet is about 200 in long) made in a fresh child
// process per output, so each peak RSS is that output's own: format png (one RGBA PNG), png with underbase
// (the zip of the colour PNG and the white plate PNG), pdf with underbase (the White separation).
// Run: node --import tsx bench/tools/gangsheet-white-memory.ts [length_in]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createEngine, packDesigns } from '@inkprep/engine';
import { readCorpus } from '../../golden/lib/corpus.js';

const FILES = ['si-starbucks.svg', 'lettering-good-vibes.svg', 'gi-barn-owl.svg', 'noto-1f3c0-basketball.svg', 'tw-1f98a-fox.svg', 'om-black-2693-anchor.svg'];
const WIDTHS_IN = [4, 6, 5, 3, 4, 3];
const MODES = { png: { format: 'png' }, 'png + white': { format: 'png', underbase: true }, 'pdf + white': { format: 'pdf', underbase: true } } as const;
type Mode = keyof typeof MODES;

async function child(mode: Mode, lengthIn: number): Promise<void> {
  const designs = await Promise.all(FILES.map(async (f, i) => new Uint8Array(await sharp(Buffer.from(readCorpus(f)), { density: 300 })
    .resize({ width: Math.round(WIDTHS_IN[i]! * 300) }).png().toBuffer())));
  // the six designs' boxes at 1.8 x the sheet's area: the nested copies fill it (they nest into each other's boxes)
  const quantity = Math.max(1, Math.round((22 * lengthIn * 1.8) / WIDTHS_IN.reduce((s, w) => s + w * w, 0)));
  const items = FILES.map((_, i) => ({ design: i, quantity, width_in: WIDTHS_IN[i]! }));
  const engine = createEngine({ threads: 0 });
  const opts = { items, sheetWidthIn: 22, maxLengthIn: lengthIn, garmentColor: '#1b1b1d', timeBudgetMs: 5000, ...MODES[mode] };
  const rss0 = process.resourceUsage().maxRSS;
  const t0 = performance.now();
  const out = await engine.gangsheet(packDesigns(designs), opts);
  const ms = performance.now() - t0;
  const rss1 = process.resourceUsage().maxRSS;
  const s = out.layout.sheets[0]!;
  process.stdout.write(JSON.stringify({
    mode, sheet: `22 x ${s.lengthIn}`, copies: s.copies, dpi: out.pngDpi ?? 300, MP: Math.round((22 * s.lengthIn * 300 * 300) / 1e6),
    'output MB': Math.round((out.data.byteLength / 2 ** 20) * 10) / 10, ms: Math.round(ms),
    'peak RSS before MB': Math.round(rss0 / 1024), 'peak RSS after MB': Math.round(rss1 / 1024),
  }) + '\n');
  await engine.close();
}

const [, , first, second] = process.argv;
if (first && first in MODES) await child(first as Mode, Number(second));
else {
  const lengthIn = Number(first ?? 200);
  const self = fileURLToPath(import.meta.url);
  const rows = (Object.keys(MODES) as Mode[]).map((m) => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', self, m, String(lengthIn)], { encoding: 'utf8', maxBuffer: 1 << 20 })) as Record<string, unknown>);
  console.table(rows);
}
