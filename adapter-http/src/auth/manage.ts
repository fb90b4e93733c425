// Key management shared by the admin CLI and the server's bootstrap: create (plan-checked), revoke by id or secret.
import { InkprepError } from '@inkprep/engine';
import type { ApiKey, Store } from '../store/types.js';
import { hasApiAccess } from './authenticate.js';
import { KEY_PREFIX, generateKeySecret, hashKey, keyDisplayPrefix } from './keys.js';
import { ServiceError } from '../errors/registry.js';

/**
 * Create a key for an account and return its secret (shown once; only the hash is stored).
 * Lower plans (and inactive accounts) cannot create keys: throws `plan_inactive` with `plan`.
 * `secret` lets the bootstrap use INKPREP_BOOTSTRAP_KEY instead of a random key.
 */
export async function createApiKey(store: Store, accountId: string, now: number, secret?: string): Promise<{ key: ApiKey; secret: string }> {
  const account = await store.getAccount(accountId);
  if (!account) throw new ServiceError('not_found', `No account ${accountId}`);
  if (!hasApiAccess(account)) {
    throw new ServiceError('plan_inactive', `Keys need an active Business plan; account ${accountId} is ${account.plan} (${account.status})`, { plan: account.plan });
  }
  const s = secret ?? generateKeySecret();
  assertKeySecret(s);
  const key = await store.insertKey({ accountId, hash: hashKey(s), prefix: keyDisplayPrefix(s), now });
  return { key, secret: s };
}

/** Throw `invalid_option` (field `key`) unless a chosen secret is 16 to 256 characters without spaces. */
export function assertKeySecret(s: string): void {
  if (s.length < 16 || s.length > 256 || /\s/.test(s)) throw new InkprepError('invalid_option', 'A key must be 16 to 256 characters without spaces', { field: 'key' });
}

/** Revoke a key given its id (`key_...`) or its secret. Returns the key, or null when unknown. */
export async function revokeApiKey(store: Store, idOrSecret: string, now: number): Promise<ApiKey | null> {
  let id = idOrSecret;
  if (!/^key_[0-9a-f]{16}$/.test(idOrSecret) || idOrSecret.startsWith(KEY_PREFIX)) {
    const found = await store.findKeyByHash(hashKey(idOrSecret));
    if (!found) return null;
    id = found.key.id;
  }
  return store.revokeKey(id, now);
}
