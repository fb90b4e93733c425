// The accounts and api_keys rows as both stores read them, mapped to the store's types once, and an account
// patch as both stores write it. The two SQL dialects differ only in how a flag and a time come back
// (SQLite: 0/1 and integers; PostgreSQL: booleans, and BIGINT as text) and in their placeholders, so each
// store passes its conversions.
import { ACCOUNT_PATCH_COLUMNS, type Account, type AccountPatch, type ApiKey, type Plan } from './types.js';

/** An accounts row; `F` is how the dialect returns a flag, `T` a time in ms. */
export interface AccountRow<F, T> {
  id: string; name: string; plan: string; status: string; admin: F; daily_limit: number;
  remove_bg_cap: number | null; upscale_cap: number | null; remove_bg_monthly: number | null; created_at: T;
}

/** An api_keys row; `T` is how the dialect returns a time in ms. */
export interface KeyRow<T> { id: string; account_id: string; hash: string; prefix: string; created_at: T; revoked_at: T | null }

/** How a dialect's flags and times become booleans and numbers. */
export interface RowCodec<F, T> {
  flag(v: F): boolean;
  time(v: T): number;
}

export function toAccount<F, T>(r: AccountRow<F, T>, c: RowCodec<F, T>): Account {
  return {
    id: r.id, name: r.name, plan: r.plan as Plan, status: r.status as Account['status'], admin: c.flag(r.admin),
    dailyLimit: r.daily_limit, removeBgCap: r.remove_bg_cap, upscaleCap: r.upscale_cap,
    removeBgMonthlyAllowance: r.remove_bg_monthly, createdAt: c.time(r.created_at),
  };
}

export function toKey<T>(r: KeyRow<T>, c: Pick<RowCodec<unknown, T>, 'time'>): ApiKey {
  return { id: r.id, accountId: r.account_id, prefix: r.prefix, createdAt: c.time(r.created_at), revokedAt: r.revoked_at === null ? null : c.time(r.revoked_at) };
}

/**
 * The `column = placeholder` assignments of the fields `patch` sets (in its order; unknown fields skipped) and
 * their values. `placeholder(n)` names the n-th value (from 1); `encode` turns a value into the dialect's.
 */
export function accountAssignments(patch: AccountPatch, placeholder: (n: number) => string, encode: (v: unknown) => unknown = (v) => v): { sets: string[]; vals: unknown[] } {
  const cols = ACCOUNT_PATCH_COLUMNS;
  const sets: string[] = [];
  const vals: unknown[] = [];
  for (const [k, v] of Object.entries(patch) as [keyof AccountPatch, unknown][]) {
    if (v === undefined || !(k in cols)) continue;
    vals.push(encode(v));
    sets.push(`${cols[k]} = ${placeholder(vals.length)}`);
  }
  return { sets, vals };
}
