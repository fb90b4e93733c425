// The run-length rows shared by the stacked trace stages, and what orderLayers derives from them (pixel
// counts, the traced-boundary totals, the rank grid), each checked against a plain per-pixel computation on
// random maps: flat blobs, speckle, transparency, one-pixel-wide and one-row maps, and palettes large enough
// for the spectral ordering (> 40 colours).
import { describe, expect, it } from 'vitest';
import { labelRuns } from '../../../../engine/src/vectorize/trace/runs.js';
import { orderLayers } from '../../../../engine/src/vectorize/trace/order.js';
import { TRANSPARENT, type LabelMap } from '@inkprep/engine/internals';

function randomMap(seed: number, w: number, h: number, colours: number, speckle: number): LabelMap {
  let s = seed >>> 0;
  const rnd = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const labels = new Uint16Array(w * h);
  const scale = 2 + rnd() * 6;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = Math.floor(Math.sin(x / scale + seed) * 4 + Math.cos((y / scale) * 1.3 + seed) * 4 + 8);
      const r = rnd();
      labels[y * w + x] = r < speckle / 3 || v % 5 === 0 ? TRANSPARENT : r < speckle ? Math.floor(rnd() * colours) : (v * 7) % colours;
    }
  }
  return { width: w, height: h, labels, palette: new Uint8Array(colours * 3) };
}

/** The same map with its labels at a 2-byte (not 4-byte) offset in their buffer: the 16-bit-only scan. */
function unaligned(map: LabelMap): LabelMap {
  const labels = new Uint16Array(new ArrayBuffer(map.labels.length * 2 + 2), 2, map.labels.length);
  labels.set(map.labels);
  return { ...map, labels };
}

const maps: [string, LabelMap][] = [
  ['flat blobs', randomMap(1, 61, 47, 6, 0)],
  ['speckled', randomMap(2, 40, 33, 9, 0.3)],
  ['one column', randomMap(3, 1, 50, 4, 0.2)],
  ['one row', randomMap(4, 50, 1, 4, 0.2)],
  ['many colours (spectral order)', randomMap(5, 80, 70, 120, 0.5)],
  ['long runs, odd width, unaligned buffer', unaligned(randomMap(6, 203, 9, 3, 0.01))],
  ['long runs, even width', randomMap(7, 204, 9, 3, 0.01)],
  ['all transparent', { width: 5, height: 4, labels: new Uint16Array(20).fill(TRANSPARENT), palette: new Uint8Array(0) }],
];

describe('labelRuns', () => {
  for (const [name, map] of maps) {
    it(`${name}: maximal runs that rebuild the map, and the pixel count per label`, () => {
      const { width: w, height: h, labels } = map;
      const runs = labelRuns(map);
      const count = new Map<number, number>();
      for (const l of labels) count.set(l, (count.get(l) ?? 0) + 1);
      const rebuilt = new Uint16Array(w * h);
      for (let y = 0; y < h; y++) {
        const a = runs.rowStart[y]!;
        const b = runs.rowStart[y + 1]!;
        expect(b).toBeGreaterThan(a);
        expect(runs.x0[a]).toBe(0);
        for (let i = a; i < b; i++) {
          const end = i + 1 < b ? runs.x0[i + 1]! : w;
          expect(end).toBeGreaterThan(runs.x0[i]!);
          if (i > a) expect(runs.label[i]).not.toBe(runs.label[i - 1]);
          rebuilt.fill(runs.label[i]!, y * w + runs.x0[i]!, y * w + end);
        }
      }
      expect(rebuilt).toEqual(labels);
      for (const [l, c] of count) expect(runs.count[l]).toBe(c);
      expect(runs.count.reduce((s, c) => s + c, 0)).toBe(w * h);
    });
  }
});

describe('orderLayers (from runs)', () => {
  for (const [name, map] of maps) {
    it(`${name}: rank grid, counts and boundary totals match a per-pixel scan`, () => {
      const { width: w, height: h, labels } = map;
      const o = orderLayers(map);
      const rankOf = new Map<number, number>(o.labels.map((l, r) => [l, r]));
      const at = (x: number, y: number): number => {
        if (x < 0 || y < 0 || x >= w || y >= h) return -1;
        const l = labels[y * w + x]!;
        return l === TRANSPARENT ? -1 : rankOf.get(l)!;
      };
      const pw = w + 2;
      let boundary = 0;
      let stacked = 0;
      const counts = new Int32Array(o.labels.length);
      for (let y = -1; y <= h; y++) {
        for (let x = -1; x <= w; x++) {
          expect(o.rank[(y + 1) * pw + x + 1]).toBe(at(x, y));
          if (x >= 0 && y >= 0 && x < w && y < h && at(x, y) >= 0) counts[at(x, y)]!++;
          // each pixel's right and lower edge (the border row and column included)
          for (const [nx, ny] of [[x + 1, y], [x, y + 1]] as const) {
            if (nx > w || ny > h) continue;
            const a = at(x, y);
            const b = at(nx, ny);
            if (a !== b) {
              boundary++;
              stacked += Math.abs(a - b);
            }
          }
        }
      }
      expect(o.counts).toEqual(counts);
      expect([...o.counts].every((c, r) => r === 0 || c > 0)).toBe(true);
      if (o.labels.length > 1) {
        expect(o.boundary).toBe(boundary);
        expect(o.stackedCost).toBe(stacked);
      }
    });
  }
});
