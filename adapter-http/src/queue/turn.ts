// A held turn in a vectorize line, the same for the in-process and the PostgreSQL line: how long the caller
// waited, and a release that frees the slot once, however often it is called (the route releases early
// after the engine call and again in its cleanup).

/** A held turn: call `release()` exactly once when the conversion ends (extra calls are ignored). */
export interface QueueTurn {
  /** Milliseconds spent waiting in line (0 when the slot was free). */
  waitedMs: number;
  release(): void;
}

/**
 * A turn granted now. `enqueuedAt`: when the caller joined the line on the `now` clock, or null when the
 * slot was free at once; `leave` frees the slot (called on the first release only).
 */
export function grantTurn(enqueuedAt: number | null, now: () => number, leave: () => void): QueueTurn {
  let released = false;
  return {
    waitedMs: enqueuedAt === null ? 0 : Math.max(0, now() - enqueuedAt),
    release: () => {
      if (released) return;
      released = true;
      leave();
    },
  };
}
