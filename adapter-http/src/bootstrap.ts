// First start on an empty store: create a local Business account and its first key (random, printed
// once, or INKPREP_BOOTSTRAP_KEY when set) so a new user can call the API at once.
import { createApiKey } from './auth/manage.js';
import type { Store } from './store/types.js';

/** What bootstrap did: nothing (store not empty) or the new account and its key secret. */
export type BootstrapResult = { created: false } | { created: true; accountId: string; keyId: string; secret: string; fromEnv: boolean };

export async function bootstrapStore(store: Store, bootstrapKey: string | null, now: number): Promise<BootstrapResult> {
  if ((await store.countAccounts()) > 0) return { created: false };
  const account = await store.createAccount({ name: 'local', plan: 'business', now });
  const { key, secret } = await createApiKey(store, account.id, now, bootstrapKey ?? undefined);
  return { created: true, accountId: account.id, keyId: key.id, secret, fromEnv: bootstrapKey !== null };
}
