// Colour-true blanks: for every colour of every own style and view, the lit body (the print area: no rib
// bands, openings or drawstrings) has its median CIELAB within ΔE76 3 of the catalogue hex, so a black tee
// renders black (L* ~10), not charcoal, while folds and shadows still vary around it.
import { describe, expect, it } from 'vitest';
import { OWN_STYLES } from '@inkprep/engine';
import { getGarmentAt } from '@inkprep/engine/internals';
import { deltaE76, rgbToLab } from '@inkprep/engine/internals';

function hexLab(hex: string): [number, number, number] {
  const v = parseInt(hex.slice(1), 16);
  return rgbToLab((v >> 16) & 255, (v >> 8) & 255, v & 255);
}

const median = (a: Float32Array) => a.sort()[a.length >> 1]!;

describe('garment colour matches the catalogue hex', () => {
  for (const style of OWN_STYLES) {
    for (const view of ['front', 'back'] as const) {
      it(`${style.id} ${view}: every colour's lit body median within ΔE76 3`, async () => {
        const report: string[] = [];
        for (const c of style.colors) {
          const g = await getGarmentAt(style, view, c, 512);
          let n = 0;
          for (let i = 0; i < g.print_mask.length; i++) if (g.print_mask[i] === 255) n++;
          const L = new Float32Array(n), A = new Float32Array(n), B = new Float32Array(n);
          const lab: [number, number, number] = [0, 0, 0];
          let spread = 0;
          for (let i = 0, k = 0; i < g.print_mask.length; i++) {
            if (g.print_mask[i] !== 255) continue;
            rgbToLab(g.rgba[i * 4]!, g.rgba[i * 4 + 1]!, g.rgba[i * 4 + 2]!, lab);
            L[k] = lab[0]; A[k] = lab[1]; B[k] = lab[2]; k++;
          }
          const t = hexLab(c.hex);
          const lSorted = L.slice().sort();
          spread = lSorted[Math.floor(n * 0.95)]! - lSorted[Math.floor(n * 0.05)]!;
          const de = deltaE76(median(L), median(A), median(B), t[0], t[1], t[2]);
          report.push(`${c.id} ΔE ${de.toFixed(2)} L* ${median(L).toFixed(1)}/${t[0].toFixed(1)} spread ${spread.toFixed(1)}`);
          expect(de, report.join('; ')).toBeLessThanOrEqual(3);
          // Shading is still there: the body is not a flat fill (5-95 % range of L*).
          expect(spread, report.join('; ')).toBeGreaterThan(1.5);
        }
      });
    }
  }
});
