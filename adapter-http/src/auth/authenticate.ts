// Authentication against live account state, on every request (status reads included):
// missing/invalid/revoked key -> 401 `unauthorized`; suspended account -> 403 `account_suspended`;
// no active Business plan -> 402 `plan_inactive` with `plan`. Reactivating the plan revives the same keys.
import { InkprepError } from '@inkprep/engine';
import type { Account, ApiKey, Store } from '../store/types.js';
import { hashKey, sameHash } from './keys.js';
import { ServiceError } from '../errors/registry.js';

/** Who is calling: the key (never its secret) and the account as read now. */
export interface Caller {
  key: ApiKey;
  account: Account;
}

/** Whether an account may call the API: Business plan and active status. */
export function hasApiAccess(account: Account): boolean {
  return account.plan === 'business' && account.status === 'active';
}

/** Throw the error an account state gives (403 suspended, 402 otherwise) or return when it may call. */
export function assertAccountActive(account: Account): void {
  if (account.status === 'suspended') throw new ServiceError('account_suspended', 'The account is suspended');
  if (!hasApiAccess(account)) {
    const why = account.status === 'lapsed' ? 'has lapsed' : `is ${account.plan}, not business`;
    throw new ServiceError('plan_inactive', `The account's plan ${why}; the API needs an active Business plan`, { plan: account.plan });
  }
}

/**
 * Check a presented key against the store and the account's live state.
 * @throws ServiceError `unauthorized` | `account_suspended` | `plan_inactive`
 */
export async function authenticate(store: Store, secret: string | null): Promise<Caller> {
  const hash = presentedHash(secret);
  return check(await store.findKeyByHash(hash), hash);
}

/**
 * The same check answered synchronously, for stores that offer `findKeyByHashSync` (SQLite); returns
 * undefined when the store has no synchronous lookup (the caller then uses `authenticate`).
 */
export function authenticateSync(store: Store, secret: string | null): Caller | undefined {
  if (!store.findKeyByHashSync) return undefined;
  const hash = presentedHash(secret);
  return check(store.findKeyByHashSync(hash), hash);
}

function presentedHash(secret: string | null): string {
  if (!secret) throw new ServiceError('unauthorized', 'API key missing: send x-api-key or Authorization: Bearer');
  if (secret.length > 256) throw new ServiceError('unauthorized', 'API key invalid');
  return hashKey(secret);
}

function check(found: { key: ApiKey; account: Account; hash: string } | null, hash: string): Caller {
  // The index lookup finds the row; the stored hash is compared again in constant time before trusting it.
  if (!found || !sameHash(found.hash, hash)) throw new ServiceError('unauthorized', 'API key invalid');
  if (found.key.revokedAt !== null) throw new ServiceError('unauthorized', 'API key revoked');
  assertAccountActive(found.account);
  return { key: found.key, account: found.account };
}
