// A corpus design decoded to RGBA as the gang-sheet bench rasterises it (1024 px on the long side, 300 DPI for
// vectors), cached decoded in /tmp so the study tools' repeated runs skip sharp.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import type { Raster } from '@inkprep/engine';
import { readCorpus } from '../../golden/lib/corpus.js';

export async function corpusRaster(file: string): Promise<Raster> {
  const cache = `/tmp/gang-study-${file}.rgba`;
  if (existsSync(cache)) {
    const b = readFileSync(cache);
    return { width: b.readUInt32LE(0), height: b.readUInt32LE(4), data: new Uint8ClampedArray(b.buffer, b.byteOffset + 8, b.byteLength - 8) };
  }
  const png = await sharp(Buffer.from(readCorpus(file)), { density: 300 }).resize({ width: 1024, height: 1024, fit: 'inside' }).png().toBuffer();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const head = Buffer.alloc(8);
  head.writeUInt32LE(info.width, 0);
  head.writeUInt32LE(info.height, 4);
  writeFileSync(cache, Buffer.concat([head, data]));
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
}
