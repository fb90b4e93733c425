// scan -> apply its suggestions via fix -> scan, as a client of POST /scan and POST /fix would: over the
// whole open corpus and made-up customer uploads (glow + shadow, white-outline fringe, 60 stray specks of
// 1-6 px, low resolution), the fixed file has no error-level issue and none of the defects the fix was
// asked to repair; plus what each repair must achieve on film (dots, edge colour, specks, trim box).
import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, type ScanReport } from '@inkprep/engine';
import { encodePng, minDotSidePx } from '@inkprep/engine/internals';
import { corpusDir } from '../../../golden/lib/corpus.js';
import { corpusArt, glowAndShadow, strayspecks, whiteOutline, type RGB } from '../../../golden/lib/customer-art.js';
import { decodeToRaster } from '../../../golden/lib/metrics.js';
import { dotStats, edgeColour, roundTrip } from '../../../golden/lib/print-checks.js';

const engine = createEngine({ threads: 0 });
afterAll(() => engine.close());

const codes = (s: ScanReport): string[] => s.issues.map((i) => i.code);
const errors = (s: ScanReport): string[] => s.issues.filter((i) => i.severity === 'error').map((i) => i.code);
/** Issues the suggested fields repair; none may be left after the fix. */
const REPAIRED = ['specks', 'edge_fringe', 'soft_edges', 'semi_transparent_areas', 'transparent_margin', 'jagged_edges'];

// One test per artwork (the sweep is the same): the whole corpus in one test took ~20 s in a suite run and
// several minutes on a busy 2-core machine, where one artwork takes a few seconds at most.
describe('round trip over the open corpus: every artwork (600 px + margins, 250 DPI) ends with no error and nothing left to repair', () => {
  const files = readdirSync(corpusDir() ?? 'corpus/open').filter((f) => f.endsWith('.svg'));
  it('the corpus has its artworks', () => {
    expect(files.length).toBeGreaterThanOrEqual(40);
  });
  for (const f of files) {
    it(f, async () => {
      const t = await roundTrip(engine, await encodePng(await corpusArt(f, 600, 60)), 2.88);
      expect([...errors(t.after), ...codes(t.after).filter((c) => REPAIRED.includes(c))], f).toEqual([]);
    });
  }
});

describe('round trip on customer uploads', () => {
  it('glow + shadow: halftoned at print resolution, the re-scan is clean (no specks, jagged edges or thin lines from the dots)', async () => {
    const art = await glowAndShadow('noto-1f981-lion.svg', 1200);
    const t = await roundTrip(engine, await encodePng(art), 4); // 300 DPI
    expect(t.before.transparencyFix.recommended).toBe('halftone');
    // a glow is design, not a fringe: the report does not say "fringe" with no colour
    expect(t.before.alpha.hasFringe).toBe(false);
    expect(codes(t.before)).not.toContain('edge_fringe');
    expect(t.fields).toMatchObject({ fix_halftone: 'true', print_width_inches: '4' });
    expect(errors(t.after)).toEqual([]);
    expect(codes(t.after).filter((c) => REPAIRED.includes(c) || c === 'thin_lines')).toEqual([]);
    expect(t.after.speckCount).toBe(0);
    const out = await decodeToRaster(t.png);
    const s = dotStats(out, minDotSidePx(300), 60);
    expect(s.dots).toBeGreaterThan(500);
    expect(s.onePx + s.twoPx + s.belowMin).toBe(0);
  });

  it('the same glow halftoned at 25 lpi re-scans without specks, jagged edges or thin lines', async () => {
    const art = await glowAndShadow('noto-1f981-lion.svg', 1200);
    const fixed = await engine.fix(await encodePng(art), { fix_halftone: true, halftone_lpi: 25, print_width_inches: 4 });
    const s = await engine.scan(fixed.data, { print_width_inches: 4 });
    expect(s.speckCount).toBe(0);
    expect(codes(s)).not.toContain('specks');
    expect(codes(s)).not.toContain('jagged_edges');
    expect(codes(s)).not.toContain('thin_lines');
    expect(s.thinLinePercent).toBeLessThan(1);
  });

  it('white-outline fringe: the cut edge is within ΔE 10 of the art colour and the re-scan has no fringe', async () => {
    const red: RGB = [200, 30, 40];
    const art = await whiteOutline('si-docker.svg', 1200, red);
    const t = await roundTrip(engine, await encodePng(art), 4);
    expect(t.before.alpha.hasFringe).toBe(true);
    expect(t.before.alpha.fringeColor).toBe('#ffffff');
    expect(t.fields).toMatchObject({ fix_alpha_threshold: 'true' });
    const e = edgeColour(await decodeToRaster(t.png), red);
    expect(e.edge).toBeGreaterThan(1000);
    expect(e.semi).toBe(0);
    expect(e.offDeltaE10).toBeLessThan(0.005);
    expect(t.after.alpha.hasFringe).toBe(false);
    expect(errors(t.after)).toEqual([]);
    expect(codes(t.after).filter((c) => REPAIRED.includes(c))).toEqual([]);
  });

  it('60 stray specks of 1-6 px: scan counts all 60, fix removes them, trim keeps the art box, the re-scan reads 0', async () => {
    const sp = await strayspecks('gi-barn-owl.svg', 1800, 1200, 60, 30);
    const t = await roundTrip(engine, await encodePng(sp.raster), 6); // 300 DPI: 6 px = 0.5 mm
    expect(t.before.speckCount).toBe(60);
    expect(t.fields).toMatchObject({ fix_despeckle: 'true', fix_trim: 'true' });
    expect([t.width, t.height]).toEqual([sp.artBox.width, sp.artBox.height]);
    expect(t.after.speckCount).toBe(0);
    expect(errors(t.after)).toEqual([]);
    expect(codes(t.after).filter((c) => REPAIRED.includes(c))).toEqual([]);
  });

  // 75 DPI is what matters, not the pixel count: 450 px at 6 in resamples to ~1800 px (900 px at 12 in was
  // ~3600 px, four times the work of the halftone and the re-scan for the same proof).
  it('low resolution (450 px at 6 in = 75 DPI): the suggestions resample to 300 DPI before the halftone', async () => {
    const art = await glowAndShadow('noto-1f981-lion.svg', 450);
    const t = await roundTrip(engine, await encodePng(art), 6);
    expect(errors(t.before)).toEqual(['low_resolution']);
    expect(Number(t.fields.resize_width_px)).toBeGreaterThan(1000);
    // the trimmed art keeps its printed size: its width at 75 DPI (trim drops glow too faint to carry ink)
    expect(t.printWidthAfter).toBeLessThanOrEqual(t.before.contentBox!.width / 75);
    expect(t.printWidthAfter).toBeGreaterThan((0.9 * t.before.contentBox!.width) / 75);
    expect(t.after.dpi).toBeGreaterThanOrEqual(299);
    expect(errors(t.after)).toEqual([]);
    expect(codes(t.after).filter((c) => REPAIRED.includes(c))).toEqual([]);
  });
});
