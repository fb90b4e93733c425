// Gradient fills for shaded or painted art (gradients=true). For each palette label (one traced shape per
// label), the interior pixels of the label are fitted with a linear gradient (direction: principal axis of the
// per-channel least-squares colour slopes c = c0 + gx*x + gy*y, in CIELAB) and a radial one (centre of the
// isotropic quadratic c = c0 + bx + cy + d(x^2 + y^2)); the colour profile along the axis or radius is binned
// into up to 8 stops, dropping stops that linear interpolation already predicts within ΔE 1.5; the better
// of the two is used. A gradient is kept only when the shape is really shaded (its solid fill misses by mean ΔE76 >= 3)
// and the gradient cuts that error by at least 40 %; flat art and logos therefore keep solid fills.
import { labToRgb, rgbToLab, type Vec3 } from '../../colour/convert.js';
import { TRANSPARENT, type Fill, type GradientStop, type LabelMap } from '../types.js';

const MIN_PIXELS = 200;
const MIN_SOLID_ERROR = 3;
const MAX_RATIO = 0.6;
const BINS = 8;

/**
 * One fill per palette label (index = label): the solid palette colour, or a fitted linear gradient where it
 * clearly wins. `rgba` holds the prepared source colours the labels were computed from.
 */
export function fitGradientFills(map: LabelMap, rgba: Uint8ClampedArray): Fill[] {
  const { width: w, height: h, labels, palette } = map;
  const k = palette.length / 3;
  const labCache = new Map<number, Vec3>();
  const px = new Uint32Array(rgba.buffer, rgba.byteOffset, w * h);
  const labOf = (i: number): Vec3 => {
    const v = px[i]!;
    let c = labCache.get(v);
    if (!c) {
      c = rgbToLab(v & 255, (v >>> 8) & 255, (v >>> 16) & 255);
      labCache.set(v, c);
    }
    return c;
  };
  // Interior pixels of each label (edges carry anti-aliasing).
  const members: number[][] = Array.from({ length: k }, () => []);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const l = labels[i]!;
      if (l === TRANSPARENT || labels[i - 1] !== l || labels[i + 1] !== l || labels[i - w] !== l || labels[i + w] !== l) continue;
      members[l]!.push(i);
    }
  }
  const fills: Fill[] = [];
  for (let l = 0; l < k; l++) {
    const solid: Fill = { kind: 'solid', rgb: [palette[l * 3]!, palette[l * 3 + 1]!, palette[l * 3 + 2]!] };
    const idx = members[l]!;
    fills.push(idx.length < MIN_PIXELS ? solid : fitGradient(idx, w, labOf, solid));
  }
  return fills;
}

/** Solid fills straight from the palette (gradients=false). */
export function solidFills(map: LabelMap): Fill[] {
  const fills: Fill[] = [];
  for (let l = 0; l < map.palette.length / 3; l++) fills.push({ kind: 'solid', rgb: [map.palette[l * 3]!, map.palette[l * 3 + 1]!, map.palette[l * 3 + 2]!] });
  return fills;
}

/** Colour profile along a scalar parameter t in [0, 1]: up to BINS stops, redundant ones dropped, with its error. */
function profile(idx: number[], tOf: (k: number) => number, labOf: (i: number) => Vec3): { stops: Array<{ t: number; c: Vec3 }>; err: number } | null {
  const sums = new Float64Array(BINS * 4);
  const ts = new Float64Array(idx.length);
  idx.forEach((i, k) => {
    const t = Math.min(1, Math.max(0, tOf(k)));
    ts[k] = t;
    const b = Math.min(BINS - 1, Math.floor(t * BINS));
    const c = labOf(i);
    sums[b * 4] += 1; sums[b * 4 + 1] += c[0]; sums[b * 4 + 2] += c[1]; sums[b * 4 + 3] += c[2];
  });
  const stops: Array<{ t: number; c: Vec3 }> = [];
  for (let b = 0; b < BINS; b++) {
    const cnt = sums[b * 4]!;
    if (cnt < 1) continue;
    stops.push({ t: (b + 0.5) / BINS, c: [sums[b * 4 + 1]! / cnt, sums[b * 4 + 2]! / cnt, sums[b * 4 + 3]! / cnt] });
  }
  if (stops.length < 2) return null;
  for (let changed = true; changed && stops.length > 2; ) {
    changed = false;
    for (let k = 1; k < stops.length - 1; k++) {
      const a = stops[k - 1]!, b = stops[k]!, c = stops[k + 1]!;
      const f = (b.t - a.t) / (c.t - a.t);
      const q = [a.c[0] + f * (c.c[0] - a.c[0]), a.c[1] + f * (c.c[1] - a.c[1]), a.c[2] + f * (c.c[2] - a.c[2])];
      if (Math.hypot(q[0]! - b.c[0], q[1]! - b.c[1], q[2]! - b.c[2]) < 1.5) {
        stops.splice(k, 1);
        changed = true;
        break;
      }
    }
  }
  let err = 0;
  idx.forEach((i, k) => {
    const t = ts[k]!;
    const c = labOf(i);
    let j = 0;
    while (j < stops.length - 1 && stops[j + 1]!.t < t) j++;
    let q: Vec3;
    if (t <= stops[0]!.t) q = stops[0]!.c;
    else if (j >= stops.length - 1) q = stops[stops.length - 1]!.c;
    else {
      const a = stops[j]!, b = stops[j + 1]!;
      const f = (t - a.t) / (b.t - a.t);
      q = [a.c[0] + f * (b.c[0] - a.c[0]), a.c[1] + f * (b.c[1] - a.c[1]), a.c[2] + f * (b.c[2] - a.c[2])];
    }
    err += Math.hypot(c[0] - q[0], c[1] - q[1], c[2] - q[2]);
  });
  return { stops, err: err / idx.length };
}

function toStops(stops: Array<{ t: number; c: Vec3 }>): GradientStop[] {
  return stops.map((s) => {
    const rgb = labToRgb(s.c[0], s.c[1], s.c[2]);
    return { offset: Math.round(s.t * 1000) / 1000, rgb: [rgb[0], rgb[1], rgb[2]] };
  });
}

/** Solve the 4x4 system a x = b (Gaussian elimination, partial pivoting); null when singular. */
function solve4(a: number[][], b: number[]): number[] | null {
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < 4; c++) {
    let p = c;
    for (let r = c + 1; r < 4; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    if (Math.abs(m[p]![c]!) < 1e-12) return null;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = c + 1; r < 4; r++) {
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k < 5; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const x = [0, 0, 0, 0];
  for (let r = 3; r >= 0; r--) {
    let v = m[r]![4]!;
    for (let k = r + 1; k < 4; k++) v -= m[r]![k]! * x[k]!;
    x[r] = v / m[r]![r]!;
  }
  return x;
}

/**
 * Best gradient for a region: linear (principal axis of the per-channel colour slopes) or radial (centre of the
 * isotropic quadratic c = c0 + bx + cy + d(x^2 + y^2) fitted per channel, weighted by d^2), whichever misses
 * the pixels least; kept only when it clearly beats the solid fill.
 */
function fitGradient(idx: number[], w: number, labOf: (i: number) => Vec3, solid: Fill): Fill {
  const n = idx.length;
  // Means.
  let mx = 0, my = 0;
  const mc = [0, 0, 0];
  for (const i of idx) {
    const c = labOf(i);
    mx += i % w; my += (i / w) | 0;
    mc[0]! += c[0]; mc[1]! += c[1]; mc[2]! += c[2];
  }
  mx /= n; my /= n; mc[0]! /= n; mc[1]! /= n; mc[2]! /= n;
  let sxx = 0, sxy = 0, syy = 0;
  const sxc = [0, 0, 0], syc = [0, 0, 0];
  let solidErr = 0;
  for (const i of idx) {
    const c = labOf(i);
    const dx = (i % w) - mx, dy = ((i / w) | 0) - my;
    sxx += dx * dx; sxy += dx * dy; syy += dy * dy;
    for (let ch = 0; ch < 3; ch++) {
      const dc = c[ch]! - mc[ch]!;
      sxc[ch]! += dx * dc; syc[ch]! += dy * dc;
    }
  }
  // The solid fill is the palette colour; measure its error against the shape's pixels.
  const sc = solid.kind === 'solid' ? rgbToLab(solid.rgb[0], solid.rgb[1], solid.rgb[2]) : ([0, 0, 0] as Vec3);
  for (const i of idx) {
    const c = labOf(i);
    solidErr += Math.hypot(c[0] - sc[0], c[1] - sc[1], c[2] - sc[2]);
  }
  solidErr /= n;
  if (solidErr < MIN_SOLID_ERROR) return solid;
  const det = sxx * syy - sxy * sxy;
  if (det <= 1e-9) return solid;
  // Per-channel slopes, then the principal direction of M = sum g g^T.
  let m00 = 0, m01 = 0, m11 = 0;
  for (let ch = 0; ch < 3; ch++) {
    const gx = (syy * sxc[ch]! - sxy * syc[ch]!) / det;
    const gy = (sxx * syc[ch]! - sxy * sxc[ch]!) / det;
    m00 += gx * gx; m01 += gx * gy; m11 += gy * gy;
  }
  const theta = 0.5 * Math.atan2(2 * m01, m00 - m11);
  const ux = Math.cos(theta), uy = Math.sin(theta);
  let smin = Infinity, smax = -Infinity;
  for (const i of idx) {
    const s = ((i % w) - mx) * ux + (((i / w) | 0) - my) * uy;
    if (s < smin) smin = s; if (s > smax) smax = s;
  }
  const span = smax - smin;
  if (span < 4) return solid;
  const lin = profile(idx, (k) => (((idx[k]! % w) - mx) * ux + (((idx[k]! / w) | 0) - my) * uy - smin) / span, labOf);
  const rad = fitRadial(idx, w, mx, my, labOf);
  const useRadial = rad !== null && (lin === null || rad.prof.err < lin.err);
  const chosen = useRadial ? rad.prof : lin;
  if (!chosen || chosen.err > MAX_RATIO * solidErr) return solid;
  const r2 = (v: number): number => Math.round(v * 100) / 100;
  if (useRadial) return { kind: 'radial', cx: r2(rad.cx), cy: r2(rad.cy), r: r2(rad.r), stops: toStops(chosen.stops) };
  return {
    kind: 'linear',
    x1: r2(mx + ux * smin), y1: r2(my + uy * smin),
    x2: r2(mx + ux * smax), y2: r2(my + uy * smax),
    stops: toStops(chosen.stops),
  };
}


/** Radial candidate: centre from an isotropic quadratic fit, colour profile along the distance to it. */
function fitRadial(idx: number[], w: number, mx: number, my: number, labOf: (i: number) => Vec3): { cx: number; cy: number; r: number; prof: { stops: Array<{ t: number; c: Vec3 }>; err: number } } | null {
  // Normal equations in centred, scaled coordinates for conditioning.
  let sc = 1;
  for (const i of idx) sc = Math.max(sc, Math.abs((i % w) - mx), Math.abs(((i / w) | 0) - my));
  const A = [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]];
  const B = [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]];
  const f = [1, 0, 0, 0];
  for (const i of idx) {
    const u = ((i % w) - mx) / sc, v = (((i / w) | 0) - my) / sc;
    f[1] = u; f[2] = v; f[3] = u * u + v * v;
    const c = labOf(i);
    for (let r = 0; r < 4; r++) {
      for (let k = 0; k < 4; k++) A[r]![k]! += f[r]! * f[k]!;
      for (let ch = 0; ch < 3; ch++) B[ch]![r]! += f[r]! * c[ch]!;
    }
  }
  let wsum = 0, cu = 0, cv = 0;
  for (let ch = 0; ch < 3; ch++) {
    const x = solve4(A, B[ch]!);
    if (!x || Math.abs(x[3]!) < 1e-6) continue;
    const wt = x[3]! * x[3]!;
    wsum += wt; cu += wt * (-x[1]! / (2 * x[3]!)); cv += wt * (-x[2]! / (2 * x[3]!));
  }
  if (wsum <= 0) return null;
  const cx = mx + (cu / wsum) * sc, cy = my + (cv / wsum) * sc;
  let rmax = 0;
  const rs = idx.map((i) => Math.hypot((i % w) - cx, ((i / w) | 0) - cy));
  for (const r of rs) if (r > rmax) rmax = r;
  // A centre far outside the region is a linear ramp, not a radial one.
  if (!(rmax > 2) || rmax > 4 * sc) return null;
  const prof = profile(idx, (k) => rs[k]! / rmax, labOf);
  return prof ? { cx, cy, r: rmax, prof } : null;
}
