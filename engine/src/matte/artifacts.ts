// Stage 1b: detect lossy-compression ringing when the caller cannot say the pixels came from a JPEG (a PNG
// saved from a JPEG, a decoded raster). Clean renders have weak differences from the background only in
// the anti-aliased rim, right next to a strong pixel; JPEG ringing and 4:2:0 chroma bleed leave weak,
// high-frequency differences (a discrete Laplacian of at least 0.75 ΔE) scattered a few pixels away from
// the edges, unlike the smooth residual of a gradient background. When isolated weak pixels outnumber half the
// edge pixels, the source is treated as a JPEG (noise floors of matte.ts).

/**
 * Count on the ΔE map (quarter units, see classify.ts): weak = `lo` <= ΔE < 8 with no pixel of ΔE >= 8 in
 * its 3x3 neighbourhood and a high-frequency value (|4d - sum of the 4 neighbours| >= 3 ΔE); edge = ΔE >= 8 next to a pixel under 8. True when weak > edge / 2 (and edge > 0).
 */
export function looksCompressed(dist: Uint8Array, width: number, height: number, noiseDeltaE: number): boolean {
  const strong = 32; // 8 ΔE in quarter units
  const weakLo = Math.max(6, Math.round(8 * noiseDeltaE)); // max(1.5 ΔE, 2 x noise)
  let weak = 0, edge = 0;
  for (let y = 1; y < height - 1; y++) {
    const o = y * width;
    for (let x = 1; x < width - 1; x++) {
      const i = o + x;
      const d = dist[i]!;
      if (d >= strong) {
        if (dist[i - 1]! < strong || dist[i + 1]! < strong || dist[i - width]! < strong || dist[i + width]! < strong) edge++;
        continue;
      }
      if (d < weakLo) continue;
      const l = dist[i - 1]!, r = dist[i + 1]!, u = dist[i - width]!, dn = dist[i + width]!;
      if (
        l < strong && r < strong && u < strong && dn < strong &&
        dist[i - width - 1]! < strong && dist[i - width + 1]! < strong && dist[i + width - 1]! < strong && dist[i + width + 1]! < strong &&
        Math.abs(4 * d - l - r - u - dn) >= 12 // high-frequency (ringing), not the smooth residual of a gradient fit
      ) weak++;
    }
  }
  return edge > 0 && weak > edge / 2;
}
