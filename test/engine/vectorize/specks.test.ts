import { describe, expect, it } from 'vitest';
import { mergeSpecks, mergeSpecksRuns } from '../../../engine/src/vectorize/clean/specks.js';
import { labelRuns } from '../../../engine/src/vectorize/trace/runs.js';
import { TRANSPARENT, type LabelMap } from '@inkprep/engine/internals';

/** Label map from ASCII art: '.' transparent, digits are labels. */
function fromAscii(rows: string[]): LabelMap {
  const h = rows.length, w = rows[0]!.length;
  const labels = new Uint16Array(w * h);
  rows.forEach((r, y) => [...r].forEach((c, x) => { labels[y * w + x] = c === '.' ? TRANSPARENT : Number(c); }));
  return { width: w, height: h, labels, palette: new Uint8Array(30) };
}
/**
 * Index of the first element where two typed arrays differ (-1 when equal, the shorter length when only the
 * lengths differ). toEqual walks a 65,536-entry count table element by element (~1 s a call under load).
 */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
function toAscii(m: LabelMap): string[] {
  const out: string[] = [];
  for (let y = 0; y < m.height; y++) {
    let s = '';
    for (let x = 0; x < m.width; x++) { const l = m.labels[y * m.width + x]!; s += l === TRANSPARENT ? '.' : String(l); }
    out.push(s);
  }
  return out;
}

describe('mergeSpecks', () => {
  const base = [
    '0000000000',
    '0000000000',
    '0011000000',
    '0011000200',
    '0000000000',
    '0000033333',
    '0000033333',
    '0000033333',
  ];

  it('merges specks smaller than speck_size into the surrounding colour, leaving no hole', () => {
    const m = fromAscii(base);
    expect(mergeSpecks(m, 4)).toBe(2);
    expect(toAscii(m)).toEqual([
      '0000000000',
      '0000000000',
      '0000000000',
      '0000000000',
      '0000000000',
      '0000033333',
      '0000033333',
      '0000033333',
    ]);
    expect(m.labels.includes(TRANSPARENT)).toBe(false);
  });

  it('keeps components as large as speck_size, and everything at 0', () => {
    const a = fromAscii(base);
    mergeSpecks(a, 2);
    expect(toAscii(a)[2]).toBe('0011000000');
    expect(toAscii(a)[3]).toBe('0011000000');
    const b = fromAscii(base);
    expect(mergeSpecks(b, 0)).toBe(0);
    expect(toAscii(b)).toEqual(base);
  });

  it('keeps long thin lines (measured across, not by area)', () => {
    const m = fromAscii(['0000000000', '1111111111', '0000000000']);
    mergeSpecks(m, 4);
    expect(toAscii(m)[1]).toBe('1111111111');
  });

  it('drops a speck floating on transparency and never fills transparent pinholes', () => {
    const m = fromAscii([
      '..........',
      '.1........',
      '..........',
      '..000000..',
      '..00.000..',
      '..000000..',
    ]);
    mergeSpecks(m, 4);
    expect(toAscii(m)).toEqual([
      '..........',
      '..........',
      '..........',
      '..000000..',
      '..00.000..',
      '..000000..',
    ]);
  });

  it('resolves a cluster of specks into their surroundings', () => {
    const m = fromAscii([
      '00000000',
      '00122000',
      '00133000',
      '00000000',
    ]);
    mergeSpecks(m, 4);
    expect(toAscii(m)).toEqual(['00000000', '00000000', '00000000', '00000000']);
  });
  it('hands on the label runs of the merged map, as a fresh scan finds them', () => {
    // random blotches: many specks, some merged into neighbours, some on transparency, runs that join up
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
    for (let t = 0; t < 20; t++) {
      const w = 23, h = 17;
      const labels = new Uint16Array(w * h);
      for (let i = 0; i < w * h; i++) labels[i] = i > 0 && rnd() < 0.6 ? labels[i - 1]! : rnd() < 0.15 ? TRANSPARENT : Math.floor(rnd() * 4);
      const m: LabelMap = { width: w, height: h, labels, palette: new Uint8Array(30) };
      const { merged, runs } = mergeSpecksRuns(m, 3 + (t % 3));
      expect(merged).toBeGreaterThan(0);
      const fresh = labelRuns(m);
      expect(runs.rowStart).toEqual(fresh.rowStart);
      expect(runs.x0).toEqual(fresh.x0);
      expect(runs.label).toEqual(fresh.label);
      expect(firstDifference(runs.count, fresh.count), `count table (${runs.count.length} vs ${fresh.count.length} entries)`).toBe(-1);
    }
  });
});
