// Garment silhouettes from measurements: builds the outline, sleeves, collar, rib bands, hood, pocket,
// drawstrings, seams and stitch lines of a blank as shapes in garment inches (x = 0 on the centre line,
// y downward from the high point of the shoulder). Curves are Catmull-Rom splines through key points,
// emitted as cubic Beziers, so the drawing stays faithful to the measurements it was built from.
import type { ShapeSpec, Silhouette, View } from './specs.js';

export interface Pt { x: number; y: number; corner?: boolean }

/** A closed filled region or an open stroked line, in inches. */
export interface Shape {
  pts: Pt[];
  closed: boolean;
  /** Straight segments between points (no spline smoothing). */
  straight?: boolean;
}

/** Everything the shader needs, in inches. */
export interface GarmentDrawing {
  /** Filled regions that together make the silhouette. */
  outline: Shape[];
  sleeves: Shape[];
  /** Regions seen through an opening (inside of the back collar, inside of the hood). */
  interior: Shape[];
  /** Ribbed parts (collar band, cuffs, waistband). */
  ribs: Shape[];
  /** Rib orientation: 'h' = ribs run across (collar band), 'v' = ribs run vertically (cuffs, waistband). */
  pocket: Shape[];
  hood: Shape[];
  strings: Shape[];
  seams: Shape[];
  stitches: Shape[];
  /** y of the collar seam at the centre line for this view (the `top_in` reference). */
  collar_y: number;
  /** Where the underarms are (for shadows). */
  underarms: Pt[];
  /** Box the drawing occupies, inches. */
  bounds: { x0: number; y0: number; x1: number; y1: number };
}

const rad = (d: number) => (d * Math.PI) / 180;
const P = (x: number, y: number, corner = false): Pt => ({ x, y, corner });
const mirror = (pts: Pt[]): Pt[] => pts.map((p) => ({ ...p, x: -p.x })).reverse();
const lerp = (a: Pt, b: Pt, t: number): Pt => ({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });

/** Points on a half ellipse from (-rx, cy) through (0, cy + ry) to (rx, cy). */
function arc(rx: number, cy: number, ry: number, n = 28, fromLeft = true): Pt[] {
  const out: Pt[] = [];
  for (let i = 0; i <= n; i++) {
    const t = fromLeft ? Math.PI - (Math.PI * i) / n : (Math.PI * i) / n;
    out.push({ x: rx * Math.cos(t), y: cy + ry * Math.sin(t) });
  }
  return out;
}

/** Build the drawing of a blank at its reference measurements. */
export function drawGarment(sil: Silhouette, s: ShapeSpec, view: View): GarmentDrawing {
  const nw = s.neck / 2;
  const rib = s.collar_rib;
  const sw = s.shoulder / 2;
  const a = rad(s.sleeve_angle);
  const dir = { x: Math.cos(a), y: Math.sin(a) };
  const perp = { x: -Math.sin(a), y: Math.cos(a) };
  const SP = P(sw, s.shoulder_drop);
  const ET = P(SP.x + dir.x * s.sleeve, SP.y + dir.y * s.sleeve, true);
  const EB = P(ET.x + perp.x * s.sleeve_end, ET.y + perp.y * s.sleeve_end, true);
  const UA = P(s.chest / 2 + 0.15, s.armhole);
  const hoodie = sil === 'hoodie';
  const topY = -0.12;

  // Right half of the body outline, from the neck point down to the centre of the hem.
  const armpit = lerp(EB, UA, 0.62);
  armpit.x -= perp.y * 0.05;
  armpit.y += 0.25;
  const right: Pt[] = [
    P(nw + Math.max(rib, 0.4), topY + 0.06, true),
    P(nw + (sw - nw) * 0.5, s.shoulder_drop * 0.5),
    lerp(P(nw + (sw - nw) * 0.5, s.shoulder_drop * 0.5), SP, 0.8),
    lerp(SP, ET, 0.07),
    lerp(SP, ET, 0.55),
    ET,
    EB,
    armpit,
    P(UA.x, UA.y + 0.15),
    P(s.chest / 2, s.armhole + 1.2),
    P(s.waist / 2, s.waist_y),
  ];
  if (s.hem_rib > 0) {
    right.push(P(s.waist / 2 - 0.15, s.length - s.hem_rib - 0.5));
    right.push(P(s.hem / 2 + 0.2, s.length - s.hem_rib + 0.05, true));
    right.push(P(s.hem / 2, s.length, true));
    right.push(P(s.hem / 4, s.length + 0.05));
    right.push(P(0, s.length + 0.08));
  } else {
    right.push(P(s.hem / 2, s.length, true));
    right.push(P(s.hem / 4, s.length + 0.2));
    right.push(P(0, s.length + 0.28));
  }
  // Top edge between the neck points: the back collar edge (seen over the front in a front view).
  const backEdge = arc(nw, topY, Math.max(0.2, s.back_drop - rib - topY)).slice(1, -1);
  const outlinePts = [...right, ...mirror(right).slice(1), ...backEdge];
  outlinePts[outlinePts.length - backEdge.length - 1]!.corner = true;

  const outline: Shape[] = [{ pts: outlinePts, closed: true }];
  const sleeveR: Pt[] = [SP, lerp(SP, ET, 0.55), ET, EB, armpit, P(UA.x, UA.y + 0.15, true), P(sw - 0.35, s.armhole * 0.55)];
  const sleeves: Shape[] = [{ pts: sleeveR, closed: true }, { pts: mirror(sleeveR), closed: true }];
  const interior: Shape[] = [];
  const ribs: Shape[] = [];
  const pocket: Shape[] = [];
  const hood: Shape[] = [];
  const strings: Shape[] = [];
  const seams: Shape[] = [];
  const stitches: Shape[] = [];

  // Shoulder and armhole seams.
  for (const sx of [1, -1]) {
    const m = (p: Pt): Pt => ({ ...p, x: p.x * sx });
    seams.push({ pts: [m(P(nw + Math.max(rib, 0.4), topY + 0.08)), m(P(nw + (sw - nw) * 0.5, s.shoulder_drop * 0.5)), m(SP)], closed: false });
    seams.push({ pts: [m(SP), m(P(sw - 0.3, s.armhole * 0.55)), m(P(UA.x - 0.1, UA.y + 0.1))], closed: false });
  }

  let collarY = view === 'front' ? s.front_drop : s.back_drop;
  if (!hoodie) {
    const frontEdge = arc(nw, topY, s.front_drop - rib - topY);
    const frontSeam = arc(nw + rib, topY + 0.02, s.front_drop - topY - 0.02);
    const backSeam = arc(nw + rib, topY + 0.02, s.back_drop - topY - 0.02);
    const backEdgeFull = arc(nw, topY, Math.max(0.2, s.back_drop - rib - topY));
    if (view === 'front') {
      // The inside of the back, seen through the neck opening, and the front collar band.
      interior.push({ pts: [...backEdgeFull, ...frontEdge.slice().reverse()], closed: true, straight: true });
      ribs.push({ pts: [...frontEdge, ...frontSeam.slice().reverse()], closed: true, straight: true });
      ribs.push({ pts: [...backEdgeFull, ...backSeam.slice().reverse()], closed: true, straight: true });
      seams.push({ pts: frontSeam, closed: false, straight: true });
      stitches.push({ pts: arc(nw + rib + 0.22, topY + 0.04, s.front_drop - topY + 0.2), closed: false, straight: true });
    } else {
      ribs.push({ pts: [...backEdgeFull, ...backSeam.slice().reverse()], closed: true, straight: true });
      seams.push({ pts: backSeam, closed: false, straight: true });
      stitches.push({ pts: arc(nw + rib + 0.2, topY + 0.04, s.back_drop - topY + 0.2), closed: false, straight: true });
      // Back neck tape, shoulder to shoulder.
      stitches.push({ pts: [P(-(nw + rib + 0.3), 0.25), P(0, s.back_drop + 0.55), P(nw + rib + 0.3, 0.25)], closed: false });
    }
  } else {
    // Hood: raised behind the neck (ghost-mannequin pose) in both views.
    const hoodOuter: Pt[] = [
      P(nw + 2.3, 2.2, true), P(nw + 2.9, -1.8), P(6.1, -6.4), P(3.6, -9.1), P(0, -9.9),
    ];
    const hoodPts = [...hoodOuter, ...mirror(hoodOuter).slice(1)];
    if (view === 'back') hoodPts.push(P(-2.5, 2.9), P(0, 3.2), P(2.5, 2.9));
    else hoodPts.push(P(0, 3.0));
    hood.push({ pts: hoodPts, closed: true });
    if (view === 'front') {
      const V = P(0, s.front_drop, true);
      const open: Pt[] = [V, P(nw - 0.9, 1.0), P(nw - 0.3, -2.4), P(3.3, -6.3), P(0, -7.9)];
      const openPts = [...open, ...mirror(open).slice(1, -1)];
      interior.push({ pts: openPts, closed: true });
      // The hood's doubled edge around the opening.
      const rimOut: Pt[] = [P(0, s.front_drop + 0.9, true), P(nw + 0.1, 1.2), P(nw + 0.7, -2.5), P(4.2, -7.0), P(0, -8.9)];
      ribs.length = 0;
      seams.push({ pts: [...rimOut, ...mirror(rimOut).slice(1)], closed: false });
      stitches.push({ pts: [P(0, s.front_drop + 0.55), P(nw - 0.35, 1.1), P(nw + 0.25, -2.45), P(3.8, -6.7), P(0, -8.45), P(-3.8, -6.7), P(-(nw + 0.25), -2.45), P(-(nw - 0.35), 1.1), P(0, s.front_drop + 0.55)], closed: false });
      // Crossover of the two hood sides at centre front.
      seams.push({ pts: [V, P(-1.7, s.front_drop - 1.9)], closed: false, straight: true });
      // Drawstrings from the eyelets.
      for (const sx of [1, -1]) {
        const x0 = 1.55 * sx;
        strings.push({ pts: [P(x0, s.front_drop - 1.1), P(x0 + 0.1 * sx, s.front_drop + 4), P(x0 + 0.35 * sx, s.front_drop + 8.5), P(x0 + 0.25 * sx, s.front_drop + 11.5)], closed: false });
      }
      // Kangaroo pocket.
      const py = s.length - s.hem_rib - 8.8;
      const pb = s.length - s.hem_rib;
      const pk: Pt[] = [P(6.0, py, true), P(7.0, py + 2.2), P(8.5, py + 5.3, true), P(8.6, pb, true)];
      pocket.push({ pts: [...pk, ...mirror(pk)], closed: true });
      seams.push({ pts: [P(-6.0, py), P(6.0, py)], closed: false, straight: true });
      stitches.push({ pts: [P(-5.9, py + 0.3), P(5.9, py + 0.3)], closed: false, straight: true });
      for (const sx of [1, -1]) {
        seams.push({ pts: [P(6.0 * sx, py, true), P(7.0 * sx, py + 2.2), P(8.5 * sx, py + 5.3, true)], closed: false });
        stitches.push({ pts: [P(5.75 * sx, py + 0.25), P(6.75 * sx, py + 2.35), P(8.2 * sx, py + 5.4)], closed: false });
      }
      collarY = s.front_drop;
    } else {
      seams.push({ pts: [P(0, -9.8), P(0, -4), P(0, 3.1)], closed: false });
      stitches.push({ pts: [P(0.25, -9.6), P(0.25, -4), P(0.25, 3.0)], closed: false });
      collarY = s.back_drop;
    }
  }

  // Hem and sleeve-end finishing: double-needle stitching, or rib bands with a seam.
  const hemY = (x: number) => s.length + (s.hem_rib > 0 ? 0.08 : 0.28) * (1 - (x / (s.hem / 2)) ** 2);
  if (s.hem_rib > 0) {
    const top = s.length - s.hem_rib;
    ribs.push({ pts: [P(-s.hem / 2 - 0.6, top), P(s.hem / 2 + 0.6, top), P(s.hem / 2 + 0.6, s.length + 0.5), P(-s.hem / 2 - 0.6, s.length + 0.5)], closed: true, straight: true });
    seams.push({ pts: [P(-s.hem / 2 - 0.2, top + 0.05), P(s.hem / 2 + 0.2, top + 0.05)], closed: false, straight: true });
  } else {
    for (const d of [0.78, 1.02]) {
      const pts: Pt[] = [];
      for (let i = 0; i <= 16; i++) {
        const x = -s.hem / 2 + 0.1 + ((s.hem - 0.2) * i) / 16;
        pts.push(P(x, hemY(x) - d));
      }
      stitches.push({ pts, closed: false });
    }
  }
  for (const sx of [1, -1]) {
    const m = (p: Pt): Pt => ({ ...p, x: p.x * sx });
    if (s.cuff_rib > 0) {
      const c1 = P(ET.x - dir.x * s.cuff_rib, ET.y - dir.y * s.cuff_rib);
      const c2 = P(EB.x - dir.x * s.cuff_rib, EB.y - dir.y * s.cuff_rib);
      const ext = 0.5;
      ribs.push({ pts: [m(P(c1.x - perp.x * ext, c1.y - perp.y * ext)), m(P(ET.x + dir.x * ext - perp.x * ext, ET.y + dir.y * ext - perp.y * ext)), m(P(EB.x + dir.x * ext + perp.x * ext, EB.y + dir.y * ext + perp.y * ext)), m(P(c2.x + perp.x * ext, c2.y + perp.y * ext))], closed: true, straight: true });
      seams.push({ pts: [m(c1), m(c2)], closed: false, straight: true });
    } else {
      for (const d of [0.8, 1.04]) {
        stitches.push({ pts: [m(P(ET.x - dir.x * d + perp.x * 0.05, ET.y - dir.y * d + perp.y * 0.05)), m(P(EB.x - dir.x * d - perp.x * 0.08, EB.y - dir.y * d - perp.y * 0.08))], closed: false, straight: true });
      }
    }
  }

  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const sh of [...outline, ...hood, ...strings]) for (const p of sh.pts) {
    x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); x1 = Math.max(x1, p.x); y1 = Math.max(y1, p.y);
  }
  return {
    outline, sleeves, interior, ribs, pocket, hood, strings, seams, stitches, collar_y: collarY,
    underarms: [UA, { ...UA, x: -UA.x }],
    bounds: { x0, y0, x1, y1 },
  };
}

/** SVG path data of a shape under the inch -> pixel map `(x - ox) * ppi`. Catmull-Rom splines unless straight. */
export function pathData(sh: Shape, ppi: number, ox: number, oy: number): string {
  const X = (p: Pt) => ((p.x - ox) * ppi).toFixed(2);
  const Y = (p: Pt) => ((p.y - oy) * ppi).toFixed(2);
  const pts = sh.pts;
  const n = pts.length;
  if (n === 0) return '';
  let d = `M${X(pts[0]!)},${Y(pts[0]!)}`;
  const segs = sh.closed ? n : n - 1;
  for (let i = 0; i < segs; i++) {
    const p1 = pts[i]!;
    const p2 = pts[(i + 1) % n]!;
    if (sh.straight) {
      d += `L${X(p2)},${Y(p2)}`;
      continue;
    }
    const p0 = sh.closed ? pts[(i - 1 + n) % n]! : pts[Math.max(0, i - 1)]!;
    const p3 = sh.closed ? pts[(i + 2) % n]! : pts[Math.min(n - 1, i + 2)]!;
    const t1 = p1.corner ? { x: (p2.x - p1.x) / 3, y: (p2.y - p1.y) / 3 } : { x: (p2.x - p0.x) / 6, y: (p2.y - p0.y) / 6 };
    const t2 = p2.corner ? { x: (p2.x - p1.x) / 3, y: (p2.y - p1.y) / 3 } : { x: (p3.x - p1.x) / 6, y: (p3.y - p1.y) / 6 };
    const c1 = { x: p1.x + t1.x, y: p1.y + t1.y };
    const c2 = { x: p2.x - t2.x, y: p2.y - t2.y };
    d += `C${X(c1)},${Y(c1)} ${X(c2)},${Y(c2)} ${X(p2)},${Y(p2)}`;
  }
  if (sh.closed) d += 'Z';
  return d;
}
