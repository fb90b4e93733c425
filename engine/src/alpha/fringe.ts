// Fringe (halo) colour detection: semi-transparent edge pixels should carry the colour of the opaque art
// next to them (straight alpha). When they are pulled toward another colour (leftover white or black
// matte from anti-aliasing against a background), we estimate that matte colour M per pixel from the
// compositing model  c = a*F + (1-a)*M  (F = nearest matching opaque neighbour, a = alpha) and average it.
import { alphaPlane } from '../raster/alpha-plane.js';
import type { Raster } from '../raster/types.js';

export interface FringeReport {
  /** Root-mean-square spread of the per-pixel matte estimates (RGB units); small for a real matte. */
  matteSpread: number;
  /** Semi-transparent pixels (alpha 16..239) with a fully opaque 4-neighbour that were examined. */
  edgePixels: number;
  /** Of those, how many differ clearly from every adjacent opaque colour. */
  offPixels: number;
  /** offPixels / edgePixels (0..1). */
  offShare: number;
  /** A contaminating halo colour is present. */
  hasHalo: boolean;
  /** Estimated matte colour as [r, g, b] when hasHalo, else null. */
  matte: [number, number, number] | null;
}

/** RGB distance above which an edge pixel does not match an opaque neighbour. */
const OFF_DISTANCE = 40;
/** Share of off-colour edge pixels that makes a halo (with at least MIN_EDGE examined). */
const HALO_SHARE = 0.25;
const MIN_EDGE = 16;
/** Largest RMS spread of the per-pixel matte estimates for them to be one matte colour. */
const MAX_SPREAD = 48;

/**
 * Look for a matte colour in the anti-aliased edge of opaque art.
 * @example const f = detectFringe(raster); if (f.hasHalo) console.log(f.matte);
 */
export function detectFringe(r: Raster, plane: Uint8Array = alphaPlane(r), candidates: Int32Array = edgeCandidates(r.width, r.height, plane)): FringeReport {
  const { width: w, height: h, data } = r;
  let edge = 0;
  let off = 0;
  let mr = 0;
  let mg = 0;
  let mb = 0;
  let mw = 0;
  let m2 = 0;
  const nb: number[] = [];
  for (let c = 0; c < candidates.length; c++) {
    const p = candidates[c]!;
    const x = p % w;
    const y = (p - x) / w;
    if (x === 0 || y === 0 || x === w - 1 || y === h - 1) continue;
    const a = plane[p]!;
    const i = p * 4;
    const cr = data[i]!;
    const cg = data[i + 1]!;
    const cb = data[i + 2]!;
    let best = Infinity;
    let bj = -1;
    nb.length = 0;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        if (plane[p + dy * w + dx] !== 255) continue;
        const j = i + (dy * w + dx) * 4;
        nb.push(j);
        const er = data[j]! - cr;
        const eg = data[j + 1]! - cg;
        const eb = data[j + 2]! - cb;
        const d = er * er + eg * eg + eb * eb;
        if (d < best) {
          best = d;
          bj = j;
        }
      }
    }
    if (bj < 0) continue;
    edge++;
    if (best <= OFF_DISTANCE * OFF_DISTANCE) continue;
    // a blend of two neighbouring art colours (a seam between shapes) is not a matte
    if (nb.length > 1 && onSegment(data, nb, cr, cg, cb)) continue;
    off++;
    const al = a / 255;
    const k = 1 / (1 - al);
    // M = (c - a F) / (1 - a), weighted by (1 - a) so low-alpha pixels (most matte) count most
    const wgt = 1 - al;
    const er = clamp((cr - al * data[bj]!) * k);
    const eg = clamp((cg - al * data[bj + 1]!) * k);
    const eb = clamp((cb - al * data[bj + 2]!) * k);
    mr += er * wgt;
    mg += eg * wgt;
    mb += eb * wgt;
    m2 += (er * er + eg * eg + eb * eb) * wgt;
    mw += wgt;
  }
  const offShare = edge > 0 ? off / edge : 0;
  let spread = 0;
  if (mw > 0) {
    const ar = mr / mw;
    const ag = mg / mw;
    const ab = mb / mw;
    spread = Math.sqrt(Math.max(0, m2 / mw - (ar * ar + ag * ag + ab * ab)) / 3);
  }
  const hasHalo = edge >= MIN_EDGE && offShare >= HALO_SHARE && spread <= MAX_SPREAD;
  return {
    matteSpread: spread,
    edgePixels: edge,
    offPixels: off,
    offShare,
    hasHalo,
    matte: hasHalo && mw > 0 ? [Math.round(mr / mw), Math.round(mg / mw), Math.round(mb / mw)] : null,
  };
}

/**
 * The pixels examined for a fringe: semi-transparent (alpha 16..239) with a fully opaque 4-neighbour
 * (alphaStats collects the same list while it measures, see AlphaStats.edgeSemi).
 */
export function edgeCandidates(w: number, h: number, plane: Uint8Array): Int32Array {
  const out: number[] = [];
  const words = plane.byteOffset % 4 === 0 ? new Uint32Array(plane.buffer, plane.byteOffset, plane.length >> 2) : null;
  for (let p = 0; p < w * h; p++) {
    // skip 4 pixels at once through words that hold no semi-transparent pixel
    if (words && (p & 3) === 0 && p + 4 <= w * h) {
      const W = words[p >> 2]!;
      if (W === 0 || W === 0xffffffff) {
        p += 3;
        continue;
      }
    }
    const a = plane[p]!;
    if (a < 16 || a > 239) continue;
    const x = p % w;
    if ((x > 0 && plane[p - 1] === 255) || (x < w - 1 && plane[p + 1] === 255) || (p >= w && plane[p - w] === 255) || (p + w < w * h && plane[p + w] === 255)) out.push(p);
  }
  return Int32Array.from(out);
}

/** Is (r,g,b) within OFF_DISTANCE of the segment between two of the neighbour colours? */
function onSegment(data: Uint8ClampedArray, nb: number[], r: number, g: number, b: number): boolean {
  for (let p = 0; p < nb.length; p++) {
    const i = nb[p]!;
    for (let q = p + 1; q < nb.length; q++) {
      const j = nb[q]!;
      const dr = data[j]! - data[i]!;
      const dg = data[j + 1]! - data[i + 1]!;
      const db = data[j + 2]! - data[i + 2]!;
      const len2 = dr * dr + dg * dg + db * db;
      if (len2 === 0) continue;
      let t = ((r - data[i]!) * dr + (g - data[i + 1]!) * dg + (b - data[i + 2]!) * db) / len2;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      const er = data[i]! + t * dr - r;
      const eg = data[i + 1]! + t * dg - g;
      const eb = data[i + 2]! + t * db - b;
      if (er * er + eg * eg + eb * eb <= OFF_DISTANCE * OFF_DISTANCE) return true;
    }
  }
  return false;
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}
