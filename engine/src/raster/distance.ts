// Exact Euclidean distance transform of a binary mask (Felzenszwalb & Huttenlocher's lower envelope of
// parabolas, one pass down the columns and one along the rows). The underbase chokes its white plate and
// measures line widths with it; an exact transform keeps a choke or a width verdict the same wherever a
// shape sits on the grid, which chamfer or block approximations do not.

/**
 * Squared distance, in pixels, from every pixel centre to the nearest pixel where `isSource[i]` is non-zero
 * (0 on source pixels). With `outsideIsSource`, the ring of pixels just outside the image counts as source,
 * so a shape touching the border is measured to the border (the art ends there).
 */
export function squaredDistance(width: number, height: number, isSource: Uint8Array, outsideIsSource = false): Float32Array {
  const INF = 1e20;
  const out = new Float32Array(width * height);
  const n = Math.max(width, height) + 2;
  const f = new Float64Array(n);
  const d = new Float64Array(n);
  const v = new Int32Array(n);
  const z = new Float64Array(n + 1);
  // columns: f holds 0 on sources, INF elsewhere; with outsideIsSource, virtual sources at -1 and height
  const pad = outsideIsSource ? 1 : 0;
  for (let x = 0; x < width; x++) {
    const len = height + 2 * pad;
    if (pad) { f[0] = 0; f[len - 1] = 0; }
    for (let y = 0; y < height; y++) f[y + pad] = isSource[y * width + x] ? 0 : INF;
    envelope(f, len, d, v, z);
    for (let y = 0; y < height; y++) out[y * width + x] = d[y + pad]!;
  }
  // rows: the column result is the cost; virtual border sources again sit just outside
  for (let y = 0; y < height; y++) {
    const len = width + 2 * pad;
    const row = y * width;
    if (pad) { f[0] = 0; f[len - 1] = 0; }
    for (let x = 0; x < width; x++) f[x + pad] = out[row + x]!;
    envelope(f, len, d, v, z);
    for (let x = 0; x < width; x++) out[row + x] = d[x + pad]!;
  }
  return out;
}

/** 1-D squared distance transform of sampled function f[0..n) into d (lower envelope of parabolas). */
function envelope(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  // skip leading infinite samples: they never form the envelope
  let first = 0;
  while (first < n && f[first]! >= 1e20) first++;
  if (first === n) {
    for (let q = 0; q < n; q++) d[q] = 1e20;
    return;
  }
  v[0] = first;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let q = first + 1; q < n; q++) {
    const fq = f[q]!;
    if (fq >= 1e20) continue;
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
