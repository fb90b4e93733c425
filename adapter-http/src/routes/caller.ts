// Who calls: the API key of an exchange checked against the store (401/402/403 on failure), and the caller
// noted on the exchange for the log. Shared by GET and image POST routes.
import { authenticate, authenticateSync, type Caller } from '../auth/authenticate.js';
import { extractKey } from '../auth/keys.js';
import type { Exchange } from '../http/exchange.js';
import type { AppServices } from '../services.js';

/** Authenticate the caller of an exchange (401/402/403 on failure) and note who it is for the log. */
export async function authenticateExchange(ex: Exchange, app: AppServices): Promise<Caller> {
  const caller = await authenticate(app.store, extractKey(ex.apiKeyHeader, ex.authorizationHeader));
  ex.accountId = caller.account.id;
  ex.keyId = caller.key.id;
  return caller;
}

/** Synchronous authentication when the store allows it (undefined otherwise); notes the caller for the log. */
export function authenticateExchangeSync(ex: Exchange, app: AppServices): Caller | undefined {
  const caller = authenticateSync(app.store, extractKey(ex.apiKeyHeader, ex.authorizationHeader));
  if (caller) {
    ex.accountId = caller.account.id;
    ex.keyId = caller.key.id;
  }
  return caller;
}
