// Shared helpers for the trace/svg tests: ASCII-art label maps, synthetic blob maps, rasterising SVGs
// with resvg, path-data parsing and signed areas.
import { Resvg } from '@resvg/resvg-js';
import { TRANSPARENT, type Fill, type LabelMap, type PathSegments, type TraceParams } from '@inkprep/engine/internals';
import { rng } from '../../random.js';

export const BALANCED: TraceParams = { alphaMax: 1, optTolerance: 0.2, turdSize: 0, shapeStyle: 'stacked', smooth: true };

/** '.' or ' ' = transparent; any other character is a label (in order of first appearance). */
export function ascii(rows: string[], scale = 1): LabelMap {
  const h = rows.length * scale;
  const w = Math.max(...rows.map((r) => r.length)) * scale;
  const labels = new Uint16Array(w * h).fill(TRANSPARENT);
  const chars: string[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const c = rows[Math.floor(y / scale)]![Math.floor(x / scale)] ?? '.';
      if (c === '.' || c === ' ') continue;
      let l = chars.indexOf(c);
      if (l < 0) {
        chars.push(c);
        l = chars.length - 1;
      }
      labels[y * w + x] = l;
    }
  }
  return { width: w, height: h, labels, palette: paletteFor(chars.length) };
}

const COLOURS: [number, number, number][] = [
  [20, 20, 20], [230, 40, 40], [40, 90, 220], [250, 200, 30], [40, 170, 80], [240, 240, 240], [150, 60, 170], [255, 140, 0],
];

export function paletteFor(n: number): Uint8Array {
  const p = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) p.set(COLOURS[i % COLOURS.length]!, i * 3);
  return p;
}

export function fillsFor(map: LabelMap): Fill[] {
  const fills: Fill[] = [];
  for (let i = 0; i < map.palette.length / 3; i++) fills.push({ kind: 'solid', rgb: [map.palette[i * 3]!, map.palette[i * 3 + 1]!, map.palette[i * 3 + 2]!] });
  return fills;
}

/** Mask of a circle / ring drawn into a label map. */
export function disc(map: LabelMap, cx: number, cy: number, r: number, label: number, inner = 0): void {
  for (let y = 0; y < map.height; y++) {
    for (let x = 0; x < map.width; x++) {
      const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
      if (d <= r && d > inner) map.labels[y * map.width + x] = label;
    }
  }
}

export function blank(w: number, h: number, colours: number): LabelMap {
  return { width: w, height: h, labels: new Uint16Array(w * h).fill(TRANSPARENT), palette: paletteFor(colours) };
}


/** Random overlapping discs, rings and rectangles in `colours` colours on a transparent field. */
export function blobs(seed: number, w: number, h: number, colours: number, count: number): LabelMap {
  const r = rng(seed);
  const map = blank(w, h, colours);
  for (let i = 0; i < count; i++) {
    const label = Math.floor(r() * colours);
    const kind = r();
    const cx = r() * w;
    const cy = r() * h;
    const rad = 4 + r() * Math.min(w, h) * 0.25;
    if (kind < 0.5) disc(map, cx, cy, rad, label, kind < 0.2 ? rad * 0.5 : 0);
    else {
      const x0 = Math.floor(cx - rad), x1 = Math.floor(cx + rad * r());
      const y0 = Math.floor(cy - rad * r()), y1 = Math.floor(cy + rad);
      for (let y = Math.max(0, y0); y < Math.min(h, y1); y++) for (let x = Math.max(0, x0); x < Math.min(w, x1); x++) map.labels[y * w + x] = label;
    }
  }
  return map;
}

/** Renders an SVG at its own pixel size (width attribute = source px): straight-alpha RGBA. */
export function rasterise(svg: string, width: number): Uint8Array {
  const img = new Resvg(svg, { fitTo: { mode: 'width', value: width } }).render();
  const px = new Uint8Array(img.pixels);
  // resvg returns premultiplied RGBA: unpremultiply for colour checks
  for (let i = 0; i < px.length; i += 4) {
    const a = px[i + 3]!;
    if (a > 0 && a < 255) {
      px[i] = Math.min(255, Math.round((px[i]! * 255) / a));
      px[i + 1] = Math.min(255, Math.round((px[i + 1]! * 255) / a));
      px[i + 2] = Math.min(255, Math.round((px[i + 2]! * 255) / a));
    }
  }
  return px;
}

/** IoU of (label map opaque) vs (rendered alpha >= 128). */
export function alphaIoU(map: LabelMap, px: Uint8Array): number {
  let inter = 0;
  let uni = 0;
  for (let i = 0; i < map.labels.length; i++) {
    const a = map.labels[i] !== TRANSPARENT;
    const b = px[i * 4 + 3]! >= 128;
    if (a && b) inter++;
    if (a || b) uni++;
  }
  return uni ? inter / uni : 1;
}

/** Flattens a subpath to a polygon (Béziers sampled) for area / orientation checks. */
export function flatten(p: PathSegments, samples = 16): { x: number[]; y: number[] } {
  const x = [p.start[0]];
  const y = [p.start[1]];
  let cx = p.start[0];
  let cy = p.start[1];
  for (const s of p.segs) {
    if (s.kind === 'L') {
      x.push(s.x);
      y.push(s.y);
    } else {
      for (let i = 1; i <= samples; i++) {
        const t = i / samples;
        const u = 1 - t;
        x.push(u * u * u * cx + 3 * u * u * t * s.x1 + 3 * u * t * t * s.x2 + t * t * t * s.x);
        y.push(u * u * u * cy + 3 * u * u * t * s.y1 + 3 * u * t * t * s.y2 + t * t * t * s.y);
      }
    }
    cx = s.x;
    cy = s.y;
  }
  return { x, y };
}

export function signedArea(p: PathSegments): number {
  const { x, y } = flatten(p);
  let a = 0;
  for (let i = 0, j = x.length - 1; i < x.length; j = i++) a += x[j]! * y[i]! - x[i]! * y[j]!;
  return a / 2;
}

/** Absolute points of path data (every command's end point), parsed from M/m/L/l/H/h/V/v/C/c/Z/z. */
export function parsePathData(d: string): { cmds: string[]; points: [number, number][]; moves: number } {
  const tokens = d.match(/[MmLlHhVvCcZz]|-?(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?/g) ?? [];
  const points: [number, number][] = [];
  const cmds: string[] = [];
  let i = 0;
  let cmd = '';
  let x = 0;
  let y = 0;
  let sx = 0;
  let sy = 0;
  let moves = 0;
  const num = (): number => Number(tokens[i++]);
  while (i < tokens.length) {
    const t = tokens[i]!;
    if (/[A-Za-z]/.test(t)) {
      cmd = t;
      i++;
      cmds.push(cmd);
      if (cmd === 'z' || cmd === 'Z') {
        x = sx;
        y = sy;
        continue;
      }
    } else if (cmd === 'M') cmd = 'L';
    else if (cmd === 'm') cmd = 'l';
    switch (cmd) {
      case 'M': x = num(); y = num(); sx = x; sy = y; moves++; break;
      case 'm': x += num(); y += num(); sx = x; sy = y; moves++; break;
      case 'L': x = num(); y = num(); break;
      case 'l': x += num(); y += num(); break;
      case 'H': x = num(); break;
      case 'h': x += num(); break;
      case 'V': y = num(); break;
      case 'v': y += num(); break;
      case 'C': num(); num(); num(); num(); x = num(); y = num(); break;
      case 'c': { num(); num(); num(); num(); const dx = num(); const dy = num(); x += dx; y += dy; break; }
      default: throw new Error('unexpected token ' + t);
    }
    points.push([x, y]);
  }
  return { cmds, points, moves };
}

/** Deterministic PRNG (mulberry32), shared with the other engine tests. */
export { rng };
