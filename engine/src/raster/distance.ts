// Exact Euclidean distance transform of a binary mask (Felzenszwalb & Huttenlocher's lower envelope of
// parabolas along the rows, over each column's distance to its nearest source). The underbase chokes its white
// plate and measures line widths with it; an exact transform keeps a choke or a width verdict the same wherever
// a shape sits on the grid, which chamfer or block approximations do not.

const INF = 1e20;
/** Largest sideways reach (pixels) done by a plain scan rather than the envelope. */
const MAX_SCAN_REACH = 8;

/**
 * Squared distance, in pixels, from every pixel centre to the nearest pixel where `isSource[i]` is non-zero
 * (0 on source pixels). With `outsideIsSource`, the ring of pixels just outside the image counts as source,
 * so a shape touching the border is measured to the border (the art ends there).
 * With `limit`, only distances up to it are needed (callers that compare with a threshold): a pixel whose
 * squared distance is at most `limit` gets it exactly, any other gets some value above `limit`. `out`, when
 * given (width * height long), is written instead of a new array.
 */
export function squaredDistance(width: number, height: number, isSource: Uint8Array, outsideIsSource = false, limit = Infinity, out?: Float32Array): Float32Array {
  const n = width * height;
  const dist = out ?? new Float32Array(n);
  columnDistances(width, height, isSource, outsideIsSource, dist);
  const pad = outsideIsSource ? 1 : 0;
  // a small limit reaches only a few pixels sideways: a short scan of them beats the envelope's divisions
  const reach = Math.floor(Math.sqrt(limit));
  if (reach <= MAX_SCAN_REACH) {
    rowsWithin(width, height, dist, reach, outsideIsSource);
    return dist;
  }
  const len = width + 2 * pad;
  const f = new Float64Array(len);
  const d = new Float64Array(len);
  const v = new Int32Array(len);
  const z = new Float64Array(len + 1);
  // rows: the column result is the cost; virtual border sources again sit just outside. Costs above the
  // limit cannot give a distance within it, so they are left out of the envelope (fewer parabolas).
  for (let y = 0; y < height; y++) {
    const row = y * width;
    if (pad) { f[0] = 0; f[len - 1] = 0; }
    let any = pad === 1;
    for (let x = 0; x < width; x++) {
      const c = dist[row + x]!;
      if (c <= limit) { f[x + pad] = c; if (c < INF) any = true; } else f[x + pad] = INF;
    }
    if (!any) {
      dist.fill(INF, row, row + width);
      continue;
    }
    envelope(f, len, d, v, z);
    for (let x = 0; x < width; x++) dist[row + x] = d[x + pad]!;
  }
  return dist;
}

/**
 * The row pass for a small limit: each pixel's squared distance is the least of dx^2 plus the column distance
 * over the pixels at most `reach` away in its row (and the virtual border sources), which is exact whenever
 * the answer is within reach^2 + 1 > limit; otherwise it is above the limit, which is all callers ask.
 */
function rowsWithin(width: number, height: number, dist: Float32Array, reach: number, outsideIsSource: boolean): void {
  if (reach === 0) return;
  // the row with `reach` cells either side: INF beyond the image, except the border sources just outside it
  const f = new Float64Array(width + 2 * reach).fill(INF);
  if (outsideIsSource) { f[reach - 1] = 0; f[reach + width] = 0; }
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) f[x + reach] = dist[row + x]!;
    for (let x = 0; x < width; x++) {
      const c = x + reach;
      let best = f[c]!;
      if (best === 0) { dist[row + x] = 0; continue; }
      for (let dx = 1; dx <= reach; dx++) {
        const a = f[c - dx]!, b = f[c + dx]!;
        const m = (a < b ? a : b) + dx * dx;
        if (m < best) best = m;
      }
      dist[row + x] = best;
    }
  }
}

/**
 * Squared distance along each column to the nearest source in it (INF when there is none), by one sweep down
 * and one up over whole rows, so memory is read in order. Equal to the 1-D envelope on a 0 / INF column.
 */
function columnDistances(width: number, height: number, isSource: Uint8Array, outsideIsSource: boolean, dist: Float32Array): void {
  // the row of the last source seen in each column, NONE before the first
  const NONE = -0x7fffffff;
  const last = new Int32Array(width).fill(outsideIsSource ? -1 : NONE);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (isSource[row + x]) { last[x] = y; dist[row + x] = 0; continue; }
      const l = last[x]!;
      const dy = y - l;
      dist[row + x] = l === NONE ? INF : dy * dy;
    }
  }
  last.fill(outsideIsSource ? height : NONE);
  for (let y = height - 1; y >= 0; y--) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (isSource[row + x]) { last[x] = y; continue; }
      const l = last[x]!;
      if (l === NONE) continue;
      const dy = l - y;
      const s = dy * dy;
      if (s < dist[row + x]!) dist[row + x] = s;
    }
  }
}

/** 1-D squared distance transform of sampled function f[0..n) into d (lower envelope of parabolas). */
function envelope(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  // skip leading infinite samples: they never form the envelope
  let first = 0;
  while (first < n && f[first]! >= INF) first++;
  if (first === n) {
    for (let q = 0; q < n; q++) d[q] = INF;
    return;
  }
  v[0] = first;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let q = first + 1; q < n; q++) {
    const fq = f[q]!;
    if (fq >= INF) continue;
    // z[0] is -Infinity, so the loop always stops at k = 0
    let p = v[k]!;
    let s = (fq + q * q - (f[p]! + p * p)) / (2 * (q - p));
    while (s <= z[k]!) {
      k--;
      p = v[k]!;
      s = (fq + q * q - (f[p]! + p * p)) / (2 * (q - p));
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1]! < q) k++;
    const p = v[k]!;
    d[q] = (q - p) * (q - p) + f[p]!;
  }
}
