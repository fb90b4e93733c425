// Colour bleed under transparency: pixels with little or no alpha get the alpha-weighted mean colour of
// their known neighbours, grown outward ring by ring (the "alpha bleed"/"edge padding" used by texture
// tools). A filter that sees colour without alpha (the SR model, a sharpen) then pulls plausible colour,
// not black, into anti-aliased edges, so the result has no dark or light fringe. Alpha is not changed.
import type { Raster } from '../raster/types.js';

/** Pixels with alpha below this are treated as having no reliable colour. */
const KNOWN_ALPHA = 16;

/**
 * Return a copy whose RGB under (near-)transparent pixels is bled from neighbours, for `rings` rings;
 * pixels still unknown after that get the mean colour of the known pixels. Opaque pixels are unchanged.
 */
export function bleedColour(r: Raster, rings = 8): Raster {
  const { width: w, height: h } = r;
  const src = r.data;
  const out = new Uint8ClampedArray(src);
  const n = w * h;
  const known = new Uint8Array(n);
  let sr = 0, sg = 0, sb = 0, sc = 0;
  let unknown = 0;
  for (let i = 0; i < n; i++) {
    if (src[i * 4 + 3]! >= KNOWN_ALPHA) {
      known[i] = 1;
      sr += src[i * 4]!; sg += src[i * 4 + 1]!; sb += src[i * 4 + 2]!; sc++;
    } else unknown++;
  }
  if (unknown === 0) return { width: w, height: h, data: out };
  let frontier: number[] = [];
  for (let i = 0; i < n; i++) if (!known[i]) frontier.push(i);
  const newly: number[] = [];
  for (let ring = 0; ring < rings && frontier.length > 0; ring++) {
    const rest: number[] = [];
    newly.length = 0;
    for (const i of frontier) {
      const x = i % w, y = (i - x) / w;
      let cr = 0, cg = 0, cb = 0, cw = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w || (dx === 0 && dy === 0)) continue;
          const j = yy * w + xx;
          if (!known[j]) continue;
          const wt = dx === 0 || dy === 0 ? 2 : 1;
          cr += out[j * 4]! * wt; cg += out[j * 4 + 1]! * wt; cb += out[j * 4 + 2]! * wt; cw += wt;
        }
      }
      if (cw > 0) {
        out[i * 4] = cr / cw; out[i * 4 + 1] = cg / cw; out[i * 4 + 2] = cb / cw;
        newly.push(i);
      } else rest.push(i);
    }
    for (const i of newly) known[i] = 1;
    frontier = rest;
  }
  const mr = sc ? sr / sc : 0, mg = sc ? sg / sc : 0, mb = sc ? sb / sc : 0;
  for (const i of frontier) {
    out[i * 4] = mr; out[i * 4 + 1] = mg; out[i * 4 + 2] = mb;
  }
  return { width: w, height: h, data: out };
}
