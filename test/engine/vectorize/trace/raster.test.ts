// Property tests: trace synthetic blob maps and corpus renders, rasterise the SVG with resvg and compare
// with the label map: high IoU and colour agreement, nothing painted over transparent input (stacked),
// seamless interiors, and for cutout every path alone sums to coverage 1 inside the art (no overlap, no gap;
// resvg anti-aliases with 4 sub-scanlines, so a shared edge may sum to 1 +- 0.25 on single pixels).
import { describe, expect, it } from 'vitest';
import { traceLabelMap } from '@inkprep/engine/internals';
import { writeSvg } from '@inkprep/engine/internals';
import { TRANSPARENT, type LabelMap } from '@inkprep/engine/internals';
import { corpusItems, renderCrisp, toLabelMap } from '../../../../bench/lib/label-maps.js';
import { alphaIoU, BALANCED, blobs, fillsFor, rasterise } from './helpers.js';
import { Resvg } from '@resvg/resvg-js';

/** 1 where the pixel and its 8 neighbours share the same label state (inside a region, away from edges). */
function interior(map: LabelMap, pred: (l: number) => boolean, margin = 1): Uint8Array {
  const { width: w, height: h, labels } = map;
  const out = new Uint8Array(w * h);
  for (let y = margin; y < h - margin; y++) {
    for (let x = margin; x < w - margin; x++) {
      let ok = true;
      for (let dy = -margin; dy <= margin && ok; dy++) for (let dx = -margin; dx <= margin && ok; dx++) ok = pred(labels[(y + dy) * w + x + dx]!);
      out[y * w + x] = ok ? 1 : 0;
    }
  }
  return out;
}

/** Interior pixels of one label (same label in the 3x3 neighbourhood). */
function sameLabelInterior(map: LabelMap): Uint8Array {
  const { width: w, height: h, labels } = map;
  const out = new Uint8Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const l = labels[y * w + x]!;
      if (l === TRANSPARENT) continue;
      let ok = true;
      for (let dy = -1; dy <= 1 && ok; dy++) for (let dx = -1; dx <= 1 && ok; dx++) ok = labels[(y + dy) * w + x + dx] === l;
      out[y * w + x] = ok ? 1 : 0;
    }
  }
  return out;
}

// minIoU: thin script lettering at 400 px is mostly edge pixels, so its alpha IoU is naturally lower
const cases: { name: string; map: () => LabelMap; minIoU: number }[] = [
  { name: 'blobs 3 colours', map: () => blobs(7, 160, 120, 3, 14), minIoU: 0.97 },
  { name: 'blobs 6 colours', map: () => blobs(21, 160, 160, 6, 30), minIoU: 0.97 },
  { name: 'corpus fox (5 colours)', map: () => toLabelMap(renderCrisp('tw-1f98a-fox.svg', 256)), minIoU: 0.97 },
  { name: 'corpus lettering', map: () => toLabelMap(renderCrisp('lettering-good-vibes.svg', 400)), minIoU: 0.94 },
];

describe('stacked tracing rasterises back to the label map', () => {
  for (const c of cases) {
    it(c.name, () => {
      const map = c.map();
      const res = traceLabelMap(map, BALANCED);
      const { svg } = writeSvg(res, fillsFor(map), { width: map.width, height: map.height });
      expect(svg).not.toMatch(/NaN|Infinity/);
      const px = rasterise(svg, map.width);
      expect(alphaIoU(map, px)).toBeGreaterThan(c.minIoU);
      // nothing painted over transparent pixels away from the art's edge (no background box)
      const clear = interior(map, (l) => l === TRANSPARENT);
      let painted = 0;
      for (let i = 0; i < clear.length; i++) if (clear[i] && px[i * 4 + 3]! > 8) painted++;
      expect(painted).toBe(0);
      // seamless: every pixel inside the art is fully opaque, and interior pixels have their own colour
      const solid = interior(map, (l) => l !== TRANSPARENT);
      const own = sameLabelInterior(map);
      let holes = 0;
      let wrong = 0;
      let total = 0;
      for (let i = 0; i < solid.length; i++) {
        if (solid[i] && px[i * 4 + 3]! < 250) holes++;
        if (!own[i]) continue;
        total++;
        const l = map.labels[i]!;
        const d = Math.abs(px[i * 4]! - map.palette[l * 3]!) + Math.abs(px[i * 4 + 1]! - map.palette[l * 3 + 1]!) + Math.abs(px[i * 4 + 2]! - map.palette[l * 3 + 2]!);
        if (d > 12) wrong++;
      }
      expect(holes).toBe(0);
      expect(wrong / total).toBeLessThan(0.01);
    });
  }
});

describe('cutout tracing', () => {
  for (const c of cases.slice(0, 3)) {
    it(`${c.name}: every path alone sums to coverage 1 inside the art`, () => {
      const map = c.map();
      const res = traceLabelMap(map, { ...BALANCED, shapeStyle: 'cutout' });
      const { width: w, height: h } = map;
      const sum = new Float64Array(w * h);
      for (const shape of res.shapes) {
        const one = writeSvg({ shapes: [shape] }, fillsFor(map), { width: w, height: h }).svg;
        expect(one).not.toMatch(/NaN|Infinity/);
        const img = new Resvg(one, { fitTo: { mode: 'width', value: w } }).render().pixels;
        for (let i = 0; i < w * h; i++) sum[i]! += img[i * 4 + 3]! / 255;
      }
      const solid = interior(map, (l) => l !== TRANSPARENT);
      let over = 0;
      let gap = 0;
      let total = 0;
      let err = 0;
      for (let i = 0; i < w * h; i++) {
        if (sum[i]! > 1.3) over++;
        if (!solid[i]) continue;
        total++;
        err += Math.abs(sum[i]! - 1);
        if (sum[i]! < 0.7) gap++;
      }
      expect(over).toBe(0);
      expect(gap).toBe(0);
      expect(err / total).toBeLessThan(0.005);
      // and the whole still matches the label map
      const px = rasterise(writeSvg(res, fillsFor(map), { width: w, height: h }).svg, w);
      expect(alphaIoU(map, px)).toBeGreaterThan(c.minIoU);
    });
  }

  it('shares each boundary: neighbours use the identical curve reversed', () => {
    const map = blobs(3, 96, 96, 3, 10);
    const res = traceLabelMap(map, { ...BALANCED, shapeStyle: 'cutout' });
    // collect every segment end point per shape; a shared boundary point must occur in two shapes
    const key = (x: number, y: number) => `${x.toFixed(6)},${y.toFixed(6)}`;
    const owners = new Map<string, Set<number>>();
    res.shapes.forEach((s, si) => {
      for (const sp of s.subpaths) for (const seg of sp.segs) {
        const k = key(seg.x, seg.y);
        if (!owners.has(k)) owners.set(k, new Set());
        owners.get(k)!.add(si);
      }
    });
    const shared = [...owners.values()].filter((s) => s.size >= 2).length;
    expect(shared).toBeGreaterThan(20);
  });
});

describe('corpus smoke', () => {
  it('traces two more corpus items at 256 px without error, in both styles', () => {
    const items = corpusItems().filter((i) => ['si-starbucks', 'flag-br'].includes(i.id));
    expect(items).toHaveLength(2);
    for (const it of items) {
      const map = toLabelMap(renderCrisp(it.file, 256));
      for (const shapeStyle of ['stacked', 'cutout'] as const) {
        const res = traceLabelMap(map, { ...BALANCED, shapeStyle });
        const px = rasterise(writeSvg(res, fillsFor(map), { width: map.width, height: map.height }).svg, map.width);
        expect(alphaIoU(map, px)).toBeGreaterThan(0.95);
      }
    }
  });
});
