// The account store interface: accounts, API keys, usage events, operator settings.
// Narrow and async on purpose, so a PostgreSQL implementation can sit behind the same interface.
// The embedded SQLite implementation is sqlite.ts; openStore() in index.ts picks one.
import type { IdempotencyStore } from './idempotency.js';
import type { FairUseName, ReservedUse } from './use.js';
import type { JobStore } from './jobs.js';
import type { WebhookStore } from './webhooks.js';

/** Plans; only `business` has API access. */
export type Plan = 'free' | 'pro' | 'business';
export const PLANS: readonly Plan[] = ['free', 'pro', 'business'];

/** Account status; only `active` (with plan `business`) has API access. */
export type AccountStatus = 'active' | 'lapsed' | 'suspended';
export const ACCOUNT_STATUSES: readonly AccountStatus[] = ['active', 'lapsed', 'suspended'];

export type { FairUseName, ReservedUse } from './use.js';
export const FAIR_USE_NAMES: readonly FairUseName[] = ['remove_bg', 'upscale'];

/** Default per-key daily request limit (spec 8). */
export const DEFAULT_DAILY_LIMIT = 999_999;

/** Rolling window of every daily limit: 24 hours, not midnight. */
export const WINDOW_MS = 24 * 60 * 60 * 1000;

export interface Account {
  /** `acc_` + 16 hex digits. */
  id: string;
  name: string;
  plan: Plan;
  status: AccountStatus;
  /** Administrator accounts are never fair-use capped. */
  admin: boolean;
  /** Requests per key per rolling 24 h on metered endpoints; default 999,999. */
  dailyLimit: number;
  /** Per-account fair-use caps per rolling 24 h; null = uncapped. */
  removeBgCap: number | null;
  upscaleCap: number | null;
  /** Remove-bg calls per calendar month (UTC) the background provider allows this account; null = no allowance limit. */
  removeBgMonthlyAllowance: number | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/** Fields an operator may change with `account set`. */
export type AccountPatch = Partial<Pick<Account, 'name' | 'plan' | 'status' | 'admin' | 'dailyLimit' | 'removeBgCap' | 'upscaleCap' | 'removeBgMonthlyAllowance'>>;

/** Column of each patchable account field, shared by the SQL implementations (the only names ever put into SQL text). */
export const ACCOUNT_PATCH_COLUMNS: Readonly<Record<keyof AccountPatch, string>> = Object.freeze({
  name: 'name', plan: 'plan', status: 'status', admin: 'admin', dailyLimit: 'daily_limit',
  removeBgCap: 'remove_bg_cap', upscaleCap: 'upscale_cap', removeBgMonthlyAllowance: 'remove_bg_monthly',
});

/** An API key as stored: never the secret itself, only its SHA-256. */
export interface ApiKey {
  /** `key_` + 16 hex digits; safe to show and log. */
  id: string;
  accountId: string;
  /** The first characters of the secret (`ink_live_abcd`), to recognise it in listings. */
  prefix: string;
  createdAt: number;
  /** Milliseconds since the epoch, or null while the key works. */
  revokedAt: number | null;
}

/** A usage reservation request: one metered call by a key (and, for remove-bg/upscale, the account's cap). */
export interface ReserveRequest {
  accountId: string;
  keyId: string;
  /** Endpoint name recorded with the event (e.g. `scan`). */
  endpoint: string;
  /** The fair-use meter this call also counts against, or null. */
  fairUse: FairUseName | null;
  /** Now, in ms since the epoch (injected clock). */
  now: number;
  /** Per-key limit over [now - WINDOW_MS, now]. */
  dailyLimit: number;
  /** Per-account cap for `fairUse` over the window; null = uncapped. */
  fairUseCap: number | null;
  /** Calendar-month allowance for `fairUse` (remove-bg provider); null = none. `monthStart` is the ms of the month's first instant. */
  monthly: { limit: number; monthStart: number; nextMonthStart: number } | null;
}

/**
 * Result of a reservation: admitted or which limit refused it. An admitted use is *pending* (owned by this
 * process) until `confirm` (the work succeeded) or `release` (it failed); pending uses count against every
 * limit. If the process dies, its pending uses are released by the sweep after the lease.
 */
export type ReserveResult =
  | { ok: true; eventId: number; meter: MeterState | null }
  | { ok: false; limit: 'daily' | 'fair_use' | 'monthly'; max: number; used: number; retryAfterMs: number };

/**
 * The limit that binds an admitted use, for the X-RateLimit-* headers: of the meters the call counts against
 * (the key's daily limit; for remove-bg/upscale also the account's fair-use cap when set and the remove-bg
 * monthly allowance when set), the one with the fewest uses left after this one; on a tie the one checked
 * first (daily, fair_use, monthly), which is the one the next call would be refused by. Computed inside
 * the reservation from the counts it already holds plus one index probe for the oldest use. Null only when
 * a store cannot tell (a PostgreSQL function created by an older release of this code).
 */
export interface MeterState {
  limit: 'daily' | 'fair_use' | 'monthly';
  max: number;
  /** Uses counted in its window, this one included. */
  used: number;
  /** Milliseconds until `used` next goes down: the oldest counted use leaves the rolling 24 h window, or the UTC month ends. */
  resetMs: number;
}

/** First instant (ms) of the UTC calendar month containing `now`, and of the next one. */
export function monthBounds(now: number): { monthStart: number; nextMonthStart: number } {
  const d = new Date(now);
  return { monthStart: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), nextMonthStart: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

/** Usage of one account over the current window (for `admin usage` and the status reads). */
export interface UsageSummary {
  accountId: string;
  windowStart: number;
  /** Metered requests per key in the window. */
  perKey: { keyId: string; used: number }[];
  /** Fair-use counts in the window. */
  fairUse: Record<FairUseName, number>;
  /** Remove-bg calls this calendar month (UTC). */
  removeBgThisMonth: number;
  /** Metered requests per endpoint in the window. */
  perEndpoint: Record<string, number>;
}

/**
 * The store. Every method is async (the SQLite implementation answers synchronously inside).
 * Implementations must make `reserve` atomic: two concurrent calls can never both take the last unit.
 */
export interface Store {
  /** Idempotency keys of metered POSTs (store/idempotency.ts): claims and stored answers, shared by every process of the store. */
  readonly idempotency: IdempotencyStore;
  /** Asynchronous jobs (store/jobs.ts): shared by every process of the store. */
  readonly jobs: JobStore;
  /** Webhook secrets and deliveries (store/webhooks.ts), shared by every process of the store. */
  readonly webhooks: WebhookStore;
  /** Create an account (defaults: status active, daily limit 999,999, caps null). */
  createAccount(input: { name: string; plan: Plan; admin?: boolean; now: number }): Promise<Account>;
  getAccount(id: string): Promise<Account | null>;
  listAccounts(): Promise<Account[]>;
  /** Apply a patch; throws `not_found` for an unknown id. */
  updateAccount(id: string, patch: AccountPatch): Promise<Account>;

  /**
   * The first start's account and key, created together and only if the store has no account yet (atomic
   * across processes starting at once on one store); null when an account exists.
   */
  createFirstAccount(input: { name: string; plan: Plan; now: number; key: { hash: string; prefix: string } }): Promise<{ account: Account; key: ApiKey } | null>;
  /** Store a key for an account, given the secret's hash and prefix (the caller generates the secret). */
  insertKey(input: { accountId: string; hash: string; prefix: string; now: number }): Promise<ApiKey>;
  /** The key with this secret hash (and the stored hash, for a constant-time recheck) and its account, revoked or not; null if none. */
  findKeyByHash(hash: string): Promise<{ key: ApiKey; account: Account; hash: string } | null>;
  /**
   * Optional synchronous twin of findKeyByHash for embedded stores (SQLite). When present, status reads
   * answer inside the uWS callback without a promise hop (about 1.5x the throughput); networked stores
   * (PostgreSQL) leave it out and everything works through the async method.
   */
  findKeyByHashSync?(hash: string): { key: ApiKey; account: Account; hash: string } | null;
  listKeys(accountId: string): Promise<ApiKey[]>;
  getKey(id: string): Promise<ApiKey | null>;
  /** Mark revoked (idempotent); returns the key or null if unknown. */
  revokeKey(id: string, now: number): Promise<ApiKey | null>;
  /** Number of accounts (bootstrap checks for an empty store). */
  countAccounts(): Promise<number>;

  /**
   * Atomically check the limits and record one pending usage event, owned by this process (cost independent
   * of the uses in the window: running counts per key and per account).
   */
  reserve(req: ReserveRequest): Promise<ReserveResult>;
  /**
   * Make a pending use final (the work succeeded); resolves once it is durable. Idempotent. A use that a
   * sweep released meanwhile (this process was taken for dead) is recorded again: a success always counts.
   */
  confirm(use: ReservedUse): Promise<void>;
  /** Delete a reserved event (the call failed or the client left). */
  release(eventId: number): Promise<void>;
  /**
   * Release the pending uses of processes that are gone: heartbeat older than the lease, or (at once) a
   * process of this same host whose pid no longer exists. Runs on open and periodically; returns how many.
   */
  sweepReservations(): Promise<number>;
  /**
   * Release this process's own pending uses that it no longer holds: not in `keep` (the reservations still
   * in a request or waiting to be confirmed) and reserved before `before` (ms, the reservation's `now`; so a
   * reservation still on its way back from the store is never taken). They are left by a release or a
   * reservation whose answer was lost while the store was away. Returns how many were released.
   */
  releaseOwnPending(keep: ReadonlySet<number>, before: number): Promise<number>;
  /** Fair-use count of an account in [since, now]. */
  countFairUse(accountId: string, fairUse: FairUseName, since: number): Promise<number>;
  /** Usage of an account in the window ending at `now`. */
  usage(accountId: string, now: number, monthStart: number): Promise<UsageSummary>;
  /** Delete events older than `before` (housekeeping). */
  pruneUsage(before: number): Promise<number>;

  /** Operator setting by name (JSON value), or null when unset. */
  getSetting(name: string): Promise<unknown>;
  setSetting(name: string, value: unknown): Promise<void>;
  listSettings(): Promise<Record<string, unknown>>;

  /** A trivial query (`SELECT 1`), for GET /readyz: rejects when the database cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
