// First start on an empty store: create a local Business account and its first key (random, printed
// once, or INKPREP_BOOTSTRAP_KEY when set) so a new user can call the API at once. Several processes
// starting together on one empty store (inkprep cluster, a deployment's replicas) create it exactly once:
// the store makes the check and both inserts one atomic step (createFirstAccount).
import { assertKeySecret } from './auth/manage.js';
import { generateKeySecret, hashKey, keyDisplayPrefix } from './auth/keys.js';
import type { Store } from './store/types.js';

/** What bootstrap did: nothing (store not empty) or the new account and its key secret. */
export type BootstrapResult = { created: false } | { created: true; accountId: string; keyId: string; secret: string; fromEnv: boolean };

export async function bootstrapStore(store: Store, bootstrapKey: string | null, now: number): Promise<BootstrapResult> {
  if ((await store.countAccounts()) > 0) return { created: false }; // the common case: one cheap read
  const secret = bootstrapKey ?? generateKeySecret();
  assertKeySecret(secret);
  const made = await store.createFirstAccount({ name: 'local', plan: 'business', now, key: { hash: hashKey(secret), prefix: keyDisplayPrefix(secret) } });
  if (!made) return { created: false }; // another process created it meanwhile
  return { created: true, accountId: made.account.id, keyId: made.key.id, secret, fromEnv: bootstrapKey !== null };
}
