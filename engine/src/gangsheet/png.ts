// One sheet as an RGBA PNG, rendered in horizontal strips straight into the zlib stream, so memory holds one
// strip and the compressed file, never the whole sheet (22 x 200 in at 300 DPI is about 400 MP, 1.6 GB raw).
// Pixels are sampled nearest-neighbour from the design at the sheet's resolution. The white layer's plate is
// rendered the same way from the designs' white plates as an 8-bit grey PNG on the same pixel grid.
import { once } from 'node:events';
import { createDeflate, crc32 } from 'node:zlib';
import type { Raster } from '../raster/types.js';
import { sheetToImage, type GangPlacement } from './place.js';

/** Rows rendered at a time. */
const STRIP_ROWS = 64;

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** A white plate to draw from: one byte a pixel, 0 (no white) to 255. */
export interface GreyArt {
  width: number;
  height: number;
  grey: Uint8Array;
}

/** Which source a placement draws (default: its design's). */
export interface SheetPngSources {
  sourceOf?: (p: GangPlacement) => number;
}

/**
 * The sheet `widthIn` x `lengthIn` at `dpi` with `placements` (this sheet's) drawn from `designs` (RGBA, an
 * RGBA PNG), or from grey plates (a grey PNG: the white plate) with `sourceOf` naming each placement's.
 * @example await renderSheetPng(22, 40, 300, placements, rasters)
 */
export async function renderSheetPng(widthIn: number, lengthIn: number, dpi: number, placements: readonly GangPlacement[], designs: readonly (Raster | null)[] | readonly GreyArt[], how: SheetPngSources = {}): Promise<Uint8Array> {
  const W = Math.max(1, Math.round(widthIn * dpi));
  const H = Math.max(1, Math.round(lengthIn * dpi));
  const grey = designs.some((d) => d !== null && 'grey' in d);
  const ch = grey ? 1 : 4;
  const stride = 1 + W * ch;
  const deflate = createDeflate({ level: 6 });
  const parts: Buffer[] = [];
  deflate.on('data', (c: Buffer) => parts.push(c));
  const ended = once(deflate, 'end');
  const boxes = placements.map((p) => ({
    p,
    r: designs[how.sourceOf ? how.sourceOf(p) : p.design]!,
    x0: Math.max(0, Math.floor(p.xIn * dpi)),
    x1: Math.min(W, Math.ceil((p.xIn + p.widthIn) * dpi)),
    y0: Math.max(0, Math.floor(p.yIn * dpi)),
    y1: Math.min(H, Math.ceil((p.yIn + p.heightIn) * dpi)),
  }));
  for (let top = 0; top < H; top += STRIP_ROWS) {
    const rows = Math.min(STRIP_ROWS, H - top);
    const strip = Buffer.alloc(rows * stride); // filter byte 0 (none) on every row
    for (const b of boxes) {
      if (b.y1 <= top || b.y0 >= top + rows) continue;
      const { p, r } = b;
      const src = 'grey' in r ? r.grey : r.data;
      // sheetToImage is affine: its coefficients once, then two multiply-adds a pixel
      const [s0, t0] = sheetToImage(p, 0, 0);
      const [sx, tx] = sheetToImage(p, 1, 0);
      const [sy, ty] = sheetToImage(p, 0, 1);
      const dsx = (sx - s0) / dpi, dtx = (tx - t0) / dpi, dsy = (sy - s0) / dpi, dty = (ty - t0) / dpi;
      for (let py = Math.max(b.y0, top); py < Math.min(b.y1, top + rows); py++) {
        const rowAt = (py - top) * stride + 1;
        for (let px = b.x0; px < b.x1; px++) {
          const s = s0 + dsx * (px + 0.5) + dsy * (py + 0.5);
          const t = t0 + dtx * (px + 0.5) + dty * (py + 0.5);
          if (s < 0 || s >= 1 || t < 0 || t >= 1) continue;
          const si = ((Math.floor(t * r.height) * r.width) + Math.floor(s * r.width)) * ch;
          if (grey) {
            // boxes of nested copies overlap: only ink is written, never a neighbour's zero over it
            if (src[si] !== 0) strip[rowAt + px] = src[si]!;
            continue;
          }
          if (src[si + 3] === 0) continue;
          const di = rowAt + px * 4;
          strip[di] = src[si]!;
          strip[di + 1] = src[si + 1]!;
          strip[di + 2] = src[si + 2]!;
          strip[di + 3] = src[si + 3]!;
        }
      }
    }
    if (!deflate.write(strip)) await once(deflate, 'drain');
  }
  deflate.end();
  await ended;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(W, 0);
  ihdr.writeUInt32BE(H, 4);
  ihdr.set([8, grey ? 0 : 6, 0, 0, 0], 8); // 8-bit grey or RGBA, no interlace
  const phys = Buffer.alloc(9);
  const ppm = Math.round(dpi / 0.0254);
  phys.writeUInt32BE(ppm, 0);
  phys.writeUInt32BE(ppm, 4);
  phys[8] = 1; // metre
  const head = Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('pHYs', phys)]);
  const idat = Buffer.concat(parts);
  parts.length = 0;
  const tail = chunk('IEND', new Uint8Array(0));
  const idatChunk = chunk('IDAT', idat);
  const out = new Uint8Array(head.length + idatChunk.length + tail.length); // own ArrayBuffer: transferable
  out.set(head, 0);
  out.set(idatChunk, head.length);
  out.set(tail, head.length + idatChunk.length);
  return out;
}
