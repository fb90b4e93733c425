// Runs of one packed colour along the rows of clean (unsmoothed) art, so that the per-pixel steps of the quantize
// stage (Lab index, blend detection, ink samples, labels) work once per run: flat art has long runs (a 1024 px
// icon has 5 000 - 200 000 runs for its million pixels). labOfColours lists them while it scans the pixels; when
// they are too many to be worth their memory (photo-like art) each row is scanned again on demand instead.

/** The runs of every row, in scan order. */
export interface ColourRuns {
  /** Pixel index where each run starts (a row's first pixel always starts one), then the pixel count. */
  starts: Int32Array;
  /** Per row y, the position in `starts` of its first run; `rowFirst[h]` is the run count. */
  rowFirst: Int32Array;
}

/** More runs than this share of the pixels (mean run under 8 px) are not kept. */
export const MAX_RUN_SHARE = 1 / 8;

/**
 * The runs of row y (pixels `y * w` .. `y * w + w - 1`) into `out`: their start indices, then the row's end.
 * Returns the run count. `out` needs w + 1 slots. From `runs` when listed, else by scanning `px`.
 */
export function rowRuns(runs: ColourRuns | null | undefined, px: Uint32Array, y: number, w: number, out: Int32Array): number {
  if (runs) {
    const a = runs.rowFirst[y]!, b = runs.rowFirst[y + 1]!;
    out.set(runs.starts.subarray(a, b + 1));
    return b - a;
  }
  const row = y * w, end = row + w;
  let m = 0;
  for (let i = row; i < end;) {
    out[m++] = i;
    const v = px[i]!;
    i++;
    while (i < end && px[i] === v) i++;
  }
  out[m] = end;
  return m;
}

/**
 * Reads the runs of one row at a time without copying listed ones: after `read(y)`, `list[first]` ..
 * `list[first + count - 1]` are the starts of row y's runs and `list[first + count]` is the row's end.
 */
export class RowReader {
  list: Int32Array;
  first = 0;
  count = 0;
  private readonly buf: Int32Array | null;

  constructor(private readonly runs: ColourRuns | null | undefined, private readonly px: Uint32Array, private readonly w: number) {
    this.buf = runs ? null : new Int32Array(w + 1);
    this.list = runs ? runs.starts : this.buf!;
  }

  read(y: number): void {
    if (this.runs) {
      this.first = this.runs.rowFirst[y]!;
      this.count = this.runs.rowFirst[y + 1]! - this.first;
    } else {
      this.count = rowRuns(null, this.px, y, this.w, this.buf!);
    }
  }
}
