// Connected-component labelling on typed arrays, run-based: each row is split into runs of "on" pixels
// and runs that touch across rows are merged with union-find (the classic two-pass algorithm of
// Rosenfeld & Pfaltz, done on runs instead of pixels, so cost scales with edge length, not area).
// The mask is read in place from any typed array with a stride, e.g. the alpha channel of RGBA pixels.

/** Where the mask lives and what counts as "on". */
export interface MaskSource {
  /** Values, row-major. For RGBA pixels pass the pixel array with `stride: 4, offset: 3` to read alpha. */
  data: ArrayLike<number>;
  width: number;
  height: number;
  /** Elements per pixel; default 1. */
  stride?: number;
  /** Index of the channel inside a pixel; default 0. */
  offset?: number;
  /** A pixel is on when value >= min (default 1). */
  min?: number;
  /** Invert the mask (on when value < min), e.g. to find holes. Default false. */
  invert?: boolean;
}

/** Runs of "on" pixels and their components. Run i covers pixels [x0[i], x1[i]) of row y[i]. */
export interface RunComponents {
  width: number;
  height: number;
  runCount: number;
  y: Int32Array;
  x0: Int32Array;
  x1: Int32Array;
  /** Component index (0..count-1) of each run. */
  runLabel: Int32Array;
  /** Number of components. */
  count: number;
  /** Pixel count per component. */
  area: Float64Array;
  /** Bounding box per component, inclusive min, exclusive max. */
  minX: Int32Array;
  minY: Int32Array;
  maxX: Int32Array;
  maxY: Int32Array;
  /** Sum of x and y of the pixel centres per component (centroid = sum / area). */
  sumX: Float64Array;
  sumY: Float64Array;
  /** Whether the component touches the image border. */
  touchesBorder: Uint8Array;
}

const ALL_ZERO = 0;
const NO_ZERO_BYTE = 1;
const ALL_FF = 2;
/** Is the 32-bit word all zero bytes, free of zero bytes (classic bit test), or all 0xff bytes? */
function wordIs(W: number, kind: number): boolean {
  if (kind === ALL_ZERO) return W === 0;
  if (kind === NO_ZERO_BYTE) return ((W - 0x01010101) & ~W & 0x80808080) === 0;
  return W === 0xffffffff;
}

function grow(a: Int32Array, n: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/**
 * Label the components of a mask. `connectivity` 8 (default) joins diagonal neighbours, 4 does not.
 * @example
 * const cc = labelRuns({ data: rgba, width, height, stride: 4, offset: 3, min: 1 });
 * for (let c = 0; c < cc.count; c++) if (cc.area[c] < 4) ...;
 */
export function labelRuns(src: MaskSource, connectivity: 4 | 8 = 8): RunComponents {
  const { data, width: w, height: h } = src;
  const stride = src.stride ?? 1;
  const off = src.offset ?? 0;
  const min = src.min ?? 1;
  const inv = !!src.invert;
  let cap = Math.max(1024, h * 4);
  let ry = new Int32Array(cap);
  let rx0 = new Int32Array(cap);
  let rx1 = new Int32Array(cap);
  let parent = new Int32Array(cap);
  let n = 0;
  let prevStart = 0;
  let prevEnd = 0;
  const d = connectivity === 8 ? 1 : 0;

  const find = (i: number): number => {
    while (parent[i] !== i) {
      const p = parent[parent[i]!]!;
      parent[i] = p;
      i = p;
    }
    return i;
  };

  // Fast path: a byte plane (stride 1) skips 4 pixels at a time through words that are all off or all on:
  // a zero word, an all-255 word, or (threshold 1) a word without a zero byte (the classic bit test).
  const words = data instanceof Uint8Array && stride === 1 && min >= 1 && data.byteOffset % 4 === 0
    ? new Uint32Array(data.buffer, data.byteOffset, data.length >> 2)
    : null;
  // which words are entirely off / entirely on (see wordIs)
  const offKind = inv ? (min === 1 ? NO_ZERO_BYTE : ALL_FF) : ALL_ZERO;
  const onKind = inv ? ALL_ZERO : min === 1 ? NO_ZERO_BYTE : ALL_FF;
  for (let y = 0; y < h; y++) {
    const rowStart = n;
    let idx = y * w * stride + off;
    const rowEnd = idx + w * stride;
    let x = 0;
    while (x < w) {
      // skip off pixels
      if (words) {
        while (x < w && (idx & 3) !== 0 && ((data[idx]! >= min) === inv)) { x++; idx++; }
        while (idx + 4 <= rowEnd && wordIs(words[idx >> 2]!, offKind)) { x += 4; idx += 4; }
      }
      while (x < w && ((data[idx]! >= min) === inv)) {
        x++;
        idx += stride;
      }
      if (x >= w) break;
      const start = x;
      if (words) {
        while (x < w && (idx & 3) !== 0 && ((data[idx]! >= min) !== inv)) { x++; idx++; }
        while (idx + 4 <= rowEnd && wordIs(words[idx >> 2]!, onKind)) { x += 4; idx += 4; }
      }
      while (x < w && ((data[idx]! >= min) !== inv)) {
        x++;
        idx += stride;
      }
      if (n >= cap) {
        cap *= 2;
        ry = grow(ry, cap);
        rx0 = grow(rx0, cap);
        rx1 = grow(rx1, cap);
        parent = grow(parent, cap);
      }
      ry[n] = y;
      rx0[n] = start;
      rx1[n] = x;
      parent[n] = n;
      // merge with overlapping runs of the previous row
      for (let p = prevStart; p < prevEnd; p++) {
        if (rx1[p]! + d <= start) continue;
        if (rx0[p]! >= x + d) break;
        const a = find(p);
        const b = find(n);
        if (a !== b) {
          if (a < b) parent[b] = a;
          else parent[a] = b;
        }
      }
      n++;
    }
    prevStart = rowStart;
    prevEnd = n;
  }

  const runLabel = new Int32Array(n);
  const rootLabel = new Int32Array(n).fill(-1);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const r = find(i);
    let l = rootLabel[r]!;
    if (l < 0) {
      l = count++;
      rootLabel[r] = l;
    }
    runLabel[i] = l;
  }
  const area = new Float64Array(count);
  const minX = new Int32Array(count).fill(w);
  const minY = new Int32Array(count).fill(h);
  const maxX = new Int32Array(count);
  const maxY = new Int32Array(count);
  const sumX = new Float64Array(count);
  const sumY = new Float64Array(count);
  const touchesBorder = new Uint8Array(count);
  for (let i = 0; i < n; i++) {
    const l = runLabel[i]!;
    const y = ry[i]!;
    const a = rx0[i]!;
    const b = rx1[i]!;
    const len = b - a;
    area[l]! += len;
    sumX[l]! += ((a + b - 1) * len) / 2 + len * 0.5;
    sumY[l]! += (y + 0.5) * len;
    if (a < minX[l]!) minX[l] = a;
    if (b > maxX[l]!) maxX[l] = b;
    if (y < minY[l]!) minY[l] = y;
    if (y + 1 > maxY[l]!) maxY[l] = y + 1;
    if (a === 0 || b === w || y === 0 || y === h - 1) touchesBorder[l] = 1;
  }
  return {
    width: w, height: h, runCount: n,
    y: ry.subarray(0, n), x0: rx0.subarray(0, n), x1: rx1.subarray(0, n),
    runLabel, count, area, minX, minY, maxX, maxY, sumX, sumY, touchesBorder,
  };
}

/**
 * A full label image: component index + 1 per pixel, 0 for off pixels.
 * @example const { labels, cc } = labelComponents({ data: mask, width, height });
 */
export function labelComponents(src: MaskSource, connectivity: 4 | 8 = 8): { labels: Int32Array; cc: RunComponents } {
  const cc = labelRuns(src, connectivity);
  const labels = new Int32Array(src.width * src.height);
  for (let i = 0; i < cc.runCount; i++) {
    const row = cc.y[i]! * src.width;
    labels.fill(cc.runLabel[i]! + 1, row + cc.x0[i]!, row + cc.x1[i]!);
  }
  return { labels, cc };
}

/**
 * Call `visit(start, end)` for every run (pixel index range, end exclusive) of the components for which
 * `select(component)` is true. Used e.g. to erase specks.
 */
export function forEachRunOf(cc: RunComponents, select: (component: number) => boolean, visit: (start: number, end: number) => void): void {
  const keep = new Uint8Array(cc.count);
  for (let c = 0; c < cc.count; c++) keep[c] = select(c) ? 1 : 0;
  for (let i = 0; i < cc.runCount; i++) {
    if (!keep[cc.runLabel[i]!]) continue;
    const row = cc.y[i]! * cc.width;
    visit(row + cc.x0[i]!, row + cc.x1[i]!);
  }
}
