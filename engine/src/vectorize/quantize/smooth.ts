// Edge-aware smoothing before clustering: a 3x3 bilateral filter in CIELAB (Tomasi & Manduchi 1998),
// run only when the art is noisy (JPEG ringing, chroma noise). Flat regions collapse to their ink and
// real edges stay sharp because neighbours across an edge get ~zero range weight.
import { rgbToLab, type Vec3 } from '../../colour/convert.js';
import { perPixelLab, type LabImage } from './lab-image.js';
import type { Scratch } from '../scratch.js';

// Direct-mapped cache of packed RGB -> CIELAB (float32) for toLab, kept between calls (about 1 MB): the Lab of a
// colour never changes, and allocating and zeroing it per image cost more than its misses. An empty slot holds
// 0xffffffff, never a 24-bit RGB.
const LAB_SLOTS = 1 << 16;
const LAB_KEYS = new Uint32Array(LAB_SLOTS).fill(0xffffffff);
const LAB_VALS = new Float32Array(LAB_SLOTS * 3);

/**
 * CIELAB of every pixel (3 floats per pixel). Art repeats colours in runs, so a pixel equal to its left
 * neighbour reuses its Lab; other colours go through a direct-mapped cache (LAB_KEYS). `scratch`: the result is a
 * view of its buffer.
 */
export function toLab(rgba: Uint8ClampedArray, scratch?: Scratch): Float32Array {
  const n = rgba.length >> 2;
  const out = scratch ? scratch.float32('lab.pixels', n * 3) : new Float32Array(n * 3);
  const px = new Uint32Array(rgba.buffer, rgba.byteOffset, n);
  const keys = LAB_KEYS, vals = LAB_VALS;
  const tmp: Vec3 = [0, 0, 0];
  // The current colour's Lab is held in locals and stored per pixel: no reads back from `out` for a run.
  // (Locals hold the float32 values, so every store writes exactly what a copy would; they start as doubles so V8
  // keeps them unboxed.)
  let prev = -1;
  let cL = 0.5, cA = 0.5, cB = 0.5;
  for (let i = 0, o = 0; i < n; i++, o += 3) {
    const v = px[i]!;
    if (v !== prev) {
      prev = v;
      const rgb = v & 0xffffff;
      const slot = (Math.imul(rgb, 0x9e3779b1) >>> 16) & (LAB_SLOTS - 1);
      const s3 = slot * 3;
      if (keys[slot] === rgb) {
        cL = vals[s3]!; cA = vals[s3 + 1]!; cB = vals[s3 + 2]!;
      } else {
        rgbToLab(rgb & 255, (rgb >>> 8) & 255, (rgb >>> 16) & 255, tmp);
        keys[slot] = rgb;
        vals[s3] = tmp[0]; vals[s3 + 1] = tmp[1]; vals[s3 + 2] = tmp[2];
        cL = vals[s3]!; cA = vals[s3 + 1]!; cB = vals[s3 + 2]!;
      }
    }
    out[o] = cL; out[o + 1] = cA; out[o + 2] = cB;
  }
  return out;
}

/**
 * Share of traced pixels with no exactly equal right/bottom traced neighbour. Clean rendered art and
 * smooth gradients sit well under 0.3; JPEG uploads sit well above it.
 */
export function noiseScore(rgba: Uint8ClampedArray, mask: Uint8Array, w: number, h: number): number {
  let counted = 0;
  let unequal = 0;
  const px = new Uint32Array(rgba.buffer, rgba.byteOffset, w * h);
  for (let y = 0; y < h - 1; y += 2) {
    for (let x = 0; x < w - 1; x++) {
      const i = y * w + x;
      if (!mask[i] || !mask[i + 1] || !mask[i + w]) continue;
      counted++;
      const v = px[i]!;
      if (v !== px[i + 1] && v !== px[i + w] && v !== px[i - 1 < 0 ? i : i - 1]) unequal++;
    }
  }
  return counted ? unequal / counted : 0;
}

/**
 * Bilateral filter (3x3, spatial sigma 1 px) over traced pixels only, `passes` times, in place: the result is
 * written over `lab` and returned as a per-pixel LabImage whose `varied` map names the pixels a flat window
 * rules out (see LabImage).
 * @param sigmaR range sigma in ΔE76 units (noise below it is averaged, edges above it kept)
 * @param rgba the pixels `lab` was converted from (toLab), if at hand: equal packed pixels are equal Lab, a
 *   cheaper first flatness test than twelve float compares
 * @param scratch the work arrays, the index and the varied map are views of its buffers
 */
export function bilateralLab(lab: Float32Array, mask: Uint8Array, w: number, h: number, sigmaR: number, passes: number, rgba?: Uint8ClampedArray, scratch?: Scratch): LabImage {
  const n = w * h;
  const src = lab;
  const TABLE = 1024;
  const maxD2 = 9 * sigmaR * sigmaR;
  const scale = (TABLE - 1) / maxD2;
  const range = new Float32Array(TABLE);
  for (let i = 0; i < TABLE; i++) range[i] = Math.exp(-(i / scale) / (2 * sigmaR * sigmaR));
  const sw = Float64Array.of(Math.exp(-1), Math.exp(-0.5), Math.exp(-1), Math.exp(-0.5), 1, Math.exp(-0.5), Math.exp(-1), Math.exp(-0.5), Math.exp(-1));
  // Spatial times range weight per table slot, for the diagonal and the edge neighbours: each product computed
  // once (the same double as sw[k] * range[t]).
  const kwC = new Float64Array(TABLE);
  const kwE = new Float64Array(TABLE);
  for (let t = 0; t < TABLE; t++) { kwC[t] = sw[0]! * range[t]!; kwE[t] = sw[1]! * range[t]!; }
  const w3 = w * 3;
  // An interior traced pixel equal to its four traced neighbours is flat: it keeps its value. Only the others are
  // visited: in the first pass those the packed pixels (or the floats) show unequal, after it the pixels next to
  // one that was not flat in the previous pass (a flat pixel whose four neighbours were flat kept its value and
  // still equals them). Border pixels are never flat (bounds-checked window, every pass).
  // queued[i]: the pass that queued interior pixel i; 255 for border and untraced pixels (never queued).
  // (Its buffer holds the varied map afterwards.)
  const queued = (scratch ? scratch.uint8('smooth.flags', n) : new Uint8Array(n)).fill(0);
  for (let x = 0; x < w; x++) { queued[x] = 255; queued[n - w + x] = 255; }
  for (let y = 1; y < h - 1; y++) { queued[y * w] = 255; queued[y * w + w - 1] = 255; }
  for (let i = mask.indexOf(0); i !== -1; i = mask.indexOf(0, i + 1)) queued[i] = 255;
  // Every pixel traced (an opaque upload): no mask reads per neighbour.
  const all = mask.indexOf(0) === -1;
  // Capacities for a typical JPEG of flat art (about a fifth of the pixels smoothed per pass); they grow as needed.
  const cap = Math.max(1024, n >> 2);
  let pending: Int32Array = scratch ? scratch.int32('smooth.pending', cap) : new Int32Array(cap);
  let nPending = 0;
  let busy: Int32Array = scratch ? scratch.int32('smooth.busy', cap) : new Int32Array(cap);
  let nBusy = 0;
  // A pass reads `lab` as it was and writes the new colours of the pixels it smooths (border ring, then busy
  // pixels) to `out`, 3 floats each; they are written back into `lab` after the pass. Flat and untraced pixels
  // keep their value, so no full-size scratch image.
  // Border slots: the first and last row, then the first and last column between them (twice the pixels when h or
  // w is 1: each is written twice, with the same value).
  const ring = 2 * w + 2 * Math.max(0, h - 2);
  let out = scratch ? scratch.float32('smooth.out', 3 * (ring + busy.length)) : new Float32Array(3 * (ring + busy.length));
  const px = rgba ? new Uint32Array(rgba.buffer, rgba.byteOffset, n) : null;
  for (let pass = 0; pass < passes; pass++) {
    if (out.length < 3 * ring) out = new Float32Array(3 * ring);
    let r = 0;
    for (let x = 0; x < w; x++) { borderPixel(src, out, r++, mask, w, h, x, 0, maxD2, scale, sw, range); borderPixel(src, out, r++, mask, w, h, x, h - 1, maxD2, scale, sw, range); }
    for (let y = 1; y < h - 1; y++) { borderPixel(src, out, r++, mask, w, h, 0, y, maxD2, scale, sw, range); borderPixel(src, out, r++, mask, w, h, w - 1, y, maxD2, scale, sw, range); }
    nPending = 0;
    if (pass === 0) {
      for (let y = 1; y < h - 1; y++) {
        for (let x = 1, i = y * w + 1; x < w - 1; x++, i++) {
          if (!all && queued[i]) continue;
          if (px) {
            const v = px[i]!;
            if (px[i - 1] === v && px[i + 1] === v && px[i - w] === v && px[i + w] === v && (all || (mask[i - 1] && mask[i + 1] && mask[i - w] && mask[i + w]))) continue;
          }
          if (nPending === pending.length) pending = grow(pending);
          pending[nPending++] = i;
        }
      }
    } else {
      // Next to a pixel that was not flat: its four neighbours (in the image: it is interior) and itself, and the
      // pixels next to the border.
      const mark = pass;
      for (let t = 0; t < nBusy; t++) {
        const i = busy[t]!;
        if (nPending + 5 > pending.length) pending = grow(pending);
        if (queued[i] < mark) { queued[i] = mark; pending[nPending++] = i; }
        if (queued[i - 1]! < mark) { queued[i - 1] = mark; pending[nPending++] = i - 1; }
        if (queued[i + 1]! < mark) { queued[i + 1] = mark; pending[nPending++] = i + 1; }
        if (queued[i - w]! < mark) { queued[i - w] = mark; pending[nPending++] = i - w; }
        if (queued[i + w]! < mark) { queued[i + w] = mark; pending[nPending++] = i + w; }
      }
      const edge = (i: number): void => {
        if (queued[i]! >= mark) return;
        queued[i] = mark;
        if (nPending === pending.length) pending = grow(pending);
        pending[nPending++] = i;
      };
      if (w > 2 && h > 2) {
        for (let x = 1; x < w - 1; x++) { edge(w + x); edge(n - 2 * w + x); }
        for (let y = 1; y < h - 1; y++) { edge(y * w + 1); edge(y * w + w - 2); }
      }
    }
    nBusy = 0;
    // The range weight of a pair is symmetric (the same ΔE², so the same table slot) and the left and right
    // neighbours share a spatial weight: a pixel smoothed right after its left neighbour takes that pair's
    // weight (-1: skipped) from it instead of computing it again. Same doubles, same sums.
    let lastBusy = -2, lastRight = -1;
    for (let t = 0; t < nPending; t++) {
      const i = pending[t]!;
      const o = i * 3;
      const L = src[o]!, A = src[o + 1]!, B = src[o + 2]!;
      if ((all || (mask[i - 1] && mask[i + 1] && mask[i - w] && mask[i + w]))
        && src[o - 3] === L && src[o + 3] === L && src[o - w3] === L && src[o + w3] === L
        && src[o - 2] === A && src[o + 4] === A && src[o - w3 + 1] === A && src[o + w3 + 1] === A
        && src[o - 1] === B && src[o + 5] === B && src[o - w3 + 2] === B && src[o + w3 + 2] === B) continue;
      if (nBusy === busy.length) busy = grow(busy);
      if (3 * (ring + nBusy + 1) > out.length) { const g = new Float32Array(out.length * 2); g.set(out); out = g; }
      const u = 3 * (ring + nBusy);
      busy[nBusy++] = i;
      // The 3x3 window unrolled, in the border path's order (top-left, top, top-right, left, centre, right,
      // bottom-left, bottom, bottom-right), so the sums are the same doubles. A neighbour is skipped when
      // untraced or when its ΔE² reaches maxD2 (its range weight would be ~0).
      let sL = 0, sA = 0, sB = 0, sWt = 0;
      let q: number, qL: number, qA: number, qB: number, dL: number, dA: number, dB: number, d2: number, wt: number;
      if (all || mask[i - w - 1]) {
        q = o - w3 - 3; qL = src[q]!; qA = src[q + 1]!; qB = src[q + 2]!;
        dL = qL - L; dA = qA - A; dB = qB - B; d2 = dL * dL + dA * dA + dB * dB;
        if (d2 < maxD2) { wt = kwC[(d2 * scale) | 0]!; sL += wt * qL; sA += wt * qA; sB += wt * qB; sWt += wt; }
      }
      if (all || mask[i - w]) {
        q = o - w3; qL = src[q]!; qA = src[q + 1]!; qB = src[q + 2]!;
        dL = qL - L; dA = qA - A; dB = qB - B; d2 = dL * dL + dA * dA + dB * dB;
        if (d2 < maxD2) { wt = kwE[(d2 * scale) | 0]!; sL += wt * qL; sA += wt * qA; sB += wt * qB; sWt += wt; }
      }
      if (all || mask[i - w + 1]) {
        q = o - w3 + 3; qL = src[q]!; qA = src[q + 1]!; qB = src[q + 2]!;
        dL = qL - L; dA = qA - A; dB = qB - B; d2 = dL * dL + dA * dA + dB * dB;
        if (d2 < maxD2) { wt = kwC[(d2 * scale) | 0]!; sL += wt * qL; sA += wt * qA; sB += wt * qB; sWt += wt; }
      }
      if (lastBusy === i - 1) {
        // (Traced: it was smoothed.)
        if (lastRight >= 0) { wt = lastRight; q = o - 3; sL += wt * src[q]!; sA += wt * src[q + 1]!; sB += wt * src[q + 2]!; sWt += wt; }
      } else if (all || mask[i - 1]) {
        q = o - 3; qL = src[q]!; qA = src[q + 1]!; qB = src[q + 2]!;
        dL = qL - L; dA = qA - A; dB = qB - B; d2 = dL * dL + dA * dA + dB * dB;
        if (d2 < maxD2) { wt = kwE[(d2 * scale) | 0]!; sL += wt * qL; sA += wt * qA; sB += wt * qB; sWt += wt; }
      }
      // The centre: ΔE 0, weight exactly 1 * 1.
      sL += L; sA += A; sB += B; sWt += 1;
      lastBusy = i; lastRight = -1;
      if (all || mask[i + 1]) {
        q = o + 3; qL = src[q]!; qA = src[q + 1]!; qB = src[q + 2]!;
        dL = qL - L; dA = qA - A; dB = qB - B; d2 = dL * dL + dA * dA + dB * dB;
        if (d2 < maxD2) { wt = kwE[(d2 * scale) | 0]!; lastRight = wt; sL += wt * qL; sA += wt * qA; sB += wt * qB; sWt += wt; }
      }
      if (all || mask[i + w - 1]) {
        q = o + w3 - 3; qL = src[q]!; qA = src[q + 1]!; qB = src[q + 2]!;
        dL = qL - L; dA = qA - A; dB = qB - B; d2 = dL * dL + dA * dA + dB * dB;
        if (d2 < maxD2) { wt = kwC[(d2 * scale) | 0]!; sL += wt * qL; sA += wt * qA; sB += wt * qB; sWt += wt; }
      }
      if (all || mask[i + w]) {
        q = o + w3; qL = src[q]!; qA = src[q + 1]!; qB = src[q + 2]!;
        dL = qL - L; dA = qA - A; dB = qB - B; d2 = dL * dL + dA * dA + dB * dB;
        if (d2 < maxD2) { wt = kwE[(d2 * scale) | 0]!; sL += wt * qL; sA += wt * qA; sB += wt * qB; sWt += wt; }
      }
      if (all || mask[i + w + 1]) {
        q = o + w3 + 3; qL = src[q]!; qA = src[q + 1]!; qB = src[q + 2]!;
        dL = qL - L; dA = qA - A; dB = qB - B; d2 = dL * dL + dA * dA + dB * dB;
        if (d2 < maxD2) { wt = kwC[(d2 * scale) | 0]!; sL += wt * qL; sA += wt * qA; sB += wt * qB; sWt += wt; }
      }
      out[u] = sL / sWt; out[u + 1] = sA / sWt; out[u + 2] = sB / sWt;
    }
    r = 0;
    for (let x = 0; x < w; x++) { putBack(src, out, r++, x); putBack(src, out, r++, n - w + x); }
    for (let y = 1; y < h - 1; y++) { putBack(src, out, r++, y * w); putBack(src, out, r++, y * w + w - 1); }
    for (let t = 0; t < nBusy; t++) {
      const o = busy[t]! * 3, u = 3 * (ring + t);
      src[o] = out[u]!; src[o + 1] = out[u + 1]!; src[o + 2] = out[u + 2]!;
    }
  }
  const img = perPixelLab(lab, scratch);
  if (passes > 0) {
    // A window without a pixel that was not flat in the last pass holds nine equal colours (the centre equals its
    // four neighbours, which equal the corners). Border pixels are never flat: the two outer rings are varied.
    const varied = queued.fill(0);
    for (let x = 0; x < w; x++) { varied[x] = varied[w + x] = varied[n - 2 * w + x] = varied[n - w + x] = 1; }
    for (let y = 0; y < h; y++) { varied[y * w] = varied[y * w + 1] = varied[y * w + w - 2] = varied[y * w + w - 1] = 1; }
    for (let t = 0; t < nBusy; t++) {
      const i = busy[t]!;
      varied[i - w - 1] = varied[i - w] = varied[i - w + 1] = varied[i - 1] = varied[i] = varied[i + 1] = varied[i + w - 1] = varied[i + w] = varied[i + w + 1] = 1;
    }
    img.varied = varied;
  }
  return img;
}

/** Pixel i takes the colour at slot r of `out` (NaN: untraced, unchanged). */
function putBack(lab: Float32Array, out: Float32Array, r: number, i: number): void {
  const L = out[3 * r]!;
  if (L !== L) return;
  lab[3 * i] = L; lab[3 * i + 1] = out[3 * r + 1]!; lab[3 * i + 2] = out[3 * r + 2]!;
}

function grow(a: Int32Array): Int32Array {
  const g = new Int32Array(a.length * 2);
  g.set(a);
  return g;
}

/** One pixel on the image border (bounds-checked window, never flat), into slot r of `out` (NaN: untraced). */
function borderPixel(src: Float32Array, out: Float32Array, r: number, mask: Uint8Array, w: number, h: number, x: number, y: number,
  maxD2: number, scale: number, sw: Float64Array, range: Float32Array): void {
  const i = y * w + x;
  if (!mask[i]) { out[3 * r] = NaN; return; }
  const o = i * 3;
  const L = src[o]!, A = src[o + 1]!, B = src[o + 2]!;
  let sL = 0, sA = 0, sB = 0, sWt = 0;
  let k = 0;
  for (let dy = -1; dy <= 1; dy++) {
    const yy = y + dy;
    for (let dx = -1; dx <= 1; dx++, k++) {
      const xx = x + dx;
      if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
      const j = yy * w + xx;
      if (!mask[j]) continue;
      const q = j * 3;
      const dL = src[q]! - L, dA = src[q + 1]! - A, dB = src[q + 2]! - B;
      const d2 = dL * dL + dA * dA + dB * dB;
      if (d2 >= maxD2) continue;
      const wt = sw[k]! * range[(d2 * scale) | 0]!;
      sL += wt * src[q]!; sA += wt * src[q + 1]!; sB += wt * src[q + 2]!; sWt += wt;
    }
  }
  out[3 * r] = sL / sWt; out[3 * r + 1] = sA / sWt; out[3 * r + 2] = sB / sWt;
}
