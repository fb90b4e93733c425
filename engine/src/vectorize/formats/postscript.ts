// The painting operators PDF content streams and PostScript share: absolute path construction (`m`, `l`,
// `c`, `h`) in source pixels on the SVG writer's 0.1 px grid, RGB fills (`rg`, `f` = nonzero, as the SVG's
// default fill rule: the tracer orients holes against their outlines) and gradient fills as shading
// dictionaries (axial type 2 / radial type 3 with a stitching function over the SVG stops, extended at both
// ends like SVG's `spreadMethod="pad"`), painted clipped to the shape (`q ... W n <shading> sh Q`). The EPS
// prolog binds these PDF names to their PostScript operators, so both writers emit the same body.
import type { Fill, GradientStop, PathSegments, TracedShape } from '../types.js';
import { num } from './page.js';

/** Grid steps per source pixel (as the SVG writer's path data). */
const GRID = 10;

function coord(v: number): string {
  return num(Math.round(v * GRID) / GRID, 1);
}

/** One compound path as absolute path operators, one operator per line. */
export function pathOps(subpaths: readonly PathSegments[]): string {
  let out = '';
  for (const sp of subpaths) {
    const n = sp.segs.length;
    if (n === 0) continue;
    const sx = Math.round(sp.start[0] * GRID), sy = Math.round(sp.start[1] * GRID);
    out += `${coord(sp.start[0])} ${coord(sp.start[1])} m\n`;
    let cx = sx, cy = sy;
    for (let i = 0; i < n; i++) {
      const s = sp.segs[i]!;
      const x = Math.round(s.x * GRID), y = Math.round(s.y * GRID);
      if (s.kind === 'L') {
        if (i === n - 1 && x === sx && y === sy) break; // `h` draws the closing line
        if (x === cx && y === cy) continue;
        out += `${coord(s.x)} ${coord(s.y)} l\n`;
      } else {
        out += `${coord(s.x1)} ${coord(s.y1)} ${coord(s.x2)} ${coord(s.y2)} ${coord(s.x)} ${coord(s.y)} c\n`;
      }
      cx = x;
      cy = y;
    }
    out += 'h\n';
  }
  return out;
}

/** An 8-bit channel as a 0..1 colour component (4 decimals: renders back to the same byte). */
export function unit(v: number): string {
  return num(Math.max(0, Math.min(255, Math.round(v))) / 255, 4);
}

function rgbArray(rgb: readonly [number, number, number]): string {
  return `[${unit(rgb[0])} ${unit(rgb[1])} ${unit(rgb[2])}]`;
}

/**
 * The colour function of SVG gradient stops over t in [0, 1]: constant before the first stop and after the
 * last (pad), linear between stops; a stitching function (type 3) of linear pieces (type 2).
 */
function stopFunction(stops: readonly GradientStop[]): string {
  const list = stops.map((s) => ({ t: Math.max(0, Math.min(1, s.offset)), rgb: s.rgb }));
  if (list.length === 0) list.push({ t: 0, rgb: [0, 0, 0] });
  // SVG clamps each offset to at least the previous one
  for (let i = 1; i < list.length; i++) if (list[i]!.t < list[i - 1]!.t) list[i]!.t = list[i - 1]!.t;
  if (list[0]!.t > 0) list.unshift({ t: 0, rgb: list[0]!.rgb });
  if (list[list.length - 1]!.t < 1) list.push({ t: 1, rgb: list[list.length - 1]!.rgb });
  const pieces: { t0: number; t1: number; c0: readonly [number, number, number]; c1: readonly [number, number, number] }[] = [];
  for (let i = 1; i < list.length; i++) {
    const a = list[i - 1]!, b = list[i]!;
    if (b.t > a.t) pieces.push({ t0: a.t, t1: b.t, c0: a.rgb, c1: b.rgb });
  }
  const piece = (c0: readonly [number, number, number], c1: readonly [number, number, number]) =>
    `<< /FunctionType 2 /Domain [0 1] /C0 ${rgbArray(c0)} /C1 ${rgbArray(c1)} /N 1 >>`;
  if (pieces.length === 0) {
    const c = list[list.length - 1]!.rgb;
    return piece(c, c);
  }
  if (pieces.length === 1) return piece(pieces[0]!.c0, pieces[0]!.c1);
  const bounds = pieces.slice(1).map((p) => num(p.t0, 4)).join(' ');
  const encode = pieces.map(() => '0 1').join(' ');
  return `<< /FunctionType 3 /Domain [0 1] /Functions [${pieces.map((p) => piece(p.c0, p.c1)).join(' ')}] /Bounds [${bounds}] /Encode [${encode}] >>`;
}

/** The shading dictionary of a gradient fill, in source-pixel user space (valid PDF and PostScript 3). */
export function shadingDict(fill: Exclude<Fill, { kind: 'solid' }>): string {
  const f = (v: number) => num(v, 2);
  const coords = fill.kind === 'linear' ? `${f(fill.x1)} ${f(fill.y1)} ${f(fill.x2)} ${f(fill.y2)}` : `${f(fill.cx)} ${f(fill.cy)} 0 ${f(fill.cx)} ${f(fill.cy)} ${f(fill.r)}`;
  return `<< /ShadingType ${fill.kind === 'linear' ? 2 : 3} /ColorSpace /DeviceRGB /Coords [${coords}] /Extend [true true] /Function ${stopFunction(fill.stops)} >>`;
}

/**
 * The painting body for `shapes` in paint order. `shading(label, dict)` returns the operand that names the
 * gradient of `label` for `sh` (PDF: a resource name such as `/Sh0`; PostScript: the dictionary itself).
 */
export function paintOps(shapes: readonly TracedShape[], fills: readonly Fill[], shading: (label: number, dict: string) => string): string {
  let out = '';
  let colour = '';
  for (const shape of shapes) {
    const fill = fills[shape.label] ?? { kind: 'solid', rgb: [0, 0, 0] };
    const path = pathOps(shape.subpaths);
    if (fill.kind === 'solid') {
      const c = `${unit(fill.rgb[0])} ${unit(fill.rgb[1])} ${unit(fill.rgb[2])} rg\n`;
      if (c !== colour) out += c;
      colour = c;
      out += path + 'f\n';
    } else {
      out += `q\n${path}W n\n${shading(shape.label, shadingDict(fill))} sh\nQ\n`;
    }
  }
  return out;
}
