// getRoute(): a GET endpoint (or, with `method: 'delete'`, a DELETE without a body). Authenticated by default, unmetered by default; the status reads answer
// inside the transport's callback when the store can authenticate synchronously.
// Internal: the engine's parse helpers, so the API document describes a route's own validation by running it.
import { validate } from '@inkprep/engine/internals';
import type { Caller } from '../auth/authenticate.js';
import type { Exchange } from '../http/exchange.js';
import type { Reply } from '../http/reply.js';
import { reserveUse, type Meter, type Reservation } from '../limits/meter.js';
import type { AppServices } from '../services.js';
import { authenticateExchange, authenticateExchangeSync } from './caller.js';
import { releaseAndSettle, sendMetered } from './metered-reply.js';
import type { Probes, RouteDef } from './route-def.js';
import { checkSentNames, queryNames } from './unknown-fields.js';

function isPromise<T>(v: T | Promise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

/** What a GET handler receives. */
export interface GetCall<P = undefined> {
  ex: Exchange;
  app: AppServices;
  /** The authenticated caller (null only for routes declared with `auth: false`). */
  caller: Caller | null;
  /** Parsed query parameters. */
  query: URLSearchParams;
  /** The injected clock's now (ms). */
  now: number;
  /** Query parameters validated by the route's `params` (undefined without one). */
  params: P;
}

class GetCallImpl<P> implements GetCall<P> {
  readonly now: number;
  readonly params: P;
  private parsed: URLSearchParams | null = null;
  constructor(readonly ex: Exchange, readonly app: AppServices, readonly caller: Caller | null, parse: ((q: URLSearchParams) => P) | undefined) {
    this.now = app.clock();
    this.params = parse ? parse(this.query) : (undefined as P);
  }
  get query(): URLSearchParams {
    return (this.parsed ??= new URLSearchParams(this.ex.query));
  }
}

/**
 * A GET route. Authenticated by default (status reads too); unmetered.
 * @example getRoute({ path: '/api/v1/vectorize', handle: ({ app }) => json(app.vectorizeQueue.snapshot()) })
 */
export function getRoute<P = undefined>(spec: {
  path: string;
  /** `delete` for the one DELETE endpoint (a job's cancel): the same machinery, no body read. Default `get`. */
  method?: 'get' | 'delete';
  /** Require a key (default true; only /healthz-style routes turn it off). */
  auth?: boolean;
  /**
   * What a call counts against. Default `'none'`: right for the status reads (GET vectorize, remove-bg,
   * upscale), which spec 8 leaves unmetered. Other GET endpoints (listings, searches) count against the
   * per-key daily limit: pass `'daily'` (the unit is kept only for a 2xx reply).
   */
  meter?: Meter;
  /** Name recorded in usage events; default the path's last segment. */
  endpoint?: string;
  /**
   * Validate the query parameters with the engine's parse helpers (e.g. `validate.queryOptions(q)` then
   * `parseText`), before metering: 400 `invalid_option` naming the parameter. The API document describes
   * the parameters by running it (once per probe; default one run with no parameters).
   */
  params?: (query: URLSearchParams) => P;
  probes?: Probes;
  handle(call: GetCall<P>): Reply | Promise<Reply>;
}): RouteDef {
  const auth = spec.auth ?? true;
  const meter = spec.meter ?? 'none';
  const endpoint = spec.endpoint ?? spec.path.slice(spec.path.lastIndexOf('/') + 1);
  const params = spec.params;
  const fields = (): validate.FieldSpec[] => (params ? validate.describeFields((p: Record<string, string>) => params(new URLSearchParams(p)), spec.probes ?? [{}]) : []);
  // The parameters the route reads, as the document lists them: any other is listed in X-Ignored-Fields
  // (400 under Prefer: handling=strict), before the parameters are validated.
  let knownNames: ReadonlySet<string> | null = null;
  const where = `${(spec.method ?? 'get').toUpperCase()} ${spec.path}`;
  const checkQuery = (ex: Exchange): void => {
    if (ex.query === '' && ex.prefer === '') return; // the status reads' hot path: nothing to check
    checkSentNames(ex, { fields: [], query: { names: queryNames(ex.query), read: true } }, (knownNames ??= new Set(fields().map((f) => f.field))), where);
  };
  return {
    method: spec.method ?? 'get',
    path: spec.path,
    meta: {
      kind: 'get', auth, meter, ...(spec.method === 'delete' ? { method: 'delete' as const } : {}),
      fields,
    },
    handle(ex, app) {
      const makeCall = (caller: Caller | null): GetCall<P> => new GetCallImpl(ex, app, caller, params);
      // Fast path (unmetered routes on a store with a synchronous key lookup, e.g. the status reads on
      // SQLite): authenticate and answer inside the transport's callback, with no promise hop.
      if (meter === 'none') {
        let out: Reply | Promise<Reply>;
        try {
          const caller = auth ? authenticateExchangeSync(ex, app) : null;
          if (caller !== undefined) {
            checkQuery(ex);
            out = spec.handle(makeCall(caller));
            if (!isPromise(out)) {
              ex.send(out);
              ex.settle();
              return;
            }
            out.then((r) => ex.send(r), (err: unknown) => ex.fail(err)).finally(() => ex.settle());
            return;
          }
        } catch (err) {
          ex.fail(err);
          ex.settle();
          return;
        }
      }
      let reservation: Reservation | null = null;
      const run = async (): Promise<void> => {
        const caller = auth ? await authenticateExchange(ex, app) : null;
        checkQuery(ex);
        const call = makeCall(caller); // validates the parameters: a 400 is not metered
        if (caller && meter !== 'none') reservation = await reserveUse(app.store, caller, endpoint, meter, app.clock(), app.settler);
        await sendMetered(ex, await spec.handle(call), reservation);
      };
      run()
        .catch((err) => ex.fail(err))
        .finally(() => releaseAndSettle(ex, reservation));
    },
  };
}
