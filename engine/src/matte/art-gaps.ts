// Gaps of background the segmentation model keeps inside flat art (between letters, in a ring of a logo) on a
// busy background. Flat art shows few colours: when the model's certain foreground is mostly a small palette
// (the 24 most common colours, 5 bits per channel, cover >= 70 % of it), a foreground region whose colours
// are not the palette's and are more common in the certain background than in the foreground is background
// the model did not cut: its mask is cleared, and the edge refinement then mattes the new boundary. Photos of
// people, pets and products have no small palette and are left as the model says.

/** Share of the certain foreground the 24 most common colour bins must cover for the subject to be flat art. */
export const ART_PALETTE_SHARE = 0.7;

const BITS = 5;
const bin = (d: Uint8ClampedArray, i: number): number => ((d[i * 4]! >> (8 - BITS)) << (2 * BITS)) | ((d[i * 4 + 1]! >> (8 - BITS)) << BITS) | (d[i * 4 + 2]! >> (8 - BITS));

/**
 * Clear the mask (in place) over background-coloured regions inside flat art; returns the pixels cleared.
 * `minArea`: smallest region cleared (pixels); smaller ones are left to the edge refinement.
 */
export function clearArtGaps(data: Uint8ClampedArray, width: number, height: number, mask: Uint8Array, minArea: number): number {
  const n = width * height;
  const fgHist = new Uint32Array(1 << (3 * BITS)), bgHist = new Uint32Array(1 << (3 * BITS));
  let fgCount = 0;
  for (let i = 0; i < n; i++) {
    if (mask[i]! >= 242) { fgHist[bin(data, i)]++; fgCount++; }
    else if (mask[i]! <= 13) bgHist[bin(data, i)]++;
  }
  if (fgCount === 0) return 0;
  // The palette: the most common bins, up to 97 % of the foreground (at most 64), and the first 24's share.
  const order = Array.from(fgHist.keys()).filter((b) => fgHist[b]! > 0).sort((a, b) => fgHist[b]! - fgHist[a]!);
  let top24 = 0;
  for (let k = 0; k < Math.min(24, order.length); k++) top24 += fgHist[order[k]!]!;
  if (top24 < ART_PALETTE_SHARE * fgCount) return 0;
  const palette = new Uint8Array(1 << (3 * BITS));
  let covered = 0;
  for (let k = 0; k < Math.min(64, order.length) && covered < 0.97 * fgCount; k++) { palette[order[k]!] = 1; covered += fgHist[order[k]!]!; }
  // Near the palette: the palette bins and their neighbours (one bin, 8 levels, in each channel): shading and
  // anti-aliasing of the art's own colours.
  const near = new Uint8Array(1 << (3 * BITS));
  const top = (1 << BITS) - 1;
  for (let b = 0; b < palette.length; b++) {
    if (!palette[b]) continue;
    const r = b >> (2 * BITS), g = (b >> BITS) & top, bl = b & top;
    for (let dr = -1; dr <= 1; dr++) for (let dg = -1; dg <= 1; dg++) for (let db = -1; db <= 1; db++) {
      const rr = r + dr, gg = g + dg, bb = bl + db;
      if (rr >= 0 && gg >= 0 && bb >= 0 && rr <= top && gg <= top && bb <= top) near[(rr << (2 * BITS)) | (gg << BITS) | bb] = 1;
    }
  }
  // Candidates: kept by the model (mask > 0.05), away from the palette, a colour the background shows more often.
  const cand = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (mask[i]! <= 13) continue;
    const b = bin(data, i);
    if (!palette[b] && bgHist[b]! > fgHist[b]!) cand[i] = 1;
  }
  // Regions of candidates at least minArea large (4-connected) are cleared.
  const stack = new Int32Array(n);
  const members: number[] = [];
  let cleared = 0;
  for (let s = 0; s < n; s++) {
    if (cand[s] !== 1) continue;
    let sp = 0;
    members.length = 0;
    stack[sp++] = s;
    cand[s] = 2;
    while (sp > 0) {
      const i = stack[--sp]!;
      members.push(i);
      const x = i % width;
      if (x > 0 && cand[i - 1] === 1) { cand[i - 1] = 2; stack[sp++] = i - 1; }
      if (x < width - 1 && cand[i + 1] === 1) { cand[i + 1] = 2; stack[sp++] = i + 1; }
      if (i >= width && cand[i - width] === 1) { cand[i - width] = 2; stack[sp++] = i - width; }
      if (i + width < n && cand[i + width] === 1) { cand[i + width] = 2; stack[sp++] = i + width; }
    }
    if (members.length >= minArea) {
      for (const i of members) { mask[i] = 0; cand[i] = 3; }
      cleared += members.length;
    }
  }
  if (cleared === 0) return 0;
  // Specks the region left (texture pixels that happen to be palette colours): kept pieces smaller than minArea
  // that border a cleared region go too.
  const seen = new Uint8Array(n);
  for (let s = 0; s < n; s++) {
    if (seen[s] || mask[s]! <= 13) continue;
    let sp = 0, touches = false, small = true;
    members.length = 0;
    stack[sp++] = s;
    seen[s] = 1;
    while (sp > 0) {
      const i = stack[--sp]!;
      if (small) members.push(i);
      if (members.length >= minArea) small = false;
      const x = i % width;
      for (const j of [x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1, i - width, i + width]) {
        if (j < 0 || j >= n) continue;
        if (cand[j] === 3) touches = true;
        if (!seen[j] && mask[j]! > 13) { seen[j] = 1; stack[sp++] = j; }
      }
    }
    if (small && touches) for (const i of members) { mask[i] = 0; cleared++; }
  }
  return cleared;
}
