// Fixture builders for the raster tests: every variant is generated here (sharp writes most of them;
// the decompression bomb is assembled chunk by chunk with zlib), so no binary fixtures are committed.
import sharp from 'sharp';
import { crc32, deflateSync } from 'node:zlib';

/** 40x20 RGBA card: left half red, right half blue, the last 4 columns transparent. */
export const CARD_W = 40;
export const CARD_H = 20;
export function cardPixels(): Buffer {
  const b = Buffer.alloc(CARD_W * CARD_H * 4);
  for (let y = 0; y < CARD_H; y++) {
    for (let x = 0; x < CARD_W; x++) b.set(x < CARD_W / 2 ? [255, 0, 0, 255] : [0, 0, 255, x >= CARD_W - 4 ? 0 : 255], (y * CARD_W + x) * 4);
  }
  return b;
}

/** sharp pipeline over the card. */
export function card() {
  return sharp(cardPixels(), { raw: { width: CARD_W, height: CARD_H, channels: 4 } });
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A valid PNG of `width` x `height` 1-bit greyscale zero pixels: 20000x20000 is 400 MP in ~50 KB
 * (a decompression bomb). The rows are deflated from one reused zero buffer, streamed in pieces.
 */
export function bombPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const rowBytes = 1 + Math.ceil(width / 8);
  const raw = Buffer.alloc(rowBytes * height); // zero filter byte + zero pixels
  const idat = deflateSync(raw, { level: 9 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** Insert a chunk right after IHDR of a PNG. */
export function withChunkAfterIhdr(png: Buffer, type: string, data: Buffer): Buffer {
  const ihdrEnd = 8 + 12 + 13;
  return Buffer.concat([png.subarray(0, ihdrEnd), chunk(type, data), png.subarray(ihdrEnd)]);
}

/** Pixel [r, g, b, a] of a raster. */
export function px(r: { width: number; data: Uint8ClampedArray }, x: number, y: number): number[] {
  const p = (y * r.width + x) * 4;
  return Array.from(r.data.subarray(p, p + 4));
}
