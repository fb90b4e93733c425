// The white layer of a gang sheet: each design's plates made once by the underbase code (computePlates) at its
// print size, so the choke in millimetres and the 1 pt / 2 pt checks are measured at the resolution it prints
// at. A design used by two items at two sizes gets a plate set per size. The underbase checks' warnings become
// the sheet's per-item warnings, and the manifest says which options made the white. The plates are made on the
// whole file (the checks see what underbase would) and cut to the design's ink box for drawing (trim.ts).
import type { Raster } from '../raster/types.js';
import { narrowKnockouts, thinWhite } from '../underbase/checks.js';
import type { ResolvedUnderbase } from '../underbase/options.js';
import { computePlates, type PlateSet } from '../underbase/plates.js';
import { underbaseStats, underbaseWarnings } from '../underbase/report.js';
import type { GangLayout, GangWarning, GangWhiteReport } from './layout.js';
import type { ResolvedGangsheet } from './options.js';
import type { GangPlacement } from './place.js';

/** The plate sets of a sheet's designs and which one each item draws. */
export interface GangWhiteLayer {
  plates: PlateSet[];
  /** Design file index per plate set. */
  designOf: number[];
  /** Index in `plates` per item. */
  plateOfItem: number[];
  plateOf(p: GangPlacement): number;
  report: GangWhiteReport;
  warnings: GangWarning[];
}

const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

/**
 * Make the white layer of `layout` from `designs` (decoded, in file order). With `owned`, a design's pixels become
 * its (last) colour plate in place: the op's own decoded rasters, not read again afterwards.
 */
export function makeWhiteLayer(designs: readonly (Raster | null)[], opts: ResolvedGangsheet & { white: Readonly<ResolvedUnderbase> }, layout: GangLayout, owned: boolean): GangWhiteLayer {
  const white = opts.white;
  // one plate set per design and print width (the item's width, or its height's equivalent)
  const keys = new Map<string, { design: number; widthIn: number; items: number[] }>();
  const keyOfItem = opts.items.map((item, i) => {
    const r = designs[item.design]!;
    const widthIn = item.widthIn ?? (item.heightIn! * r.width) / r.height;
    const key = `${item.design}@${round(widthIn, 4)}`;
    const k = keys.get(key) ?? { design: item.design, widthIn, items: [] };
    k.items.push(i);
    keys.set(key, k);
    return key;
  });
  const list = [...keys.values()];
  // the last plate set of a design may take over its pixels; the earlier ones copy them
  const lastOf = new Map<number, number>();
  list.forEach((k, j) => lastOf.set(k.design, j));
  const copies = new Array<number>(list.length).fill(0);
  const index = new Map(list.map((k, j) => [k, j]));
  const plateOfItem = keyOfItem.map((key) => index.get(keys.get(key)!)!);
  for (const p of layout.placements) copies[plateOfItem[p.item]!]!++;
  const plates: PlateSet[] = [];
  const warnings: GangWarning[] = [];
  let whiteInk = 0;
  list.forEach((k, j) => {
    const p = computePlates(designs[k.design]!, { ...white, printWidthInches: k.widthIn }, owned && lastOf.get(k.design) === j);
    plates.push(p);
    whiteInk += underbaseStats(p).whiteInkSqIn * copies[j]!;
    const found = underbaseWarnings(p, thinWhite(p), narrowKnockouts(p));
    for (const i of k.items) {
      for (const w of found) {
        warnings.push({ code: w.code, item: i, dpi: Math.round(p.dpi), message: `Item ${i}: ${w.message}`, regions: w.count });
      }
    }
  });
  warnings.sort((a, b) => a.item! - b.item!);
  return {
    plates,
    designOf: list.map((k) => k.design),
    plateOfItem,
    plateOf: (p) => plateOfItem[p.item]!,
    warnings,
    report: {
      spotName: white.spotName,
      garmentColor: white.garment?.hex ?? null,
      garmentSource: white.garment?.source ?? null,
      knockout: white.knockout,
      chokeMm: white.chokeMm,
      knockoutTolerance: white.knockoutTolerance,
      whiteDensity: white.whiteDensity,
      highlightWhite: white.highlightWhite,
      fixed: plates[0]?.fixed ?? null,
      plateSets: plates.length,
      whiteInkSqIn: round(whiteInk),
    },
  };
}
