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
  /**
   * The request's further events when it counts several uses (a mockup batch: one per image), all of the
   * same account, key, endpoint, meter and time. They travel with this one (a job row, an idempotent
   * answer's transaction) and are confirmed in the same transaction, so a batch finished by any process
   * counts all of them, once.
   */
  more?: readonly number[];
}

/** Every event id a use stands for (its own first). */
export function eventIdsOf(use: ReservedUse): number[] {
  return [use.eventId, ...(use.more ?? [])];
}

/** A use as single uses, one per event, for the stores' one-event confirmation. */
export function eachUse(use: ReservedUse): ReservedUse[] {
  return eventIdsOf(use).map((eventId) => ({ eventId, accountId: use.accountId, keyId: use.keyId, endpoint: use.endpoint, fairUse: use.fairUse, at: use.at }));
}
