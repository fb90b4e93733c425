// Neutral (colourless) render of a blank, as if photographed under a large soft light: a height field
// (pillowed panels + soft folds from folds.ts + low-frequency wrinkles + rib and seam relief) lit with a
// wrapped diffuse model (broad source: gradual falloff, no hard terminator) and a faint Blinn-Phong sheen,
// times ambient occlusion (cavity of the folds, edge falloff, underarm, collar, hood and drawstring
// shadows), plus knit grain, stitching and a two-yarn heather field whose speckle is sized in inches.
// The light is normalised so the body's median is 1; colour is applied afterwards (colorize.ts), so a
// new colour is cheap.
import { blur, fbm, rasterSvg, smoothstep, whiteNoise } from './field.js';
import { foldField } from './folds.js';
import { drawGarment, pathData, type GarmentDrawing, type Shape } from './outline.js';
import type { OwnStyle, View } from './specs.js';

/** The neutral render; all arrays are width*height, row-major. */
export interface NeutralRender {
  width: number;
  height: number;
  /** Pixels per inch at the style's reference size. */
  ppi: number;
  /** Pixel position of the centre line and of the collar seam (the `top_in` reference). */
  center_x: number;
  collar_y: number;
  /** Silhouette coverage 0-255. */
  mask: Uint8Array;
  /** Where ink may go, 0-255: the silhouette less drawstrings, openings and rib bands. */
  print_mask: Uint8Array;
  /** Light multiplier, 1 = the median of the body (print area); stored x 16384. */
  shade: Uint16Array;
  /** Sheen 0-255. */
  sheen: Uint8Array;
  /** Second-yarn share 0-255 (heather speckle). */
  yarn: Uint8Array;
  /** Backdrop shadow 0-255. */
  shadow: Uint8Array;
  /** Fold relief in inches (0 on flat cloth): drives the ink displacement in the mockup. */
  fold_in: Float32Array;
}

export const SHADE_SCALE = 16384;

function svgOf(shapes: Shape[], ppi: number, ox: number, oy: number, stroke?: { width: number; dash?: string }): string {
  return shapes.map((s) => {
    const d = pathData(s, ppi, ox, oy);
    if (!stroke) return `<path d="${d}" fill="#fff"/>`;
    const dash = stroke.dash ? ` stroke-dasharray="${stroke.dash}"` : '';
    return `<path d="${d}" fill="none" stroke="#fff" stroke-width="${stroke.width.toFixed(2)}" stroke-linecap="round" stroke-linejoin="round"${dash}/>`;
  }).join('');
}

/** Canvas in inches around a drawing: its bounds plus a margin. */
export function canvasOf(d: GarmentDrawing): { ox: number; oy: number; w_in: number; h_in: number } {
  const b = d.bounds;
  const m = Math.max(b.x1 - b.x0, b.y1 - b.y0) * 0.07;
  return { ox: b.x0 - m, oy: b.y0 - m, w_in: b.x1 - b.x0 + 2 * m, h_in: b.y1 - b.y0 + 2 * m * 1.15 };
}

/**
 * Render the neutral blank of `style` (at its reference size) for `view` with the long side `longPx`.
 * Deterministic: the same inputs give the same pixels.
 */
export async function renderNeutral(style: OwnStyle, view: View, longPx: number): Promise<NeutralRender> {
  const s = style.shape;
  const d = drawGarment(style.silhouette, s, view);
  const cv = canvasOf(d);
  const ppi = longPx / Math.max(cv.w_in, cv.h_in);
  const W = Math.round(cv.w_in * ppi);
  const H = Math.round(cv.h_in * ppi);
  const N = W * H;
  const { ox, oy } = cv;
  const seed = view === 'front' ? 11 : 23;

  const [sil, sleeves, interior, ribs, pocket, hood, strings, seams, stitches] = await Promise.all([
    rasterSvg(svgOf([...d.outline, ...d.hood], ppi, ox, oy), W, H),
    rasterSvg(svgOf(d.sleeves, ppi, ox, oy), W, H),
    rasterSvg(svgOf(d.interior, ppi, ox, oy), W, H),
    rasterSvg(svgOf(d.ribs, ppi, ox, oy), W, H),
    rasterSvg(svgOf(d.pocket, ppi, ox, oy), W, H),
    rasterSvg(svgOf(d.hood, ppi, ox, oy), W, H),
    rasterSvg(svgOf(d.strings, ppi, ox, oy, { width: 0.3 * ppi }), W, H),
    rasterSvg(svgOf(d.seams, ppi, ox, oy, { width: Math.max(0.9, 0.05 * ppi) }), W, H),
    rasterSvg(svgOf(d.stitches, ppi, ox, oy, { width: Math.max(0.7, 0.035 * ppi), dash: `${(0.085 * ppi).toFixed(2)} ${(0.05 * ppi).toFixed(2)}` }), W, H),
  ]);

  // Panels: body, sleeves and hood each puff up on their own, which creases them where they meet.
  const edge = blur(sil, W, H, 0.35 * ppi);
  const ua = d.underarms;
  const L = s.length;
  const hemTop = L - (s.hem_rib > 0 ? s.hem_rib : 0);
  const cloth = new Float32Array(N);
  for (let i = 0; i < N; i++) cloth[i] = Math.max(0, sil[i]! - hood[i]!);
  const folds = foldField(style.silhouette, s, d, W, H, ppi, ox, oy, cloth);
  // Height field in inches (its temporaries are released when it returns).
  const hgt = ((): Float32Array => {
    const body = new Float32Array(N);
    for (let i = 0; i < N; i++) body[i] = Math.max(0, sil[i]! - sleeves[i]! - hood[i]!);
    const pillowBody = blur(body, W, H, 1.5 * ppi);
    const pillowSleeve = blur(sleeves, W, H, 0.8 * ppi);
    const pillowHood = blur(hood, W, H, 1.3 * ppi);
    const pocketSoft = blur(pocket, W, H, 0.12 * ppi);
    const stringSoft = blur(strings, W, H, 0.06 * ppi);
    const wrinkle = fbm(W, H, 6 * ppi, 5 * ppi, 2, seed);
    const crumple = fbm(W, H, 1.6 * ppi, 1.3 * ppi, 2, seed + 5);

    const out = new Float32Array(N);
    const ribPeriod = 0.1;
    for (let y = 0; y < H; y++) {
      const yi = y / ppi + oy;
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        if (sil[i]! <= 0.001 && strings[i]! <= 0.001) continue;
        const xi = x / ppi + ox;
        let h = 1.6 * Math.sqrt(Math.max(0, pillowBody[i]!)) + 1.0 * Math.sqrt(Math.max(0, pillowSleeve[i]!)) + 1.5 * Math.sqrt(Math.max(0, pillowHood[i]!));
        h += folds[i]!;
        h += 0.05 * wrinkle[i]! + 0.012 * crumple[i]!;
        h += 0.18 * pocketSoft[i]! + 0.22 * stringSoft[i]!;
        // Ribs: vertical ribs on cuffs and waistband, ribs across the collar band.
        const r = ribs[i]!;
        if (r > 0) {
          const ph = s.hem_rib > 0 || s.cuff_rib > 0 ? xi : Math.atan2(yi, xi) * 2.5;
          h += r * 0.011 * Math.sin((ph / ribPeriod) * 2 * Math.PI) + r * 0.05;
        }
        h -= 0.05 * seams[i]!;
        out[i] = h * Math.max(sil[i]!, strings[i]!);
      }
    }
    return out;
  })();
  // Cavity: how far the cloth lies below its surroundings (fold valleys, the creases between panels).
  const cavity = ((): Float32Array => {
    const b = blur(hgt, W, H, 0.45 * ppi);
    const c = new Float32Array(N);
    for (let i = 0; i < N; i++) c[i] = Math.max(0, b[i]! - hgt[i]!);
    return blur(c, W, H, 0.08 * ppi);
  })();

  // Light from the upper left and in front; normals from the height gradient (in inch/inch units).
  const l = normalize(-0.42, -0.6, 1.0);
  const hv = normalize(l[0], l[1], l[2] + 1);
  const shade = new Uint16Array(N);
  const sheen = new Uint8Array(N);
  // Knit grain: fine noise stretched along the wales (vertical), fainter when a pixel covers many stitches.
  const grain = ((): Float32Array => {
    const g = whiteNoise(W, H, seed + 99);
    const t = new Float32Array(N);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
      const i = y * W + x;
      t[i] = (g[y > 0 ? i - W : i]! + 2 * g[i]! + g[y < H - 1 ? i + W : i]!) * 0.5;
    }
    return t;
  })();
  const grainK = 0.022 * Math.min(1, ppi / 40);
  const ink = blur(interior, W, H, 0.25 * ppi);
  const hoodShadow = blur(hood, W, H, 0.45 * ppi);
  const sleeveShadow = blur(sleeves, W, H, 0.22 * ppi);
  const stringShadow = blur(strings, W, H, 0.12 * ppi);
  const ribShadow = blur(ribs, W, H, 0.18 * ppi);
  const pocketShadow = blur(pocket, W, H, 0.35 * ppi);
  const sdx = Math.round(0.12 * ppi), sdy = Math.round(0.16 * ppi);
  const halfChest = s.chest / 2;
  for (let y = 0; y < H; y++) {
    const yi = y / ppi + oy;
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const m = Math.max(sil[i]!, strings[i]!);
      if (m <= 0.001) continue;
      const xi = x / ppi + ox;
      const x0 = x > 0 ? i - 1 : i, x1 = x < W - 1 ? i + 1 : i;
      const y0 = y > 0 ? i - W : i, y1 = y < H - 1 ? i + W : i;
      const gx = ((hgt[x1]! - hgt[x0]!) * ppi) / ((x1 - x0) || 1);
      const gy = ((hgt[y1]! - hgt[y0]!) * ppi) / ((y1 - y0) / W || 1);
      const inv = 1 / Math.sqrt(gx * gx + gy * gy + 1);
      const nx = -gx * inv, ny = -gy * inv, nz = inv;
      const ndl = nx * l[0] + ny * l[1] + nz * l[2];
      // Wrapped diffuse (a large soft source): light falls off gradually past the terminator.
      const diffuse = Math.max(0, ndl + WRAP) / (l[2] + WRAP);
      // The softbox is up and to the left: the cloth is a little brighter there (+-7 % across the body).
      const falloff = 1 - 0.05 * Math.max(-1.3, Math.min(1.3, xi / halfChest)) - 0.07 * Math.max(-1.3, Math.min(1.3, (yi - s.length / 2) / (s.length / 2)));
      let v = (0.28 + 0.72 * diffuse) * falloff;
      // Ambient occlusion: fold valleys, the falloff toward the silhouette, the underarms.
      let ao = (0.8 + 0.2 * smoothstep(0.1, 0.85, edge[i]!)) * (1 - Math.min(0.5, 2.2 * cavity[i]!));
      for (const u of ua) {
        const dx = xi - u.x * 0.95, dy = yi - (u.y + 0.7);
        ao *= 1 - 0.22 * Math.exp(-(dx * dx * 0.6 + dy * dy) / 2.6);
      }
      const onBody = Math.max(0, 1 - sleeves[i]! - hood[i]!);
      ao *= 1 - 0.22 * sleeveShadow[i]! * onBody * (1 - sleeves[i]!);
      ao *= 1 - 0.18 * ribShadow[i]! * (1 - ribs[i]!) * (1 - interior[i]!);
      ao *= 1 - 0.35 * hoodShadow[i]! * (1 - hood[i]!) * (yi > -1 ? 1 : 0);
      ao *= 1 - 0.25 * pocketShadow[i]! * (1 - pocket[i]!) * (yi > hemTop - 9 ? 1 : 0);
      const si = y >= sdy && x >= sdx ? i - sdy * W - sdx : i;
      ao *= 1 - 0.4 * stringShadow[si]! * (1 - strings[i]!);
      // Openings: the inside of the garment is in shadow, darkest deep inside.
      const inside = interior[i]!;
      if (inside > 0) {
        const depth = d.hood.length > 0 ? 0.23 + 0.22 * smoothstep(-8, 3, yi) : 0.5 - 0.12 * smoothstep(d.collar_y - 3, d.collar_y - 0.3, yi) + 0.25 * ribs[i]!;
        v = v * (1 - inside) + depth * inside * (0.9 + 0.1 * diffuse);
        ao *= 1 - 0.25 * (1 - ink[i]!) * inside;
      }
      // Seams: a fine dark crease; stitches: raised thread with a shadow below.
      v *= 1 - 0.18 * seams[i]!;
      const below = y >= 1 ? stitches[i - W]! : 0;
      v *= 1 + 0.16 * stitches[i]! - 0.22 * below * (1 - stitches[i]!);
      // Knit grain.
      v *= 1 + grainK * grain[i]! * (1 - 0.5 * stitches[i]!);
      shade[i] = Math.min(65535, Math.round(v * ao * SHADE_SCALE));
      const ndh = Math.max(0, nx * hv[0] + ny * hv[1] + nz * hv[2]);
      sheen[i] = Math.round(255 * Math.min(1, Math.pow(ndh, 18) * ao * (1 - inside)));
    }
  }

  // Heather yarn: which of the two yarns shows, 0.5 +- deviation. Fibre clumps are ~0.03 in across and
  // a little longer along the wales; a pixel that covers several averages them (smaller deviation), so
  // the mix reads the same at every render size. A faint mottle (0.5 in) gives the yarn's slub.
  const yarn = new Uint8Array(N);
  {
    const cell = 0.03 * ppi;
    const fib = cell >= 2 ? blur(whiteNoise(W, H, seed + 37), W, H, cell * 0.35) : whiteNoise(W, H, seed + 37);
    // Standard deviation of the fibre field, measured (blurring shrinks it), so the contrast is set exactly.
    let sd = 0;
    for (let i = 0; i < N; i += 7) sd += fib[i]! * fib[i]!;
    sd = Math.sqrt(sd / Math.ceil(N / 7)) || 1;
    const perPixel = Math.min(1, Math.max(0.3, cell / 1.5));
    const mottle = fbm(W, H, 0.6 * ppi, 0.8 * ppi, 2, seed + 41);
    for (let i = 0; i < N; i++) {
      const v = 0.5 + 0.17 * perPixel * (fib[i]! / sd) + 0.04 * mottle[i]!;
      yarn[i] = Math.round(255 * Math.min(1, Math.max(0, v)));
    }
  }

  // Backdrop shadow: the silhouette, offset down and right, blurred.
  const off = new Float32Array(N);
  const ddx = Math.round(0.25 * ppi), ddy = Math.round(0.5 * ppi);
  for (let y = ddy; y < H; y++) for (let x = ddx; x < W; x++) off[y * W + x] = Math.max(sil[(y - ddy) * W + x - ddx]!, strings[(y - ddy) * W + x - ddx]!);
  const sh = blur(off, W, H, 0.7 * ppi);
  const shadow = new Uint8Array(N);
  const mask = new Uint8Array(N);
  const printMask = new Uint8Array(N);
  for (let i = 0; i < N; i++) {
    shadow[i] = Math.round(255 * Math.min(1, sh[i]!));
    mask[i] = Math.round(255 * Math.min(1, Math.max(sil[i]!, strings[i]!)));
    printMask[i] = Math.round(255 * Math.max(0, sil[i]! * (1 - strings[i]!) * (1 - interior[i]!) * (1 - ribs[i]!)));
  }
  // Normalise the light so the body's median is 1 (the colour is calibrated to it; ink is lit by it).
  {
    const hist = new Uint32Array(65536);
    let n = 0;
    for (let i = 0; i < N; i++) if (printMask[i] === 255 && mask[i] === 255) { hist[shade[i]!]++; n++; }
    let acc = 0, med = SHADE_SCALE;
    for (let v = 0; v < 65536 && n > 0; v++) { acc += hist[v]!; if (acc * 2 >= n) { med = Math.max(1, v); break; } }
    const k = SHADE_SCALE / med;
    for (let i = 0; i < N; i++) shade[i] = Math.min(65535, Math.round(shade[i]! * k));
  }
  return {
    width: W, height: H, ppi,
    center_x: -ox * ppi, collar_y: (d.collar_y - oy) * ppi,
    mask, print_mask: printMask, shade, sheen, yarn, shadow, fold_in: folds,
  };
}

/** Wrap of the diffuse term: light reaches this far (in n.l) past the terminator. */
const WRAP = 0.4;

function normalize(x: number, y: number, z: number): [number, number, number] {
  const n = Math.hypot(x, y, z) || 1;
  return [x / n, y / n, z / n];
}
