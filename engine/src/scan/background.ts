// Background detection from the image border and the alpha channel. The border ring (2 px deep) is
// sampled: mostly transparent -> `transparent`; otherwise its opaque pixels are compared with their
// per-channel median colour with a tolerance wide enough for JPEG noise (RGB distance 28): when at least
// 85 % agree the background is `solid` (hex = mean of the agreeing pixels), else `complex`. Art that
// fills the border but leaves much of the canvas transparent still counts as `transparent`.
import { toHex } from '../colour/convert.js';
import type { Raster } from '../raster/types.js';

export type BackgroundKind = 'transparent' | 'solid' | 'complex';

export interface BackgroundReport {
  kind: BackgroundKind;
  /** `#rrggbb` for a solid background, else null. */
  color: string | null;
  /** The solid background colour as [r, g, b], else null. */
  rgb: [number, number, number] | null;
  /** Share of border pixels that are transparent (alpha < 16), 0..1. */
  borderTransparentShare: number;
  /** Share of opaque border pixels matching the dominant border colour, 0..1. */
  borderUniformShare: number;
}

const DEPTH = 2;
const TOLERANCE = 28;

/**
 * Classify the background.
 * @example detectBackground(raster, transparentShare).kind // 'solid'
 */
export function detectBackground(r: Raster, canvasTransparentShare: number): BackgroundReport {
  const { width: w, height: h, data } = r;
  const idx: number[] = [];
  const d = Math.min(DEPTH, Math.floor(Math.min(w, h) / 2)) || 1;
  // step keeps the sample bounded on huge images
  const step = Math.max(1, Math.floor((w + h) / 4000));
  for (let k = 0; k < d; k++) {
    for (let x = 0; x < w; x += step) {
      idx.push((k * w + x) * 4, ((h - 1 - k) * w + x) * 4);
    }
    for (let y = d; y < h - d; y += step) {
      idx.push((y * w + k) * 4, (y * w + (w - 1 - k)) * 4);
    }
  }
  let transparent = 0;
  const rs: number[] = [];
  const gs: number[] = [];
  const bs: number[] = [];
  for (const i of idx) {
    if (data[i + 3]! < 16) transparent++;
    else if (data[i + 3]! >= 240) {
      rs.push(data[i]!);
      gs.push(data[i + 1]!);
      bs.push(data[i + 2]!);
    }
  }
  const borderTransparentShare = idx.length ? transparent / idx.length : 1;
  if (borderTransparentShare >= 0.5 || rs.length === 0) {
    return { kind: 'transparent', color: null, rgb: null, borderTransparentShare, borderUniformShare: 0 };
  }
  const mr = median(rs);
  const mg = median(gs);
  const mb = median(bs);
  let agree = 0;
  let sr = 0;
  let sg = 0;
  let sb = 0;
  for (let k = 0; k < rs.length; k++) {
    const er = rs[k]! - mr;
    const eg = gs[k]! - mg;
    const eb = bs[k]! - mb;
    if (er * er + eg * eg + eb * eb <= TOLERANCE * TOLERANCE) {
      agree++;
      sr += rs[k]!;
      sg += gs[k]!;
      sb += bs[k]!;
    }
  }
  const borderUniformShare = agree / rs.length;
  // an opaque border that is not uniform while a large part of the canvas is transparent: art touching the edges
  if (borderUniformShare < 0.85 && canvasTransparentShare >= 0.1) {
    return { kind: 'transparent', color: null, rgb: null, borderTransparentShare, borderUniformShare };
  }
  const opaqueShare = rs.length / idx.length;
  if (borderUniformShare >= 0.85 && opaqueShare >= 0.5) {
    const rgb: [number, number, number] = [Math.round(sr / agree), Math.round(sg / agree), Math.round(sb / agree)];
    return { kind: 'solid', color: toHex(rgb[0], rgb[1], rgb[2]), rgb, borderTransparentShare, borderUniformShare };
  }
  return { kind: 'complex', color: null, rgb: null, borderTransparentShare, borderUniformShare };
}

function median(v: number[]): number {
  const s = Float64Array.from(v).sort();
  return s[s.length >> 1]!;
}
