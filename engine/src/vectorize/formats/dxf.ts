// DXF writer for cutters (vinyl, heat-transfer, laser): AutoCAD R12 (AC1009) ASCII, the format every cutter
// and CAD program reads. Each closed outline is one closed POLYLINE (flag 1), or a CIRCLE when it was
// recognised as one (primitives/), on the layer of its colour, named
// by its hex value (`E63946`: R12 layer names allow only A-Z 0-9 $ - _), with the nearest AutoCAD colour index
// as the layer colour. Béziers are flattened to within 0.1 px and 0.002 in (0.05 mm) of the curve.
// Coordinates are physical (inches or millimetres, $INSUNITS 1 or 4; print width, else 72 px per inch), Y up
// (DXF's origin is bottom-left), the art's box from (0,0) to its physical width and height ($LIMMIN/$LIMMAX;
// $EXTMIN/$EXTMAX hold the outlines' extents). Transparent pixels have no outline; stacked art keeps its
// overlapping layers (one per colour to weed and layer), cutout art tiles without overlap.
import type { PathSegments, TraceResult } from '../types.js';
import { drawnShapes, inchesPerPx, num, type PageOptions } from './page.js';

/** DXF drawing units: inches or millimetres (the `dxf_units` option of `vectorize`). */
export type DxfUnits = 'in' | 'mm';

export interface DxfOptions extends PageOptions {
  /** Drawing units: `in` ($INSUNITS 1) or `mm` ($INSUNITS 4). */
  units: DxfUnits;
}

export interface DxfResult {
  dxf: string;
  paths: number;
  colorsUsed: number;
}

const UNITS: Readonly<Record<DxfUnits, { perInch: number; insunits: number; measurement: number; digits: number; tol: number }>> = {
  in: { perInch: 1, insunits: 1, measurement: 0, digits: 4, tol: 0.002 },
  mm: { perInch: 25.4, insunits: 4, measurement: 1, digits: 3, tol: 0.05 },
};

/** The AutoCAD Color Index palette (1-255): 9 named colours, 24 hues x 5 shades x 2 saturations, 6 greys. */
const ACI: [number, number, number][] = (() => {
  const out: [number, number, number][] = [[0, 0, 0], [255, 0, 0], [255, 255, 0], [0, 255, 0], [0, 255, 255], [0, 0, 255], [255, 0, 255], [255, 255, 255], [128, 128, 128], [192, 192, 192]];
  const values = [255, 204, 153, 127, 76];
  for (let hue = 0; hue < 24; hue++) {
    for (let k = 0; k < 10; k++) {
      const v = values[k >> 1]!;
      const lo = k & 1 ? v / 2 : 0;
      const h = (hue * 15) / 60;
      const sector = Math.floor(h), frac = h - sector;
      const rise = lo + (v - lo) * frac, fall = v - (v - lo) * frac;
      const rgb: [number, number, number][] = [[v, rise, lo], [fall, v, lo], [lo, v, rise], [lo, fall, v], [rise, lo, v], [v, lo, fall]];
      const c = rgb[sector % 6]!;
      out.push([Math.round(c[0]), Math.round(c[1]), Math.round(c[2])]);
    }
  }
  for (const g of [51, 80, 105, 130, 190, 255]) out.push([g, g, g]);
  return out;
})();

/** Nearest AutoCAD Color Index (1-255) of an RGB colour (Euclidean in RGB; the exact colour is the layer name). */
export function nearestAci(rgb: readonly [number, number, number]): number {
  let best = 7, bestD = Infinity;
  for (let i = 1; i < ACI.length; i++) {
    const c = ACI[i]!;
    const d = (c[0] - rgb[0]) ** 2 + (c[1] - rgb[1]) ** 2 + (c[2] - rgb[2]) ** 2;
    if (d < bestD) { bestD = d; best = i; }
  }
  return best;
}

/** `RRGGBB` in upper case: the layer name of a colour. */
export function layerName(rgb: readonly [number, number, number]): string {
  return rgb.map((v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0')).join('').toUpperCase();
}

/** A closed subpath as polygon vertices in source pixels (cubics flattened within `tol` px by Wang's bound). */
function flatten(sp: PathSegments, tol: number): number[] {
  const pts: number[] = [sp.start[0], sp.start[1]];
  let x0 = sp.start[0], y0 = sp.start[1];
  for (const s of sp.segs) {
    if (s.kind === 'C') {
      const ddx = Math.max(Math.abs(x0 - 2 * s.x1 + s.x2), Math.abs(s.x1 - 2 * s.x2 + s.x));
      const ddy = Math.max(Math.abs(y0 - 2 * s.y1 + s.y2), Math.abs(s.y1 - 2 * s.y2 + s.y));
      const n = Math.max(1, Math.ceil(Math.sqrt((0.75 * Math.hypot(ddx, ddy)) / tol)));
      for (let i = 1; i < n; i++) {
        const t = i / n, u = 1 - t;
        const a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
        pts.push(a * x0 + b * s.x1 + c * s.x2 + d * s.x, a * y0 + b * s.y1 + c * s.y2 + d * s.y);
      }
    }
    pts.push(s.x, s.y);
    x0 = s.x;
    y0 = s.y;
  }
  return pts;
}

/**
 * Writes a DXF drawing of `result`: one layer per colour, `layerRgb[label]` naming the layer of shape `label`.
 * @example writeDxf(trace, rgbs, { width: 1024, height: 768, units: 'mm' })
 */
export function writeDxf(result: TraceResult, layerRgb: readonly (readonly [number, number, number])[], opts: DxfOptions): DxfResult {
  const { shapes, paths, colorsUsed } = drawnShapes(result);
  const u = UNITS[opts.units];
  const k = inchesPerPx(opts) * u.perInch; // units per px
  const tolPx = Math.min(0.1, u.tol / k);
  const f = (v: number) => num(v, u.digits, true);
  const lines: string[] = [];
  const g = (code: number, value: string | number) => lines.push(String(code).padStart(3), String(value));
  const layers = new Map<string, number>();
  const entities: string[] = [];
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const shape of shapes) {
    const rgb = layerRgb[shape.label] ?? [0, 0, 0];
    const layer = layerName(rgb);
    if (!layers.has(layer)) layers.set(layer, nearestAci(rgb));
    for (const sp of shape.subpaths) {
      if (sp.primitive?.kind === 'circle') {
        const { cx, cy, r } = sp.primitive;
        const x = cx * k, y = (opts.height - cy) * k, rr = r * k;
        minX = Math.min(minX, x - rr); maxX = Math.max(maxX, x + rr); minY = Math.min(minY, y - rr); maxY = Math.max(maxY, y + rr);
        entities.push(`  0\nCIRCLE\n  8\n${layer}\n 10\n${f(x)}\n 20\n${f(y)}\n 30\n0\n 40\n${f(rr)}\n`);
        continue;
      }
      const pts = flatten(sp, tolPx);
      const verts: string[] = [];
      let last = '';
      for (let i = 0; i < pts.length; i += 2) {
        const x = pts[i]! * k, y = (opts.height - pts[i + 1]!) * k;
        const v = `${f(x)}\n 20\n${f(y)}`;
        if (v === last) continue;
        last = v;
        verts.push(v);
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
      if (verts.length > 1 && verts[verts.length - 1] === verts[0]) verts.pop(); // the closed flag draws the closing edge
      let e = `  0\nPOLYLINE\n  8\n${layer}\n 66\n1\n 10\n0\n 20\n0\n 30\n0\n 70\n1\n`;
      for (const v of verts) e += `  0\nVERTEX\n  8\n${layer}\n 10\n${v}\n 30\n0\n`;
      e += `  0\nSEQEND\n  8\n${layer}\n`;
      entities.push(e);
    }
  }
  if (minX > maxX) minX = minY = maxX = maxY = 0;
  const point = (name: string, x: number, y: number, z: boolean) => {
    g(9, name);
    g(10, f(x));
    g(20, f(y));
    if (z) g(30, 0);
  };
  g(0, 'SECTION'); g(2, 'HEADER');
  g(9, '$ACADVER'); g(1, 'AC1009');
  g(9, '$INSUNITS'); g(70, u.insunits);
  g(9, '$MEASUREMENT'); g(70, u.measurement);
  point('$EXTMIN', minX, minY, true);
  point('$EXTMAX', maxX, maxY, true);
  point('$LIMMIN', 0, 0, false);
  point('$LIMMAX', opts.width * k, opts.height * k, false);
  g(0, 'ENDSEC');
  g(0, 'SECTION'); g(2, 'TABLES');
  g(0, 'TABLE'); g(2, 'LTYPE'); g(70, 1);
  g(0, 'LTYPE'); g(2, 'CONTINUOUS'); g(70, 0); g(3, 'Solid line'); g(72, 65); g(73, 0); g(40, 0);
  g(0, 'ENDTAB');
  g(0, 'TABLE'); g(2, 'LAYER'); g(70, layers.size);
  for (const [name, aci] of layers) {
    g(0, 'LAYER'); g(2, name); g(70, 0); g(62, aci); g(6, 'CONTINUOUS');
  }
  g(0, 'ENDTAB');
  g(0, 'ENDSEC');
  g(0, 'SECTION'); g(2, 'ENTITIES');
  const head = lines.join('\n') + '\n';
  const dxf = head + entities.join('') + '  0\nENDSEC\n  0\nEOF\n';
  return { dxf, paths, colorsUsed };
}
