// Label maps from the open corpus for the trace bench and tests: render an SVG with resvg without
// anti-aliasing (shape-rendering crispEdges) at a given long side, then threshold exactly: alpha < 128 is
// transparent, every remaining RGB value is a label (the `maxColors` most frequent; rarer colours, from
// gradients, go to the nearest kept one).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { TRANSPARENT, type LabelMap } from '@inkprep/engine/internals';
import { corpusDir } from '../../golden/lib/corpus.js';

/** The open corpus (committed under corpus/open). */
export const CORPUS_DIR = corpusDir() ?? path.resolve('corpus/open');

export interface CorpusItem {
  id: string;
  file: string;
  category: string;
}

export function corpusItems(): CorpusItem[] {
  const manifest = JSON.parse(readFileSync(path.join(CORPUS_DIR, 'manifest.json'), 'utf8')) as { items: CorpusItem[] };
  return manifest.items;
}

/** Renders an SVG file crisply (no anti-aliasing) with the long side at `size` px: RGBA bytes. */
export function renderCrisp(file: string, size: number): { width: number; height: number; data: Uint8Array } {
  const svg = readFileSync(path.join(CORPUS_DIR, file), 'utf8');
  const probe = new Resvg(svg, { font: { loadSystemFonts: false } });
  const fit = probe.width >= probe.height ? ({ mode: 'width', value: size } as const) : ({ mode: 'height', value: size } as const);
  const img = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: fit, shapeRendering: 0 }).render();
  return { width: img.width, height: img.height, data: new Uint8Array(img.pixels) };
}

/** Thresholds RGBA pixels to a label map with at most `maxColors` labels. */
export function toLabelMap(r: { width: number; height: number; data: Uint8Array }, maxColors = 20): LabelMap {
  const n = r.width * r.height;
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    if (r.data[i * 4 + 3]! < 128) continue;
    const key = (r.data[i * 4]! << 16) | (r.data[i * 4 + 1]! << 8) | r.data[i * 4 + 2]!;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const kept = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, maxColors).map((e) => e[0]);
  const index = new Map<number, number>();
  kept.forEach((k, i) => index.set(k, i));
  const palette = new Uint8Array(kept.length * 3);
  kept.forEach((k, i) => {
    palette[i * 3] = (k >> 16) & 255;
    palette[i * 3 + 1] = (k >> 8) & 255;
    palette[i * 3 + 2] = k & 255;
  });
  const labels = new Uint16Array(n).fill(TRANSPARENT);
  for (let i = 0; i < n; i++) {
    if (r.data[i * 4 + 3]! < 128) continue;
    const key = (r.data[i * 4]! << 16) | (r.data[i * 4 + 1]! << 8) | r.data[i * 4 + 2]!;
    let l = index.get(key);
    if (l === undefined) {
      let best = 0;
      let bd = Infinity;
      for (let j = 0; j < kept.length; j++) {
        const dr = palette[j * 3]! - r.data[i * 4]!;
        const dg = palette[j * 3 + 1]! - r.data[i * 4 + 1]!;
        const db = palette[j * 3 + 2]! - r.data[i * 4 + 2]!;
        const d = dr * dr + dg * dg + db * db;
        if (d < bd) {
          bd = d;
          best = j;
        }
      }
      l = best;
      index.set(key, l);
    }
    labels[i] = l;
  }
  return { width: r.width, height: r.height, labels, palette };
}

/** RGBA raster of a label map (transparent where TRANSPARENT), e.g. as VTracer's input. */
export function labelMapToRgba(map: LabelMap): Uint8Array {
  const out = new Uint8Array(map.width * map.height * 4);
  for (let i = 0; i < map.labels.length; i++) {
    const l = map.labels[i]!;
    if (l === TRANSPARENT) continue;
    out[i * 4] = map.palette[l * 3]!;
    out[i * 4 + 1] = map.palette[l * 3 + 1]!;
    out[i * 4 + 2] = map.palette[l * 3 + 2]!;
    out[i * 4 + 3] = 255;
  }
  return out;
}
