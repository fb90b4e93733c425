// Fidelity guard for refactors: SHA-256 of every vectorize output (SVG and the requested document) for the 40
// corpus artworks at 1024 px, as PNG and as JPEG q85 (flattened on white), under six option sets. Runs through
// the public engine API only (in-thread engine, text options as HTTP and the CLI send them), so it survives any
// internal move. Usage: `node --import tsx bench/tools/vectorize-hashes.ts > after.txt`, then `diff before.txt
// after.txt` against the same output of the build before the change: no line may differ.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { createEngine, textOptions } from '@inkprep/engine';
import { rasteriseSvg } from '../../golden/lib/metrics.js';
import { corpusDir } from '../../golden/lib/corpus.js';

const OPTION_SETS: Record<string, Record<string, string>> = {
  default: {},
  smoother: { detail: 'smoother' },
  'precise-6': { detail: 'precise', colors: '6' },
  'cutout-noprim': { shape_style: 'cutout', primitives: 'false' },
  'grad-unlim-noclean': { gradients: 'true', colors: 'unlimited', edge_cleanup: 'false', smooth_bands: 'false' },
  'colors-1': { colors: '1' },
  pdf: { output_format: 'pdf', print_width_inches: '10' },
  dxf: { output_format: 'dxf', dxf_units: 'mm' },
};

const dir = corpusDir();
if (!dir) throw new Error('corpus not found');
const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { items: { file: string; id: string }[] };
const only = process.env.HASH_ONLY;
const engine = createEngine({ threads: 0 });
const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex').slice(0, 16);
for (const it of manifest.items) {
  if (only && !it.id.includes(only)) continue;
  const art = await rasteriseSvg(readFileSync(path.join(dir, it.file), 'utf8'), 1024, { fit: 'long-side' });
  const raw = { raw: { width: art.width, height: art.height, channels: 4 as const } };
  const png = await sharp(Buffer.from(art.data.buffer, art.data.byteOffset, art.data.byteLength), raw).png().toBuffer();
  const jpg = await sharp(Buffer.from(art.data.buffer, art.data.byteOffset, art.data.byteLength), raw).flatten({ background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer();
  for (const [variant, bytes] of [['png', png], ['jpg', jpg]] as const) {
    for (const [name, fields] of Object.entries(OPTION_SETS)) {
      const r = await engine.vectorize(new Uint8Array(bytes), textOptions(fields));
      process.stdout.write(`${it.id} ${variant} ${name} svg=${sha(r.svg)} data=${sha(r.data)} paths=${r.paths} colours=${r.colorsUsed}\n`);
    }
  }
}
await engine.close();
