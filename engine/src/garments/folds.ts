// Fold relief of a blank, in inches of height over the flat cloth: soft drag folds from the underarms
// toward the body's centre, waves that fall toward the hem, creases across the sleeves near the armhole
// and a gentle pull below the collar. Every fold is a curved ridge (quadratic Bezier spine) with a
// Gaussian cross-section and an envelope that rises and dies away smoothly along its length, so folds
// start and end gradually instead of as straight wedges. The field is evaluated on a coarse grid (folds
// are inches wide) and upsampled; it is zero on the flat chest, which is where the ink does not move.
import { blur, smoothstep } from './field.js';
import type { GarmentDrawing } from './outline.js';
import type { ShapeSpec, Silhouette } from './specs.js';

interface Fold {
  /** Spine: start, control, end (inches). */
  ax: number; ay: number; cx: number; cy: number; bx: number; by: number;
  /** Height at the crest (inches; negative = a valley) and half-width (inches). */
  amp: number;
  width: number;
}

const SPINE_STEPS = 14;

/** The folds of a blank (right side built and mirrored, with small asymmetries so it does not look drawn). */
function foldsOf(sil: Silhouette, s: ShapeSpec, d: GarmentDrawing): Fold[] {
  const out: Fold[] = [];
  const ua = d.underarms[0]!;
  const hemTop = s.length - s.hem_rib;
  for (const sx of [1, -1]) {
    const k = sx > 0 ? 1 : 0.88; // the left side hangs a little differently
    const x = (v: number) => v * sx;
    // Drag folds: from just inside the underarm, curving down toward the centre; longest in the middle.
    // Each starts beyond the side seam (the cloth cuts it), so it is already risen where the cloth begins.
    out.push({ ax: x(ua.x + 0.6), ay: ua.y - 0.1, cx: x(ua.x - 2.4), cy: ua.y + 1.0, bx: x(ua.x - 7.0 * k), by: ua.y + 4.4, amp: 0.32 * k, width: 0.55 });
    out.push({ ax: x(ua.x + 0.6), ay: ua.y + 1.2, cx: x(ua.x - 2.2), cy: ua.y + 3.0, bx: x(ua.x - 6.2 * k), by: ua.y + 7.4, amp: 0.26, width: 0.5 });
    out.push({ ax: x(ua.x + 0.5), ay: ua.y - 1.2, cx: x(ua.x - 1.6), cy: ua.y - 0.4, bx: x(ua.x - 3.8), by: ua.y + 1.1, amp: 0.14 * k, width: 0.4 });
    // A valley between the first two drag folds.
    out.push({ ax: x(ua.x + 0.6), ay: ua.y + 0.6, cx: x(ua.x - 2.3), cy: ua.y + 2.0, bx: x(ua.x - 5.0), by: ua.y + 5.0, amp: -0.12, width: 0.45 });
    // Sleeve creases near the armhole, across the sleeve.
    if (sil === 'tee') {
      const a = (s.sleeve_angle * Math.PI) / 180;
      const sp = { x: s.shoulder / 2, y: s.shoulder_drop };
      for (const [t, amp] of [[0.35, 0.12], [0.62, 0.09]] as const) {
        const px = sp.x + Math.cos(a) * s.sleeve * t, py = sp.y + Math.sin(a) * s.sleeve * t;
        const nx = -Math.sin(a), ny = Math.cos(a);
        out.push({ ax: x(px + nx * 0.6), ay: py + ny * 0.6, cx: x(px + nx * 2.6 + 0.3), cy: py + ny * 2.6, bx: x(px + nx * s.sleeve_end * 0.9), by: py + ny * s.sleeve_end * 0.9, amp: amp * k, width: 0.45 });
      }
    } else {
      // Long sleeves bunch above the cuff and bend at the elbow.
      const a = (s.sleeve_angle * Math.PI) / 180;
      const sp = { x: s.shoulder / 2, y: s.shoulder_drop };
      for (const [t, amp] of [[0.42, 0.13], [0.55, 0.1], [0.8, 0.14], [0.87, 0.11]] as const) {
        const px = sp.x + Math.cos(a) * s.sleeve * t, py = sp.y + Math.sin(a) * s.sleeve * t;
        const nx = -Math.sin(a), ny = Math.cos(a);
        const w = s.sleeve_end + (1 - t) * 3;
        out.push({ ax: x(px + nx * 0.2), ay: py + ny * 0.2 - 0.3, cx: x(px + nx * w * 0.5), cy: py + ny * w * 0.5 + 0.5, bx: x(px + nx * w * 0.95), by: py + ny * w * 0.95 - 0.2, amp: amp * k, width: 0.4 });
      }
    }
    // Waves falling to the hem: long, nearly vertical, strongest at the hem.
    for (const [xx, amp, lean] of [[0.62, 0.2, 0.5], [0.34, 0.16, -0.3], [0.85, 0.14, 0.9]] as const) {
      const hx = (s.hem / 2) * xx * (sx > 0 ? 1 : 0.92);
      // From below the hem (cut by the cloth) upward, so the wave is full at the hem and dies out above.
      out.push({ ax: x(hx), ay: hemTop + 3, cx: x(hx - lean * 0.4), cy: hemTop - 3, bx: x(hx - lean * 1.2), by: hemTop - 10, amp: amp * k, width: 0.75 });
    }
  }
  // A shallow diagonal fold across the lower body (one side only: cloth never lies symmetric).
  out.push({ ax: -(ua.x + 0.5), ay: ua.y + 6.2, cx: -(ua.x - 5), cy: ua.y + 7.4, bx: 1.5, by: ua.y + 10.2, amp: 0.18, width: 0.65 });
  // One soft wave near the centre of the hem (off-centre, so the two halves differ).
  out.push({ ax: -1.1, ay: hemTop + 3, cx: -0.9, cy: hemTop - 2, bx: -0.6, by: hemTop - 8, amp: 0.11, width: 0.8 });
  return out;
}

/** Points along the spine of a fold. */
function spine(f: Fold): { x: Float64Array; y: Float64Array } {
  const x = new Float64Array(SPINE_STEPS + 1), y = new Float64Array(SPINE_STEPS + 1);
  for (let i = 0; i <= SPINE_STEPS; i++) {
    const t = i / SPINE_STEPS, u = 1 - t;
    x[i] = u * u * f.ax + 2 * u * t * f.cx + t * t * f.bx;
    y[i] = u * u * f.ay + 2 * u * t * f.cy + t * t * f.by;
  }
  return { x, y };
}

/**
 * Fold height (inches) on a W x H canvas at `ppi` with origin (ox, oy) inches, zero outside `cover`
 * (the cloth, 0-1). Hem waves are faded in from the waist toward the hem.
 */
export function foldField(sil: Silhouette, s: ShapeSpec, d: GarmentDrawing, W: number, H: number, ppi: number, ox: number, oy: number, cover: Float32Array): Float32Array {
  const folds = foldsOf(sil, s, d);
  // Coarse grid: about 12 samples per inch is plenty for folds 0.4 in wide and more.
  const f = Math.max(1, Math.floor(ppi / 12));
  const cw = Math.ceil(W / f), ch = Math.ceil(H / f);
  const coarse = new Float32Array(cw * ch);
  for (const fold of folds) {
    const sp = spine(fold);
    const reach = fold.width * 3;
    const x0 = Math.max(0, Math.floor(((Math.min(fold.ax, fold.cx, fold.bx) - reach - ox) * ppi) / f));
    const x1 = Math.min(cw - 1, Math.ceil(((Math.max(fold.ax, fold.cx, fold.bx) + reach - ox) * ppi) / f));
    const y0 = Math.max(0, Math.floor(((Math.min(fold.ay, fold.cy, fold.by) - reach - oy) * ppi) / f));
    const y1 = Math.min(ch - 1, Math.ceil(((Math.max(fold.ay, fold.cy, fold.by) + reach - oy) * ppi) / f));
    const inv2 = 1 / (fold.width * fold.width);
    for (let gy = y0; gy <= y1; gy++) {
      const py = ((gy + 0.5) * f) / ppi + oy;
      for (let gx = x0; gx <= x1; gx++) {
        const px = ((gx + 0.5) * f) / ppi + ox;
        // Nearest point on the spine polyline, and how far along it lies (t in 0-1).
        let best = Infinity, bt = 0;
        for (let i = 0; i < SPINE_STEPS; i++) {
          const ax = sp.x[i]!, ay = sp.y[i]!, vx = sp.x[i + 1]! - ax, vy = sp.y[i + 1]! - ay;
          const l2 = vx * vx + vy * vy || 1e-9;
          const u = Math.min(1, Math.max(0, ((px - ax) * vx + (py - ay) * vy) / l2));
          const dx = px - ax - vx * u, dy = py - ay - vy * u;
          const dd = dx * dx + dy * dy;
          if (dd < best) { best = dd; bt = (i + u) / SPINE_STEPS; }
        }
        // Envelope along the spine: rises over the first 30 %, dies away over the last 60 % (smoothstep
        // ends, so a fold starts and ends gradually); beyond either end the nearest point is an end: zero.
        const env = smoothstep(0, 0.3, bt) * (1 - smoothstep(0.4, 1, bt));
        coarse[gy * cw + gx] += fold.amp * Math.exp(-best * inv2) * env;
      }
    }
  }
  // Hem waves fade in below the waist; everything fades toward the cloth's edge.
  const out = new Float32Array(W * H);
  for (let y = 0; y < H; y++) {
    const sy = Math.min(ch - 1, Math.max(0, (y + 0.5) / f - 0.5));
    const y0 = sy | 0, y1 = Math.min(ch - 1, y0 + 1), ty = sy - y0;
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (cover[i]! <= 0) continue;
      const sx = Math.min(cw - 1, Math.max(0, (x + 0.5) / f - 0.5));
      const x0 = sx | 0, x1 = Math.min(cw - 1, x0 + 1), tx = sx - x0;
      const a = coarse[y0 * cw + x0]!, b = coarse[y0 * cw + x1]!, c = coarse[y1 * cw + x0]!, e = coarse[y1 * cw + x1]!;
      out[i] = ((a + (b - a) * tx) * (1 - ty) + (c + (e - c) * tx) * ty) * cover[i]!;
    }
  }
  // Smooth the bilinear kinks (they would show once lit).
  return blur(out, W, H, Math.max(0.7, f * 0.7));
}
