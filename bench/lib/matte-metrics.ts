// Matte quality against a known alpha, shared by the remove-bg benches: IoU of soft alpha (sum of minima over
// sum of maxima), mean absolute alpha error, halo (mean CIE76 ΔE on ground-truth edge pixels both keep), the
// background left and the foreground lost (percent of alpha).
import type { Raster } from '@inkprep/engine';
import { rgbToLab, type Vec3 } from '@inkprep/engine/internals';

export interface MatteMetrics { iou: number; meanAbsAlpha: number; halo: number; bgLeft: number; fgLost: number }

export function measureMatte(out: Uint8ClampedArray, gt: Raster): MatteMetrics {
  const n = gt.width * gt.height, w = gt.width;
  let sMin = 0, sMax = 0, sAbs = 0, bgA = 0, bgN = 0, fgL = 0, fgN = 0, hSum = 0, hN = 0;
  const p: Vec3 = [0, 0, 0], q: Vec3 = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const a = out[i * 4 + 3]! / 255, g = gt.data[i * 4 + 3]! / 255;
    sMin += Math.min(a, g); sMax += Math.max(a, g); sAbs += Math.abs(a - g);
    if (g === 0) { bgA += a; bgN++; }
    if (g === 1) { fgL += 1 - a; fgN++; }
    if (a >= 0.25 && g >= 0.25) {
      const x = i % w;
      const edge = g < 1 || (x > 0 && gt.data[(i - 1) * 4 + 3] === 0) || (x < w - 1 && gt.data[(i + 1) * 4 + 3] === 0) || (i >= w && gt.data[(i - w) * 4 + 3] === 0) || (i + w < n && gt.data[(i + w) * 4 + 3] === 0);
      if (edge) {
        rgbToLab(out[i * 4]!, out[i * 4 + 1]!, out[i * 4 + 2]!, p);
        rgbToLab(gt.data[i * 4]!, gt.data[i * 4 + 1]!, gt.data[i * 4 + 2]!, q);
        hSum += Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
        hN++;
      }
    }
  }
  return { iou: sMax > 0 ? sMin / sMax : 1, meanAbsAlpha: sAbs / n, halo: hN ? hSum / hN : 0, bgLeft: bgN ? (100 * bgA) / bgN : 0, fgLost: fgN ? (100 * fgL) / fgN : 0 };
}

