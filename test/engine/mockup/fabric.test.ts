// Fabric realism at 2000 px: the print bends with the folds (a 15 in grid shifts by several pixels where
// the cloth folds and not at all on the flat chest, fabric 1 against a flat paste), while ink edges stay
// crisp (slanted-edge 10-90 % width in linear light <= 1.5 px at fabric 0.8: no blur of the design), and
// the cloth's light (folds, knit grain) shows through the ink.
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { OWN_STYLES, type Raster } from '@inkprep/engine';
import { getGarmentAt, renderMockup, resolveMockup } from '@inkprep/engine/internals';

const OUT = 2000;
const tee = OWN_STYLES.find((s) => s.id === 'classic-tee')!;

async function grey(png: Uint8Array): Promise<{ w: number; data: Buffer }> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { w: info.width, data };
}

beforeAll(async () => {
  // The 2048 px blank is rendered once (then read from the disk cache).
  await getGarmentAt(tee, 'front', { hex: '#f6f6f3' }, OUT);
});

describe('fabric bends the print', () => {
  it('a 15 in grid moves >= 3 px across folds and ~0 on flat cloth (fabric 1 vs flat paste)', async () => {
    // 15 in at 100 DPI: dark 3 px lines every 0.5 in on transparent.
    const W = 1500;
    const data = new Uint8ClampedArray(W * W * 4);
    for (let y = 0; y < W; y++) for (let x = 0; x < W; x++) if (x % 50 < 3 || y % 50 < 3) data.set([20, 20, 20, 255], (y * W + x) * 4);
    const grid: Raster = { width: W, height: W, data };
    const base = { style: 'own:classic-tee', color: 'white', placement: 'oversized', print_width_in: 15, output_size: OUT } as const;
    const flat = await renderMockup(grid, resolveMockup({ ...base, fabric: false }));
    const bent = await renderMockup(grid, resolveMockup({ ...base, fabric: 1 }));
    const A = await grey(flat.data), B = await grey(bent.data);
    const g = await getGarmentAt(tee, 'front', { hex: '#f6f6f3' }, OUT);
    expect(g.width).toBe(A.w);
    const L = bent.layout;
    const win = 28, R = 7;
    // Best integer shift of each window by normalised cross-correlation.
    const shiftAt = (x0: number, y0: number): number | null => {
      let best = -2, bx = 0, by = 0;
      for (let dy = -R; dy <= R; dy++) for (let dx = -R; dx <= R; dx++) {
        let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
        for (let y = y0; y < y0 + win; y++) for (let x = x0; x < x0 + win; x++) {
          const a = A.data[y * A.w + x]!, b = B.data[(y + dy) * A.w + x + dx]!;
          sa += a; sb += b; saa += a * a; sbb += b * b; sab += a * b;
        }
        const n = win * win, va = saa - (sa * sa) / n, vb = sbb - (sb * sb) / n;
        if (va < 1e3 || vb < 1e3) continue;
        const c = (sab - (sa * sb) / n) / Math.sqrt(va * vb);
        if (c > best) { best = c; bx = dx; by = dy; }
      }
      return best > 0.6 ? Math.hypot(bx, by) : null;
    };
    let foldMax = 0, flatMax = 0, flatWindows = 0;
    for (let y0 = L.top + R + 2; y0 + win + R < L.top + L.height; y0 += 20) {
      for (let x0 = L.left + R + 2; x0 + win + R < L.left + L.width; x0 += 20) {
        // Fold relief under the window (and the search margin): flat cloth has none.
        let relief = 0;
        for (let y = y0 - R; y < y0 + win + R; y += 3) for (let x = x0 - R; x < x0 + win + R; x += 3) relief = Math.max(relief, Math.abs(g.fold_in[y * g.width + x]!));
        const s = shiftAt(x0, y0);
        if (s === null) continue;
        if (relief < 0.003) { flatMax = Math.max(flatMax, s); flatWindows++; }
        else foldMax = Math.max(foldMax, s);
      }
    }
    expect(flatWindows).toBeGreaterThan(100);
    expect(foldMax).toBeGreaterThanOrEqual(3);
    expect(flatMax).toBeLessThanOrEqual(0);
  });

  it('a straight ink edge stays crisp: 10-90 % edge width <= 1.5 px at fabric 0.8', async () => {
    // Slanted-edge method (ISO 12233): a light bar whose left edge leans 4 degrees, on a black tee; every
    // row's samples are placed by their distance to the known edge and averaged into a supersampled edge
    // profile in linear light.
    const W = 3000, H = 1500, tan = Math.tan((4 * Math.PI) / 180);
    const data = new Uint8ClampedArray(W * H * 4);
    for (let y = 0; y < H; y++) for (let x = 0; x < 2000; x++) {
      const cov = Math.min(1, Math.max(0, x + 1 - (1000 + (y - H / 2) * tan)));
      if (cov > 0) data.set([250, 250, 250, Math.round(255 * cov)], (y * W + x) * 4);
    }
    const lin = (v: number) => { const c = v / 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    const widths: Record<string, number> = {};
    for (const fabric of [false, 0.8] as const) {
      const r = await renderMockup({ width: W, height: H, data }, resolveMockup({ style: 'own:classic-tee', color: 'black', placement: 'center-chest', print_width_in: 10, output_size: OUT, fabric }));
      const img = await grey(r.data);
      const L = r.layout, s = L.width / W;
      const sum = new Float64Array(160), cnt = new Float64Array(160);
      for (let y = L.top + 15; y < L.top + L.height - 15; y++) {
        const ex = L.left + (1000 + ((y + 0.5 - L.top) / s - H / 2) * tan) * s;
        const x0 = Math.floor(ex) - 8;
        const row: number[] = [];
        for (let x = x0; x <= x0 + 16; x++) row.push(lin(img.data[y * img.w + x]!));
        const lo = Math.min(...row.slice(0, 3)), hi = Math.max(...row.slice(-3));
        row.forEach((v, k) => {
          const b = Math.round((x0 + k + 0.5 - ex + 8) * 10);
          if (b >= 0 && b < 160) { sum[b] += (v - lo) / (hi - lo); cnt[b]++; }
        });
      }
      const esf = [...sum].map((v, b) => v / cnt[b]!);
      const cross = (t: number) => {
        for (let b = 1; b < 160; b++) if (esf[b - 1]! < t && esf[b]! >= t) return (b - 1 + (t - esf[b - 1]!) / (esf[b]! - esf[b - 1]!)) / 10;
        return NaN;
      };
      widths[String(fabric)] = cross(0.9) - cross(0.1);
    }
    expect(widths['0.8']).toBeLessThanOrEqual(1.5);
    // Fabric adds no blur of its own beyond sampling (the flat paste is the design as resampled).
    expect(widths['0.8']! - widths['false']!).toBeLessThan(0.35);
  });

  it('the cloth light shows through the ink: a solid print varies with the folds and the knit', async () => {
    const W = 1200;
    const data = new Uint8ClampedArray(W * W * 4);
    for (let i = 0; i < data.length; i += 4) data.set([40, 120, 200, 255], i);
    const base = { style: 'own:classic-tee', color: 'white', placement: 'oversized', print_width_in: 15, output_size: OUT } as const;
    const flat = await renderMockup({ width: W, height: W, data }, resolveMockup({ ...base, fabric: false }));
    const fab = await renderMockup({ width: W, height: W, data }, resolveMockup({ ...base, fabric: 0.8 }));
    const A = await grey(flat.data), B = await grey(fab.data);
    const L = fab.layout;
    // Fine texture: mean absolute difference between horizontal neighbours on the flat chest.
    let texA = 0, texB = 0, n = 0;
    const cx = Math.round(L.left + L.width / 2);
    for (let y = L.top + 40; y < L.top + 240; y++) for (let x = cx - 100; x < cx + 100; x++) {
      const i = y * A.w + x;
      texA += Math.abs(A.data[i]! - A.data[i + 1]!); texB += Math.abs(B.data[i]! - B.data[i + 1]!); n++;
    }
    expect(texA / n).toBeLessThan(0.05);
    expect(texB / n).toBeGreaterThan(0.4);
    // Broad shading: where the cloth lies in shadow (fold valleys, toward the sides) the ink is darker than
    // where it is lit, in proportion to the cloth's light; the flat paste is one colour throughout.
    const g = await getGarmentAt(tee, 'front', { hex: '#f6f6f3' }, OUT);
    const lit = { a: 0, b: 0, n: 0 }, dark = { a: 0, b: 0, n: 0 };
    for (let y = L.top + 10; y < L.top + L.height - 10; y++) for (let x = L.left + 10; x < L.left + L.width - 10; x++) {
      const i = y * g.width + x;
      if (g.print_mask[i] !== 255) continue;
      const light = g.light[i]! / 16384;
      const bucket = light < 0.92 ? dark : light > 1.0 ? lit : null;
      if (!bucket) continue;
      bucket.a += A.data[i]!; bucket.b += B.data[i]!; bucket.n++;
    }
    expect(dark.n).toBeGreaterThan(500);
    expect(Math.abs(dark.a / dark.n - lit.a / lit.n)).toBeLessThan(1);
    expect(lit.b / lit.n - dark.b / dark.n).toBeGreaterThan(5);
  });
});
