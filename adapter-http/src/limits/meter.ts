// Metering: the per-key daily limit on every metered endpoint and the per-account fair-use caps of
// remove-bg and upscale, over a rolling 24 h window, reserved atomically before processing.
//
// What counts: a metered request is reserved when it is admitted (authenticated, body within limits,
// image readable, options valid) and kept only if it succeeds (2xx): `keep()` confirms it in the store
// before the reply is sent. It is released when it ends in any error or the client disconnects first, and
// by the store's sweep when its process died (lease). With the server's settler (settle.ts) a confirmation
// the store cannot take now is queued and retried, so a success during a store outage still counts once.
// A request with an Idempotency-Key keeps its use together with its stored answer (keep(alongside)): one
// store transaction, queued and retried as one during an outage. A request counting several uses (a mockup
// batch) holds them as one ReservedUse (`more`): kept in one transaction, carried whole by a job.
// Requests rejected before processing never count; GET status reads are unmetered.
import { InkprepError } from '@inkprep/engine';
import type { Caller } from '../auth/authenticate.js';
import { WINDOW_MS, monthBounds, type Account, type FairUseName, type MeterState, type ReservedUse, type Store } from '../store/types.js';
import { ServiceError, type CodedError } from '../errors/registry.js';
import { eventIdsOf } from '../store/use.js';
import type { UsageSettler } from './settle.js';

/** What a route counts against: just the key's daily limit, or also an account fair-use cap. */
export type Meter = 'daily' | { fairUse: FairUseName } | 'none';

/**
 * What is stored in the same store transaction as a use's confirmation (an idempotent answer):
 * `commit(use)` confirms `use` (null when unmetered) as Store.confirm does and stores the rest; it may run
 * again after an ambiguous failure. `bytes`: the memory it holds while queued in an outage. `dropped()`:
 * the settler gave it up, nothing was stored.
 */
export interface Alongside {
  commit(use: ReservedUse | null): Promise<unknown>;
  bytes: number;
  dropped(): void;
}

/** A held reservation: `release()` gives the unit back; `keep()` makes it final (resolves once durable). Each at most once. */
export interface Reservation {
  release(): Promise<void>;
  /**
   * Make the use final; with `alongside`, in one store transaction with what it stores. A failure other
   * than an outage rejects; with `alongside` nothing was stored then, and `release()` gives the use back.
   */
  keep(alongside?: Alongside): Promise<void>;
  /** X-RateLimit-* headers of the binding meter, for the 2xx reply (null when unmetered). */
  readonly headers: Readonly<Record<string, string>> | null;
  /** The pending use (null when unmetered): an asynchronous job stores it and confirms it when it succeeds. */
  readonly use: ReservedUse | null;
}

const NOOP: Reservation = {
  release: async () => {},
  keep: async (alongside) => {
    await alongside?.commit(null);
  },
  headers: null,
  use: null,
};

/**
 * The rate-limit headers (docs/artwork-api-v1.md 8.1): `X-RateLimit-Limit` the binding limit,
 * `X-RateLimit-Remaining` uses left after this one, `X-RateLimit-Reset` seconds (rounded up, at least 1)
 * until Remaining next grows, `X-RateLimit-Policy` which limit binds: `daily` (this key, rolling 24 h),
 * `fair_use` (the account's remove-bg/upscale cap, rolling 24 h) or `monthly` (the remove-bg allowance,
 * UTC calendar month).
 */
export function rateLimitHeaders(m: MeterState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(m.max),
    'X-RateLimit-Remaining': String(Math.max(0, m.max - m.used)),
    'X-RateLimit-Reset': String(retrySeconds(m.resetMs)),
    'X-RateLimit-Policy': m.limit,
  };
}

/**
 * The same headers on a limit's 429 (from its body fields, so the two always agree): Limit = `limit`,
 * Remaining 0, Reset = `retry_after_seconds` (= Retry-After). Null for any other error.
 */
export function limitErrorHeaders(err: CodedError): Record<string, string> | null {
  if (err.code !== 'daily_limit_exceeded' && err.code !== 'fair_use_exceeded') return null;
  const { limit, retry_after_seconds: retry, period } = err.details;
  if (typeof limit !== 'number' || typeof retry !== 'number') return null;
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(retry),
    'X-RateLimit-Policy': err.code === 'daily_limit_exceeded' ? 'daily' : period === 'month' ? 'monthly' : 'fair_use',
  };
}

/** The fair-use cap of an account for an endpoint: null = uncapped (always for administrator accounts). */
export function fairUseCap(account: Account, name: FairUseName): number | null {
  if (account.admin) return null;
  return name === 'remove_bg' ? account.removeBgCap : account.upscaleCap;
}

export { monthBounds };

/** Seconds until a unit frees up, rounded up, at least 1. */
function retrySeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * Reserve one use for a caller, atomically (no over-admission under concurrency).
 * @throws ServiceError 429 `daily_limit_exceeded` (limit, used, retry_after_seconds) |
 *   `fair_use_exceeded` (limit, used, retry_after_seconds; `period: "month"` for the remove-bg monthly allowance)
 */
export async function reserveUse(store: Store, caller: Caller, endpoint: string, meter: Meter, now: number, settler?: UsageSettler): Promise<Reservation> {
  if (meter === 'none') return NOOP;
  const fairUse = meter === 'daily' ? null : meter.fairUse;
  const account = caller.account;
  const monthlyLimit = fairUse === 'remove_bg' ? account.removeBgMonthlyAllowance : null;
  // Through the settler (the server's): confirmations survive a store outage, see settle.ts.
  const r = await (settler ?? store).reserve({
    accountId: account.id, keyId: caller.key.id, endpoint, fairUse, now,
    dailyLimit: account.dailyLimit,
    fairUseCap: fairUse ? fairUseCap(account, fairUse) : null,
    monthly: monthlyLimit !== null ? { limit: monthlyLimit, ...monthBounds(now) } : null,
  });
  if (!r.ok) {
    const retry = retrySeconds(r.retryAfterMs);
    if (r.limit === 'daily') {
      throw new ServiceError('daily_limit_exceeded', `Daily request limit of this key reached (${r.used} of ${r.max} in the last 24 hours)`, { limit: r.max, used: r.used, retry_after_seconds: retry });
    }
    if (r.limit === 'monthly') {
      throw new ServiceError('fair_use_exceeded', `Monthly ${endpoint} allowance reached (${r.used} of ${r.max} this month)`, { limit: r.max, used: r.used, retry_after_seconds: retry, period: 'month' });
    }
    throw new ServiceError('fair_use_exceeded', `Fair-use cap of ${endpoint} reached (${r.used} of ${r.max} in the last 24 hours)`, { limit: r.max, used: r.used, retry_after_seconds: retry });
  }
  const use = { eventId: r.eventId, accountId: account.id, keyId: caller.key.id, endpoint, fairUse, at: now };
  return heldUse(store, use, r.meter ? rateLimitHeaders(r.meter) : null, settler);
}

/** The Reservation of an admitted use (all events of `use`, a batch's several included). */
function heldUse(store: Store, use: ReservedUse, headers: Reservation['headers'], settler?: UsageSettler): Reservation {
  let done = false;
  return {
    headers,
    use,
    async release() {
      if (done) return;
      done = true;
      await Promise.all(eventIdsOf(use).map((id) => (settler ?? store).release(id)));
    },
    async keep(alongside) {
      if (done) return;
      done = true;
      if (!alongside) {
        if (settler) await settler.keep(use);
        else await store.confirm(use);
        return;
      }
      const settlement = { commit: () => alongside.commit(use), bytes: alongside.bytes, dropped: () => alongside.dropped() };
      try {
        if (settler) await settler.keep(use, settlement);
        else await settlement.commit();
      } catch (err) {
        done = false; // neither the use nor the answer was stored: release() gives the use back
        throw err;
      }
    },
  };
}

/** The three fairUse fields of GET remove-bg / upscale (spec 2.3, 2.4): all null when uncapped. */
export async function fairUseStatus(store: Store, account: Account, name: FairUseName, now: number): Promise<{ fairUsePerDay: number | null; fairUseUsed: number | null; fairUseRemaining: number | null }> {
  const cap = fairUseCap(account, name);
  if (cap === null) return { fairUsePerDay: null, fairUseUsed: null, fairUseRemaining: null };
  const used = await store.countFairUse(account.id, name, now - WINDOW_MS);
  return { fairUsePerDay: cap, fairUseUsed: used, fairUseRemaining: Math.max(0, cap - used) };
}

/**
 * Reserve `n` uses for one request (POST /mockup/batch: one per image), each atomically as reserveUse does;
 * they are then held as one use (the first event, the others in `more`), kept or released together: an
 * idempotent answer is stored in the transaction that confirms all n, and a job carries all n and confirms
 * them all in its finishing transaction, whichever process finishes it. When the limit cannot take all `n`, those already held are released
 * and the call is refused as a whole, naming what it needs and what is left (nothing is half-admitted).
 * @throws ServiceError 429 `daily_limit_exceeded` | `fair_use_exceeded`, with `needed` and `remaining` added
 */
export async function reserveUses(store: Store, caller: Caller, endpoint: string, meter: Meter, now: number, n: number, settler?: UsageSettler): Promise<Reservation> {
  if (n === 1 || meter === 'none') return reserveUse(store, caller, endpoint, meter, now, settler);
  const held: Reservation[] = [];
  const releaseAll = async () => { await Promise.all(held.map((r) => r.release())); };
  try {
    for (let i = 0; i < n; i++) held.push(await reserveUse(store, caller, endpoint, meter, now, settler));
  } catch (err) {
    await releaseAll();
    if (err instanceof ServiceError && (err.code === 'daily_limit_exceeded' || err.code === 'fair_use_exceeded')) {
      const { limit, used } = err.details;
      // `used` counted the uses this request held at that moment: what was left before it is that many more.
      const remaining = typeof limit === 'number' && typeof used === 'number' ? Math.max(0, limit - used + held.length) : 0;
      const which = err.code === 'daily_limit_exceeded' ? 'the daily request limit of this key' : `the ${err.details.period === 'month' ? 'monthly allowance' : 'fair-use cap'} of ${endpoint}`;
      throw new ServiceError(err.code, `This request needs ${n} uses and ${remaining} ${remaining === 1 ? 'is' : 'are'} left of ${which} (${String(limit)})`, { ...err.details, used: typeof used === 'number' ? used - held.length : used, needed: n, remaining });
    }
    throw err;
  }
  const [first, ...rest] = held.map((r) => r.use!);
  // The last reservation's headers: Remaining is what is left after all n.
  return heldUse(store, { ...first!, more: rest.map((u) => u.eventId) }, held[held.length - 1]!.headers, settler);
}
