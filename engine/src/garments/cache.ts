// Render-once cache of blanks. The neutral render of a style/view/resolution is computed once, kept in
// memory and written to disk (the engine's garment cache directory, EngineOptions.dataDir/garmentCacheDir);
// coloured renders and their resamples to an output size are kept in memory too, all within the thread's one
// cache budget (cache/memory.ts). Each worker thread has its own memory cache; the disk cache is shared
// (written atomically by rename).
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { memoryCacheClear, memoryCacheGet, memoryCachePut } from '../cache/memory.js';
import { colorize, type ColorSpec } from './colorize.js';
import { renderNeutral, type NeutralRender } from './shade.js';
import type { OwnStyle, View } from './specs.js';

/** Long sides the neutral render is made at; an output uses the smallest one at least as large (else the largest). */
export const RENDER_SIZES = [512, 1024, 2048] as const;
const FORMAT_VERSION = 9;
/** Version of colorize() (colouring a cached neutral render; the neutral files do not depend on it). */
const COLOR_VERSION = 3;
/** Changes whenever blanks render differently (cached pictures keyed by it go stale). */
export const GARMENT_RENDER_VERSION = FORMAT_VERSION * 100 + COLOR_VERSION;

/** A coloured blank ready to composite on, at some pixel size. */
export interface GarmentAsset {
  width: number;
  height: number;
  /** Pixels per inch at the style's reference size. */
  ppi: number;
  center_x: number;
  collar_y: number;
  /** Opaque RGBA (backdrop included). */
  rgba: Uint8ClampedArray;
  /** Garment coverage 0-255. */
  mask: Uint8Array;
  /** Where ink may go 0-255 (no drawstrings, openings or rib bands). */
  print_mask: Uint8Array;
  /** Fold relief, inches (0 on flat cloth): the ink is displaced along it. */
  fold_in: Float32Array;
  /** Light on the cloth, 1 = the body's median, x SHADE_SCALE: the ink is lit by it (no yarn colour). */
  light: Uint16Array;
}

/** Disk cache of rendered blanks when the host names no directory: a folder of the OS temp directory. */
export function defaultGarmentCacheDir(): string {
  return path.join(os.tmpdir(), 'inkprep-garments');
}

/** Smallest render size covering `longSide` px. */
export function renderSizeFor(longSide: number): number {
  for (const s of RENDER_SIZES) if (s >= longSide) return s;
  return RENDER_SIZES[RENDER_SIZES.length - 1];
}

// Every entry lives in the thread's one memory cache (cache/memory.ts: one byte budget, least recently used
// first out) under these prefixes, counted at what each holds of its own:
// - neutral render of a style/view at a render size: 11 bytes per pixel (mask, print mask, 16-bit shade, sheen,
//   yarn, shadow, 32-bit folds);
// - coloured blank at a render size: its RGBA, 4 (it shares the neutral's mask, print mask, folds and shade, so
//   it is the neutral's child in the cache: dropped with it, never kept without it). It is both the answer at
//   that size and the source every output size of the colour is resampled from, so a new output size of a
//   colour costs a resample, not a colouring;
// - geometry at an output size: the colour-free fields resampled (mask, print mask, 32-bit folds, 16-bit light),
//   8, shared by every colour at that size (resampling them costs more than colouring);
// - coloured blank at an output size: its RGBA, 4, the child of that size's geometry.
const NEUTRAL = 'garment:n:';
const COLOURED = 'garment:c:';
const GEOMETRY = 'garment:g:';
const RESAMPLED = 'garment:r:';
const NEUTRAL_BYTES_PER_PX = 11;
const RGBA_BYTES_PER_PX = 4;
const GEOMETRY_BYTES_PER_PX = 8;
const pending = new Map<string, Promise<unknown>>();

function once<T>(key: string, make: () => Promise<T>): Promise<T> {
  const p = pending.get(key) as Promise<T> | undefined;
  if (p) return p;
  const q = make().finally(() => pending.delete(key));
  pending.set(key, q);
  return q;
}

/** Drop the in-memory caches (tests, benches). The disk cache stays. */
export function clearGarmentMemory(): void {
  memoryCacheClear('garment:');
}

// Disk layout of a neutral render: a JSON header line, then the arrays back to back.
function serialize(n: NeutralRender): Buffer {
  const head = Buffer.from(JSON.stringify({ v: FORMAT_VERSION, width: n.width, height: n.height, ppi: n.ppi, center_x: n.center_x, collar_y: n.collar_y }) + '\n');
  const parts = [n.mask, n.print_mask, n.shade, n.sheen, n.yarn, n.shadow, n.fold_in].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  const pad = (4 - ((head.length + parts.slice(0, 6).reduce((s, p) => s + p.length, 0)) % 4)) % 4;
  return Buffer.concat([head, ...parts.slice(0, 6), Buffer.alloc(pad), parts[6]!]);
}

function deserialize(buf: Buffer): NeutralRender | null {
  const nl = buf.indexOf(10);
  if (nl < 0) return null;
  let h: { v: number; width: number; height: number; ppi: number; center_x: number; collar_y: number };
  try {
    h = JSON.parse(buf.subarray(0, nl).toString('utf8'));
  } catch {
    return null;
  }
  if (h.v !== FORMAT_VERSION) return null;
  const N = h.width * h.height;
  const copy = (start: number, bytes: number) => {
    const ab = new ArrayBuffer(bytes);
    new Uint8Array(ab).set(buf.subarray(start, start + bytes));
    return ab;
  };
  let o = nl + 1;
  const mask = new Uint8Array(copy(o, N)); o += N;
  const print_mask = new Uint8Array(copy(o, N)); o += N;
  const shade = new Uint16Array(copy(o, N * 2)); o += N * 2;
  const sheen = new Uint8Array(copy(o, N)); o += N;
  const yarn = new Uint8Array(copy(o, N)); o += N;
  const shadow = new Uint8Array(copy(o, N)); o += N;
  o += (4 - (o % 4)) % 4;
  if (buf.length < o + N * 4) return null;
  const fold_in = new Float32Array(copy(o, N * 4));
  return { width: h.width, height: h.height, ppi: h.ppi, center_x: h.center_x, collar_y: h.collar_y, mask, print_mask, shade, sheen, yarn, shadow, fold_in };
}

/** While another process holds `${file}.lock` (and it is fresh), poll for the file it is writing. */
async function waitForPeer(file: string): Promise<NeutralRender | null> {
  for (;;) {
    let age: number;
    try {
      age = Date.now() - (await stat(`${file}.lock`)).mtimeMs;
    } catch {
      break; // no render in progress elsewhere
    }
    if (age > 180_000) break;
    await new Promise((r) => setTimeout(r, 250));
    try {
      const n = deserialize(await readFile(file));
      if (n) return n;
    } catch {
      // not written yet
    }
  }
  try {
    return deserialize(await readFile(file));
  } catch {
    return null;
  }
}

/** The neutral render of a style/view at a render size: memory, then disk (`cacheDir`), then rendered (and stored). */
export function getNeutral(style: OwnStyle, view: View, size: number, cacheDir = defaultGarmentCacheDir()): Promise<NeutralRender> {
  const key = `${style.id}-${view}-${size}`;
  const hit = memoryCacheGet<NeutralRender>(NEUTRAL + key);
  if (hit) return Promise.resolve(hit);
  return once(`n:${key}`, async () => {
    const file = path.join(cacheDir, `${key}.v${FORMAT_VERSION}.bin`);
    let n: NeutralRender | null = null;
    try {
      n = deserialize(await readFile(file));
    } catch {
      n = null;
    }
    // Another process (a worker, a parallel test) may be rendering the same blank: wait for its file
    // rather than render it twice on a busy machine (a lock file marks the render; stale after 3 min).
    if (!n) n = await waitForPeer(file);
    if (!n) {
      const lock = `${file}.lock`;
      let locked = false;
      try {
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(lock, String(process.pid), { flag: 'wx' });
        locked = true;
      } catch {
        // no lock: render anyway
      }
      try {
        n = await renderNeutral(style, view, size);
        try {
          const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
          await writeFile(tmp, serialize(n));
          await rename(tmp, file);
        } catch {
          // A read-only or full disk only costs a re-render next time.
        }
      } finally {
        if (locked) await rm(lock, { force: true }).catch(() => undefined);
      }
    }
    memoryCachePut(NEUTRAL + key, n, n.width * n.height * NEUTRAL_BYTES_PER_PX);
    return n;
  });
}

function colorKey(c: ColorSpec): string {
  return c.heather ? `${c.hex}/${c.heather.hex2}/${c.heather.share}` : c.hex;
}

/** The coloured blank at a render size (memory-cached). */
export async function getColored(style: OwnStyle, view: View, color: ColorSpec, size: number, cacheDir = defaultGarmentCacheDir()): Promise<GarmentAsset> {
  const nkey = NEUTRAL + `${style.id}-${view}-${size}`;
  const key = `${COLOURED}${style.id}-${view}-${size}-${colorKey(color)}`;
  const hit = memoryCacheGet<GarmentAsset>(key);
  if (hit) return hit;
  return once(key, async () => {
    const n = await getNeutral(style, view, size, cacheDir);
    const a: GarmentAsset = {
      width: n.width, height: n.height, ppi: n.ppi, center_x: n.center_x, collar_y: n.collar_y,
      rgba: colorize(n, color), mask: n.mask, print_mask: n.print_mask, fold_in: n.fold_in, light: n.shade,
    };
    // Counted as its RGBA only while the very neutral it shares is the cached one (another call may have
    // reloaded it meanwhile).
    if (memoryCacheGet(nkey) === n) memoryCachePut(key, a, a.width * a.height * RGBA_BYTES_PER_PX, { parent: nkey });
    return a;
  });
}

/** Bilinear resample of a single-channel field to w x h (pixel centres aligned). */
function resampleField<T extends Float32Array | Uint8Array | Uint16Array>(src: T, sw: number, sh: number, w: number, h: number, make: (n: number) => T): T {
  const out = make(w * h);
  const fx = sw / w, fy = sh / h;
  for (let y = 0; y < h; y++) {
    const sy = Math.min(sh - 1, Math.max(0, (y + 0.5) * fy - 0.5));
    const y0 = Math.floor(sy), y1 = Math.min(sh - 1, y0 + 1), ty = sy - y0;
    for (let x = 0; x < w; x++) {
      const sx = Math.min(sw - 1, Math.max(0, (x + 0.5) * fx - 0.5));
      const x0 = Math.floor(sx), x1 = Math.min(sw - 1, x0 + 1), tx = sx - x0;
      const a = src[y0 * sw + x0]!, b = src[y0 * sw + x1]!, c = src[y1 * sw + x0]!, d = src[y1 * sw + x1]!;
      out[y * w + x] = (a + (b - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty;
    }
  }
  return out;
}

/** A blank's colour-free fields at an output size: everything of a GarmentAsset but its RGBA. */
type Geometry = Omit<GarmentAsset, 'rgba'>;

/** The neutral's fields resampled to w x h (memory-cached per size, shared by every colour). */
function getGeometry(style: OwnStyle, view: View, size: number, longSide: number, w: number, h: number, cacheDir: string): Promise<Geometry> {
  const key = `${GEOMETRY}${style.id}-${view}-${size}-${longSide}`;
  const hit = memoryCacheGet<Geometry>(key);
  if (hit) return Promise.resolve(hit);
  return once(key, async () => {
    const n = await getNeutral(style, view, size, cacheDir);
    const sx = w / n.width;
    const sy = h / n.height;
    const g: Geometry = {
      width: w, height: h, ppi: n.ppi * sx,
      center_x: n.center_x * sx, collar_y: n.collar_y * sy,
      mask: resampleField(n.mask, n.width, n.height, w, h, (k) => new Uint8Array(k)),
      print_mask: resampleField(n.print_mask, n.width, n.height, w, h, (k) => new Uint8Array(k)),
      fold_in: resampleField(n.fold_in, n.width, n.height, w, h, (k) => new Float32Array(k)),
      light: resampleField(n.shade, n.width, n.height, w, h, (k) => new Uint16Array(k)),
    };
    memoryCachePut(key, g, w * h * GEOMETRY_BYTES_PER_PX);
    return g;
  });
}

/**
 * The coloured blank resampled so its long side is `longSide` px (memory-cached per size).
 * ppi, centre and collar are scaled with it.
 */
export async function getGarmentAt(style: OwnStyle, view: View, color: ColorSpec, longSide: number, cacheDir = defaultGarmentCacheDir()): Promise<GarmentAsset> {
  const size = renderSizeFor(longSide);
  const geoKey = `${GEOMETRY}${style.id}-${view}-${size}-${longSide}`;
  const key = `${RESAMPLED}${style.id}-${view}-${size}-${longSide}-${colorKey(color)}`;
  const hit = memoryCacheGet<GarmentAsset>(key);
  if (hit) {
    // A colour in use keeps its coloured blank at the render size (and so its neutral) recent: its next output
    // size is a resample, not a colouring, even after other colours came in between.
    memoryCacheGet(`${COLOURED}${style.id}-${view}-${size}-${colorKey(color)}`);
    return hit;
  }
  const neutral = await getNeutral(style, view, size, cacheDir);
  const s = longSide / Math.max(neutral.width, neutral.height);
  const w = Math.max(1, Math.round(neutral.width * s));
  const h = Math.max(1, Math.round(neutral.height * s));
  if (w === neutral.width && h === neutral.height) return getColored(style, view, color, size, cacheDir);
  return once(key, async () => {
    // The coloured blank first: making room for a new size's fields must not drop the source it is about to use.
    const base = await getColored(style, view, color, size, cacheDir);
    const geo = await getGeometry(style, view, size, longSide, w, h, cacheDir);
    const buf = await sharp(Buffer.from(base.rgba.buffer, base.rgba.byteOffset, base.rgba.byteLength), { raw: { width: base.width, height: base.height, channels: 4 } })
      .resize(w, h, { kernel: s < 1 ? 'lanczos3' : 'mitchell', fit: 'fill' })
      .raw()
      .toBuffer();
    const rgba = new Uint8ClampedArray(buf.length);
    rgba.set(buf);
    const a: GarmentAsset = { ...geo, rgba };
    if (memoryCacheGet(geoKey) === geo) memoryCachePut(key, a, w * h * RGBA_BYTES_PER_PX, { parent: geoKey });
    return a;
  });
}

/**
 * A JPEG picture of a blank (thumbnails, template previews, colour images), long side `longSide` px
 * (64-2048). Rendered once and kept on disk beside the neutral renders (`cacheDir`).
 */
export async function garmentPreview(style: OwnStyle, view: View, color: ColorSpec & { id: string }, longSide: number, cacheDir = defaultGarmentCacheDir()): Promise<Uint8Array> {
  const side = Math.max(64, Math.min(2048, Math.round(longSide)));
  const safe = color.id.replace(/[^a-z0-9-]/gi, '_');
  const file = path.join(cacheDir, 'previews', `${style.id}-${view}-${safe}-${colorKey(color).replace(/[^a-z0-9]/gi, '')}-${side}.v${GARMENT_RENDER_VERSION}.jpg`);
  try {
    return new Uint8Array(await readFile(file));
  } catch {
    // not cached yet
  }
  return once(`p:${file}`, async () => {
    const g = await getGarmentAt(style, view, color, side, cacheDir);
    const buf = await sharp(Buffer.from(g.rgba.buffer, g.rgba.byteOffset, g.rgba.byteLength), { raw: { width: g.width, height: g.height, channels: 4 } })
      .removeAlpha().jpeg({ quality: 86 }).toBuffer();
    try {
      await mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await writeFile(tmp, buf);
      await rename(tmp, file);
    } catch {
      // best effort
    }
    return new Uint8Array(buf);
  });
}
