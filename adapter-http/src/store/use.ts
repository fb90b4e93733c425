// An admitted use as a confirmation needs it, in a module of its own: the store's interface (types.ts) and the
// idempotency keys (idempotency.ts, whose answers are stored in the transaction that confirms a use) both
// name it, and types.ts already depends on idempotency.ts.

/** Endpoints with a per-account fair-use cap (rolling 24 h, across all keys of the account). */
export type FairUseName = 'remove_bg' | 'upscale';

/** An admitted use, as `confirm` needs it: the event, and what to record again if a sweep released it meanwhile. */
export interface ReservedUse {
  eventId: number;
  accountId: string;
  keyId: string;
  endpoint: string;
  fairUse: FairUseName | null;
  /** The reservation's `now`. */
  at: number;
}
