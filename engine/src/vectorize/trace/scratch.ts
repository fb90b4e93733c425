// Reusable scratch arrays for the per-path stages (one trace runs at a time per thread): a photo yields
// hundreds of thousands of small paths, and allocating a dozen typed arrays for each one made garbage
// collection the largest cost. Each slot has one user at a time; contents are stale, callers write first.

const i32: (Int32Array | undefined)[] = [];
const f64: (Float64Array | undefined)[] = [];
const u8: (Uint8Array | undefined)[] = [];

export enum Slot {
  RunStart,
  RunX,
  RunY,
  RunDir,
  FourAt,
  NextRun,
  Lon,
  Reach,
  Back,
  Prev,
  Bwd,
  Pen,
  SumX,
  SumY,
  SumXX,
  SumXY,
  SumYY,
  Quad,
  TurnSign,
  TurnAngle,
  AreaPrefix,
  CurveBest,
  CurvePen,
  CurveFrom,
  Merged,
  NormalX,
  NormalY,
  EdgeLen,
}

function grow(n: number, have: number): number {
  return Math.max(n, have * 2, 256);
}

export function scratchI32(slot: Slot, n: number): Int32Array {
  let a = i32[slot];
  if (!a || a.length < n) i32[slot] = a = new Int32Array(grow(n, a ? a.length : 0));
  return a;
}

export function scratchF64(slot: Slot, n: number): Float64Array {
  let a = f64[slot];
  if (!a || a.length < n) f64[slot] = a = new Float64Array(grow(n, a ? a.length : 0));
  return a;
}

export function scratchU8(slot: Slot, n: number): Uint8Array {
  let a = u8[slot];
  if (!a || a.length < n) u8[slot] = a = new Uint8Array(grow(n, a ? a.length : 0));
  return a;
}
