// Scratch buffers for one vectorize run: the full-size per-pixel arrays of the prepare and quantize stages (the
// RGBA copy, the trace mask, the colour index, the labels, the blend map; on noisy art also the per-pixel Lab and
// the smoothing's work arrays) reused from one run to the next on the same thread instead of allocated fresh. A
// fresh multi-megabyte array costs a page fault per 4 KB page on first touch and its external memory drives extra
// garbage collections; at 1 MP these arrays are 12 MB a run (31 MB on noisy art).
// A Scratch belongs to one run at a time: `withScratch` lends the thread's spare one (a fresh one when it is
// already lent, e.g. a nested run), and nothing a run returns may be a view of it. Contents are whatever the last
// user left: every user writes each element it reads.
// Memory: a spare keeps at most SCRATCH_KEEP_BYTES (its largest arrays are dropped until it fits: all of them for
// clean art over about 2.9 MP) and is dropped after SCRATCH_IDLE_MS without a run, so an idle worker holds nothing
// and a 100 MP run never pins its arrays.

/** Largest spare kept between runs. */
export const SCRATCH_KEEP_BYTES = 32 << 20;
/** A spare unused this long is dropped. */
export const SCRATCH_IDLE_MS = 5000;

/** Named, growable typed-array storage (uninitialised contents). */
export class Scratch {
  private readonly buffers = new Map<string, ArrayBuffer>();

  /** Bytes held. */
  get bytes(): number {
    let b = 0;
    for (const buf of this.buffers.values()) b += buf.byteLength;
    return b;
  }

  /** Drop the largest buffers until at most `limit` bytes are held. */
  trim(limit: number): void {
    let held = this.bytes;
    for (const [name, buf] of [...this.buffers].sort((a, b) => b[1].byteLength - a[1].byteLength)) {
      if (held <= limit) break;
      this.buffers.delete(name);
      held -= buf.byteLength;
    }
  }

  private take(name: string, bytes: number): ArrayBuffer {
    let buf = this.buffers.get(name);
    if (!buf || buf.byteLength < bytes) {
      // Drop the old one first so both are never held at once.
      this.buffers.delete(name);
      buf = new ArrayBuffer(bytes);
      this.buffers.set(name, buf);
    }
    return buf;
  }

  int8(name: string, n: number): Int8Array {
    return new Int8Array(this.take(name, n), 0, n);
  }

  uint8(name: string, n: number): Uint8Array {
    return new Uint8Array(this.take(name, n), 0, n);
  }

  uint8Clamped(name: string, n: number): Uint8ClampedArray {
    return new Uint8ClampedArray(this.take(name, n), 0, n);
  }

  uint16(name: string, n: number): Uint16Array {
    return new Uint16Array(this.take(name, n * 2), 0, n);
  }

  uint32(name: string, n: number): Uint32Array {
    return new Uint32Array(this.take(name, n * 4), 0, n);
  }

  int32(name: string, n: number): Int32Array {
    return new Int32Array(this.take(name, n * 4), 0, n);
  }

  float32(name: string, n: number): Float32Array {
    return new Float32Array(this.take(name, n * 4), 0, n);
  }
}

let spare: Scratch | null = null;
let idleTimer: ReturnType<typeof setTimeout> | null = null;

/** Run `fn` with this thread's spare Scratch (or a fresh one), kept afterwards for the next run (see limits above). */
export function withScratch<T>(fn: (scratch: Scratch) => T): T {
  const s = spare ?? new Scratch();
  spare = null;
  if (idleTimer) { clearTimeout(idleTimer); idleTimer = null; }
  try {
    return fn(s);
  } finally {
    s.trim(SCRATCH_KEEP_BYTES);
    spare = s;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => { spare = null; idleTimer = null; }, SCRATCH_IDLE_MS);
    idleTimer.unref?.();
  }
}
