// Issue 30: equal specks get equal verdicts. Whether a speck is isolated (no other ink within 2 mm, 24 px at
// 300 DPI) depends only on the speck and where other ink sits relative to it, never on where the pair sits in
// the image: the same ASCII-art pattern drawn at every offset of a 6x6 grid gives the same speck_count in scan
// and the same specks_removed in fix (on transparency, and on an opaque white background).
import { describe, expect, it } from 'vitest';
import { createEngine, type Raster } from '@inkprep/engine';
import { png } from './fixtures.js';

const engine = createEngine({ threads: 0 });
// 300 px wide printed 1 in wide: exactly 300 DPI, so 2 mm = 23.6 -> 24 px and 0.5 mm = 6 px.
const W = 300;
const H = 120;
const PRINT = { print_width_inches: 1 };

/** Draw ASCII art (`#` ink, anything else nothing) at (ox, oy) on a transparent or white canvas. */
function draw(rows: readonly string[], ox: number, oy: number, background: 'transparent' | 'white'): Raster {
  const data = new Uint8ClampedArray(W * H * 4);
  if (background === 'white') data.fill(255);
  rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) if (row[x] === '#') data.set([0, 0, 0, 255], ((oy + y) * W + ox + x) * 4);
  });
  return { width: W, height: H, data };
}

const gap = (n: number): string => '.'.repeat(n);

/** Two 1 px specks dx right and dy down of each other, as ASCII rows. */
function pair(dx: number, dy: number): string[] {
  const rows = Array.from({ length: dy + 1 }, () => gap(dx + 1));
  rows[0] = '#' + gap(dx);
  rows[dy] = rows[dy]!.slice(0, dx) + '#';
  return rows;
}

/** An 8x8 blob (over 0.5 mm: a detail, never a speck) and a 1 px speck dx columns right of its edge. */
function blobAndSpeck(dx: number): string[] {
  return Array.from({ length: 8 }, (_, y) => '########' + (y === 4 ? gap(dx - 1) + '#' : ''));
}

interface Case {
  name: string;
  rows: string[];
  specks: number;
}

const CASES: readonly Case[] = [
  // the report: identical specks 26 px apart were kept or removed depending on where they sat
  { name: 'two 1 px specks 26 px apart on a row', rows: ['#' + gap(25) + '#'], specks: 2 },
  { name: 'two 1 px specks 25 px apart on a row (just beyond 24 px)', rows: ['#' + gap(24) + '#'], specks: 2 },
  { name: 'two 1 px specks 24 px apart on a row (within 2 mm)', rows: ['#' + gap(23) + '#'], specks: 0 },
  { name: 'two 1 px specks 25 px apart in a column', rows: ['#', ...Array.from({ length: 24 }, () => '.'), '#'], specks: 2 },
  // Euclidean: 17,17 is 24.04 px away (beyond), 16,17 is 23.35 px (within)
  { name: 'two 1 px specks 17,17 px apart (24.04 px)', rows: pair(17, 17), specks: 2 },
  { name: 'two 1 px specks 16,17 px apart (23.35 px)', rows: pair(16, 17), specks: 0 },
  { name: 'two 2x2 specks 30 px apart', rows: ['##' + gap(28) + '##', '##' + gap(28) + '##'], specks: 2 },
  { name: 'a 1 px speck 25 px right of an 8x8 blob', rows: blobAndSpeck(25), specks: 1 },
  { name: 'a 1 px speck 24 px right of an 8x8 blob', rows: blobAndSpeck(24), specks: 0 },
];

const OFFSETS = Array.from({ length: 36 }, (_, i) => [20 + (i % 6), 20 + Math.floor(i / 6)] as const);

describe.each(['transparent', 'white'] as const)('speck verdicts on %s do not depend on position', (background) => {
  it.each(CASES)('$name: the same count at 36 offsets, in scan and in fix', async ({ rows, specks }) => {
    const scanCounts: number[] = [];
    const removed: number[] = [];
    for (const [ox, oy] of OFFSETS) {
      const bytes = await png(draw(rows, ox, oy, background));
      const report = await engine.scan(bytes.slice(), PRINT);
      scanCounts.push(report.speckCount);
      const fixed = await engine.fix(bytes.slice(), { ...PRINT, fix_despeckle: true });
      removed.push(fixed.stats.specksRemoved ?? -1);
    }
    expect(scanCounts).toEqual(OFFSETS.map(() => specks));
    expect(removed).toEqual(OFFSETS.map(() => specks));
  });
});
