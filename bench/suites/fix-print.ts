// What fix output prints like (issue 15), measured on made-up customer uploads (golden/lib/customer-art.ts):
// - halftone dot sizes on an alpha ramp at 55 lpi / 300 DPI (1-px, 2-px and sub-0.25 mm dots, roundness,
//   coverage vs the input alpha) and on every lpi 15-65 at 150-600 DPI;
// - a 900 px glow file at 12 in with 55 lpi (a 1.36 px cell), its warnings;
// - the re-scan of a 25 lpi halftone (specks, jagged, thin lines);
// - 60 stray specks of 1-6 px: speck counts, the trim box after fix_despeckle + fix_trim;
// - a white-outline fringe after fix_alpha_threshold: edge pixels off the art colour (RGB 40, ΔE 10);
// - a glow's fringe fields; the scan -> fix(suggestions) -> scan round trip over the corpus and the cases.
// Accuracy numbers only (the timing of fix is in the `scan` suite).
import { readdirSync } from 'node:fs';
import { createEngine, textOptions, type Raster } from '@inkprep/engine';
import { encodePng } from '@inkprep/engine/internals';
import type { BenchContext, Row } from '../lib/harness.js';
import { corpusDir } from '../../golden/lib/corpus.js';
import { alphaPatch, alphaRamp, corpusArt, glowAndShadow, strayspecks, whiteOutline, type RGB } from '../../golden/lib/customer-art.js';
import { decodeToRaster } from '../../golden/lib/metrics.js';
import { dotStats, edgeColour, issueList, meanAlpha, roundTrip } from '../../golden/lib/print-checks.js';

const r3 = (v: number): number => Math.round(v * 1000) / 1000;

export default async function fixPrint(ctx: BenchContext): Promise<void> {
  const engine = createEngine({ threads: 0 });
  const fix = async (r: Raster, o: Record<string, string>) => {
    const out = await engine.fix(await encodePng(r), textOptions(o)); // POST /fix form fields are text
    return { out, raster: await decodeToRaster(out.data) };
  };
  const warningsOf = (o: object): string => ((o as { warnings?: Array<{ code: string }> }).warnings ?? []).map((w) => w.code).join(',') || '-';

  // 1. dot sizes on a ramp at 55 lpi / 300 DPI (a 3000 x 110 strip = 10 in)
  const ramp = alphaRamp(3000, 110);
  const rampOut = await fix(ramp, { fix_halftone: 'true', halftone_lpi: '55', print_width_inches: '10' });
  const ds = dotStats(rampOut.raster, 3, (300 / 55) ** 2 * 0.6);
  ctx.table('halftone dots, alpha ramp 3000x110, 55 lpi at 300 DPI', [{
    dots: ds.dots, '1 px': ds.onePx, '2 px': ds.twoPx, '< 3 px (0.25 mm) wide': ds.belowMin,
    'round %': r3(ds.roundShare * 100), 'coverage %': r3(ds.coverage * 100), 'input mean alpha %': r3(meanAlpha(ramp) * 100),
    'cell px': rampOut.out.stats.halftoneCellPx ?? null, warnings: warningsOf(rampOut.out),
  }]);

  // 2. every lpi 15-65 at 150-600 DPI: errors, sub-minimum dots, roundness and coverage of uniform tones
  const grid: Row[] = [];
  const lpis = ctx.short ? [15, 35, 65] : [15, 25, 35, 45, 55, 65];
  const dpis = ctx.short ? [150, 300, 600] : [150, 200, 300, 450, 600];
  for (const dpi of dpis) {
    for (const lpi of lpis) {
      const minSide = Math.max(2, Math.ceil((0.25 * dpi) / 25.4 - 0.05));
      let worstCov = 0, below = 0, round = 1, error = '-', warnings = '-';
      for (const a of [20, 64, 128]) {
        const size = Math.round(dpi * 1.2);
        const p = alphaPatch(size, size, a);
        try {
          const r = await fix(p, { fix_halftone: 'true', halftone_lpi: String(lpi), print_width_inches: String(size / dpi) });
          const cellPx = dpi / lpi;
          const s = dotStats(r.raster, minSide, Math.max(cellPx, 4) ** 2 * 0.6);
          worstCov = Math.max(worstCov, Math.abs(s.coverage - a / 255));
          below += s.belowMin;
          round = Math.min(round, s.roundShare);
          warnings = warningsOf(r.out);
        } catch (e) {
          error = (e as Error).message.slice(0, 60);
        }
      }
      grid.push({ dpi, lpi, 'cell px': r3(dpi / lpi), error, 'dots < min': below, 'min round %': r3(round * 100), 'worst coverage error %': r3(worstCov * 100), warnings });
    }
  }
  ctx.table('halftone at every lpi and DPI (uniform alpha 20, 64, 128)', grid);

  // 3. a 900 px glow file at 12 in (75 DPI) with 55 lpi
  const small = await glowAndShadow('noto-1f981-lion.svg', 900);
  const smallOut = await fix(small, { fix_halftone: 'true', halftone_lpi: '55', print_width_inches: '12' });
  const ss = dotStats(smallOut.raster, 1, 30);
  ctx.table('900 px glow at 12 in, 55 lpi', [{ 'cell px': smallOut.out.stats.halftoneCellPx ?? null, dots: ss.dots, '1 px dots': ss.onePx, '2 px dots': ss.twoPx, warnings: warningsOf(smallOut.out) }]);

  // 4. re-scan of a 25 lpi halftone of a glow at 300 DPI
  const glow = await glowAndShadow('noto-1f981-lion.svg', ctx.short ? 1200 : 2400);
  const pw = String(glow.width / 300);
  const g25 = await fix(glow, { fix_halftone: 'true', halftone_lpi: '25', print_width_inches: pw });
  const rescan = await engine.scan(g25.out.data.slice(), textOptions({ print_width_inches: pw }));
  const gs = await engine.scan(await encodePng(glow), textOptions({ print_width_inches: pw }));
  ctx.table('glow + shadow: scan, then 25 lpi halftone re-scanned', [
    { when: 'before fix', speck_count: gs.speckCount, edge_quality: gs.edgeQuality, thin_line_percent: gs.thinLinePercent, has_fringe: gs.alpha.hasFringe, fringe_percent: gs.alpha.fringePercent, fringe_color: gs.alpha.fringeColor, recommended: gs.transparencyFix.recommended, issues: issueList(gs).join(' ') },
    { when: 'after halftone 25 lpi', speck_count: rescan.speckCount, edge_quality: rescan.edgeQuality, thin_line_percent: rescan.thinLinePercent, has_fringe: rescan.alpha.hasFringe, fringe_percent: rescan.alpha.fringePercent, fringe_color: rescan.alpha.fringeColor, recommended: rescan.transparencyFix.recommended, issues: issueList(rescan).join(' ') },
  ]);

  // 5. 60 stray specks of 1-6 px around 2400 px art on a 3600 px canvas (12 in: 300 DPI)
  const sp = await strayspecks('gi-barn-owl.svg', ctx.short ? 1800 : 3600, ctx.short ? 1200 : 2400, 60, ctx.short ? 20 : 40);
  const spw = String(ctx.short ? 6 : 12);
  const spBytes = await encodePng(sp.raster);
  const s0 = await engine.scan(spBytes.slice(), textOptions({ print_width_inches: spw }));
  const fixed = await engine.fix(spBytes.slice(), textOptions({ fix_despeckle: 'true', fix_trim: 'true', print_width_inches: spw }));
  // the fixed file keeps the art's printed size: its print width is its width at the DPI fix wrote
  const s1 = await engine.scan(fixed.data.slice(), { print_width_inches: fixed.width / fixed.dpi });
  ctx.table('60 stray specks (squares of 1-6 px), fix_despeckle + fix_trim', [{
    'specks placed': sp.specks, 'scan speck_count': s0.speckCount, removed: fixed.stats.specksRemoved ?? null,
    'trim box': `${fixed.width}x${fixed.height}`, 'art box': `${sp.artBox.width}x${sp.artBox.height}`, 're-scan speck_count': s1.speckCount, 're-scan issues': issueList(s1).join(' ') || '-',
  }]);

  // 6. white-outline fringe on one-colour art, fix_alpha_threshold
  const red: RGB = [200, 30, 40];
  const wo = await whiteOutline('si-docker.svg', ctx.short ? 600 : 1200, red);
  const wpw = String(wo.width / 300);
  const w0 = await engine.scan(await encodePng(wo), textOptions({ print_width_inches: wpw }));
  const wf = await fix(wo, { fix_alpha_threshold: 'true' });
  const w1 = await engine.scan(wf.out.data.slice(), textOptions({ print_width_inches: wpw }));
  const e0 = edgeColour({ ...wo, data: wo.data.map((v, i) => (i % 4 === 3 ? (v >= 144 ? 255 : 0) : v)) }, red);
  const e1 = edgeColour(wf.raster, red);
  ctx.table('white-outline fringe, fix_alpha_threshold: hard-edge pixels off the art colour', [
    { when: 'input cut at 144 (no decontamination)', 'edge px': e0.edge, '> RGB 40 %': r3(e0.offRgb40 * 100), '> ΔE 10 %': r3(e0.offDeltaE10 * 100), has_fringe: w0.alpha.hasFringe, fringe_color: w0.alpha.fringeColor, issues: issueList(w0).join(' ') },
    { when: 'after fix', 'edge px': e1.edge, '> RGB 40 %': r3(e1.offRgb40 * 100), '> ΔE 10 %': r3(e1.offDeltaE10 * 100), has_fringe: w1.alpha.hasFringe, fringe_color: w1.alpha.fringeColor, issues: issueList(w1).join(' ') || '-' },
  ]);

  // 7. round trip: corpus art and the customer cases
  const rows: Row[] = [];
  const cases: Array<[string, Uint8Array, number]> = [
    ['glow + shadow', await encodePng(glow), glow.width / 300],
    ['white outline', await encodePng(wo), wo.width / 300],
    ['60 specks', spBytes, Number(spw)],
    ['low resolution (900 px at 12 in)', await encodePng(small), 12],
  ];
  const files = readdirSync(corpusDir() ?? 'corpus/open').filter((f) => f.endsWith('.svg'));
  for (const f of ctx.short ? files.slice(0, 8) : files) cases.push([f, await encodePng(await corpusArt(f, 600, 60)), 2.4]);
  let errors = 0, warnings = 0;
  for (const [name, bytes, inches] of cases) {
    const t = await roundTrip(engine, bytes, inches);
    const err = t.after.issues.filter((i) => i.severity === 'error').length;
    errors += err > 0 ? 1 : 0;
    warnings += t.after.issues.some((i) => i.severity === 'warning') ? 1 : 0;
    if (rows.length < 4 || err > 0 || t.after.issues.some((i) => i.severity === 'warning')) {
      rows.push({ case: name, 'before': issueList(t.before).join(' ') || '-', 'print in after': Math.round(t.printWidthAfter * 100) / 100, fields: Object.entries(t.fields).map(([k, v]) => `${k}=${v}`).join(' ') || '-', after: issueList(t.after).join(' ') || '-' });
    }
  }
  ctx.table('round trip scan -> fix(suggestions) -> scan (first four cases, then any with issues left)', rows);
  ctx.log(`round trip: ${cases.length} cases, ${errors} end with an error-level issue, ${warnings} with a warning`);
  await engine.close();
}
