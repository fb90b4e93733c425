// Stage 5: despeckle. Opaque-or-partial components (8-connected, alpha > 0) smaller than `speckArea`
// pixels are noise left by JPEG blocks or dust on the background and are made transparent.
// Bounded breadth-first search from the band pixels only: a component of fewer than 25 pixels cannot
// hold a certain-foreground pixel (that needs a 5x5 block away from the background), so every speck is
// made of band pixels; a search stops as soon as it proves its component large.

const TEMP = 1, BIG = 2, DONE = 3;

/** Islands of the background's own colour (JPEG ringing left on a white background: white dots on a dark shirt). */
export interface IslandRule {
  /** Components up to this many pixels are removed when every pixel is near the background colour. */
  area: number;
  /** True when pixel i is near the background colour. */
  near: (i: number) => boolean;
}

/** Clear alpha components of `out` (RGBA) smaller than `speckArea` (capped at 25), and background-coloured
 * islands smaller than `island.area`, in place; returns how many were removed. */
export function despeckle(out: Uint8ClampedArray, width: number, height: number, band: Int32Array, speckArea: number, queue: Int32Array, island?: IslandRule): number {
  const speck = Math.min(25, speckArea);
  const limit = Math.max(speck, island ? island.area : 0);
  const mark = new Uint8Array(width * height);
  let removed = 0;
  for (let b = 0; b < band.length; b++) {
    const s = band[b]!;
    if (mark[s] || out[s * 4 + 3] === 0) continue;
    let head = 0, tail = 0, big = false, allNear = !!island && island.near(s);
    queue[tail++] = s;
    mark[s] = TEMP;
    while (head < tail && !big) {
      const i = queue[head++]!;
      const x = i % width, y = (i - x) / width;
      for (let dy = -1; dy <= 1 && !big; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          const j = yy * width + xx;
          if (out[j * 4 + 3] === 0 || mark[j] === TEMP) continue;
          if (mark[j] === BIG || tail >= limit) { big = true; break; }
          mark[j] = TEMP;
          queue[tail++] = j;
          if (allNear && !island!.near(j)) allNear = false;
        }
      }
    }
    if (!big && tail >= speck && !allNear) big = true;
    if (big) {
      for (let k = 0; k < tail; k++) mark[queue[k]!] = BIG;
    } else {
      removed++;
      for (let k = 0; k < tail; k++) { mark[queue[k]!] = DONE; out[queue[k]! * 4 + 3] = 0; }
    }
  }
  return removed;
}
