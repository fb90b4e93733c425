// When a failed delivery is tried again: exponential backoff with jitter, inside a bounded window. The n-th
// retry waits first * 2^(n-1), capped at `max`, then drawn uniformly from its upper half ("equal jitter":
// never less than half the nominal wait, so a flapping receiver is not hammered, yet processes that failed
// together spread out). No attempt is scheduled after the window's end (`giveUpAt`); one due just before it
// starts when the dispatcher next wakes, which on a busy machine can be a few milliseconds past the end.

export interface BackoffPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
}

/** Delay after the `attempts`-th failed attempt (1 = the first), ms; `random` in [0, 1). */
export function retryDelayMs(attempts: number, p: BackoffPolicy, random: () => number = Math.random): number {
  const nominal = Math.min(p.maxDelayMs, p.firstDelayMs * 2 ** Math.min(attempts - 1, 40));
  return Math.round(nominal / 2 + random() * (nominal / 2));
}

/** When the next attempt is due after the `attempts`-th failed at `now`, or null: the window is over. */
export function nextAttemptAt(attempts: number, now: number, giveUpAt: number, p: BackoffPolicy, random?: () => number): number | null {
  const at = now + retryDelayMs(attempts, p, random);
  return at <= giveUpAt ? at : null;
}
