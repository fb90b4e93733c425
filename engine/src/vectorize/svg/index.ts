// SVG writer for traced shapes: viewBox in source pixels, physical width/height in inches when a print width
// is given, one compound <path> per traced shape (a shape that is one recognised circle, ellipse or rectangle:
// <circle>, <ellipse>, <rect>) (nonzero fill: the tracer orients holes opposite to their
// outlines), solid fills as hex colours and gradient fills as userSpaceOnUse defs. No metadata; the output
// is a pure function of its input (deterministic).

import type { Fill, Primitive, TraceResult } from '../types.js';
import { encodePath } from './pathdata.js';

export { encodePath } from './pathdata.js';

export interface SvgOptions {
  /** Source width and height in pixels (the viewBox). */
  width: number;
  height: number;
  /** When given, width/height are written in inches at this width (height keeps the aspect ratio). */
  printWidthInches?: number;
}

export interface SvgResult {
  svg: string;
  /** Number of closed outlines (moveto commands) over all paths. */
  paths: number;
  /** Number of distinct palette labels painted. */
  colorsUsed: number;
}

function hex2(v: number): string {
  const c = Math.max(0, Math.min(255, Math.round(v)));
  return (c < 16 ? '0' : '') + c.toString(16);
}

/** `#rrggbb`, shortened to `#rgb` when every channel is a doubled digit. */
export function hexColour(rgb: readonly [number, number, number]): string {
  const s = hex2(rgb[0]) + hex2(rgb[1]) + hex2(rgb[2]);
  if (s[0] === s[1] && s[2] === s[3] && s[4] === s[5]) return '#' + s[0] + s[2] + s[4];
  return '#' + s;
}

/** Shortest decimal for an attribute value, at most `digits` decimals. */
function fmt(v: number, digits = 2): string {
  const s = v.toFixed(digits);
  return s.includes('.') ? s.replace(/\.?0+$/, '') || '0' : s;
}

function stops(list: { offset: number; rgb: [number, number, number] }[]): string {
  return list.map((s) => `<stop offset="${fmt(s.offset, 3)}" stop-color="${hexColour(s.rgb)}"/>`).join('');
}

/** A recognised outline as an SVG shape element (a shape made of that one outline). */
function primitiveElement(p: Primitive, paint: string): string {
  if (p.kind === 'circle') return `<circle fill="${paint}" cx="${fmt(p.cx)}" cy="${fmt(p.cy)}" r="${fmt(p.r)}"/>`;
  const deg = (p.angle * 180) / Math.PI;
  const rot = Math.abs(deg) < 0.005 ? '' : ` transform="rotate(${fmt(deg)} ${fmt(p.cx)} ${fmt(p.cy)})"`;
  if (p.kind === 'ellipse') return `<ellipse fill="${paint}" cx="${fmt(p.cx)}" cy="${fmt(p.cy)}" rx="${fmt(p.rx)}" ry="${fmt(p.ry)}"${rot}/>`;
  const corner = p.r > 0 ? ` rx="${fmt(p.r)}"` : '';
  return `<rect fill="${paint}" x="${fmt(p.cx - p.w / 2)}" y="${fmt(p.cy - p.h / 2)}" width="${fmt(p.w)}" height="${fmt(p.h)}"${corner}${rot}/>`;
}

/**
 * Writes the SVG document for `result`, painting shape `s` with `fills[s.label]`.
 * @example writeSvg(trace, fills, { width: 1024, height: 768, printWidthInches: 10 })
 */
export function writeSvg(result: TraceResult, fills: Fill[], opts: SvgOptions): SvgResult {
  const { width: w, height: h } = opts;
  let size: string;
  if (opts.printWidthInches !== undefined && opts.printWidthInches > 0) {
    const wi = opts.printWidthInches;
    const hi = w > 0 ? (wi * h) / w : 0;
    size = ` width="${fmt(wi, 4)}in" height="${fmt(hi, 4)}in"`;
  } else {
    size = ` width="${w}" height="${h}"`;
  }
  let defs = '';
  const gradientId = new Map<number, string>();
  let body = '';
  let paths = 0;
  const used = new Set<number>();
  for (const shape of result.shapes) {
    const drawn = shape.subpaths.filter((sp) => sp.segs.length > 0);
    const only = drawn.length === 1 ? drawn[0]!.primitive : undefined;
    const { d, moves } = only ? { d: '', moves: 1 } : encodePath(shape.subpaths);
    if (moves === 0) continue;
    const fill = fills[shape.label] ?? { kind: 'solid', rgb: [0, 0, 0] };
    let paint: string;
    if (fill.kind === 'solid') {
      paint = hexColour(fill.rgb);
    } else {
      let id = gradientId.get(shape.label);
      if (id === undefined) {
        id = 'g' + gradientId.size.toString(36);
        gradientId.set(shape.label, id);
        if (fill.kind === 'linear') {
          defs += `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${fmt(fill.x1)}" y1="${fmt(fill.y1)}" x2="${fmt(fill.x2)}" y2="${fmt(fill.y2)}">${stops(fill.stops)}</linearGradient>`;
        } else {
          defs += `<radialGradient id="${id}" gradientUnits="userSpaceOnUse" cx="${fmt(fill.cx)}" cy="${fmt(fill.cy)}" r="${fmt(fill.r)}">${stops(fill.stops)}</radialGradient>`;
        }
      }
      paint = `url(#${id})`;
    }
    body += only ? primitiveElement(only, paint) : `<path fill="${paint}" d="${d}"/>`;
    paths += moves;
    used.add(shape.label);
  }
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}"${size}>` +
    (defs ? `<defs>${defs}</defs>` : '') +
    body +
    '</svg>\n';
  return { svg, paths, colorsUsed: used.size };
}
