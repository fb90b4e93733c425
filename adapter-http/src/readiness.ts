// GET /readyz: whether this process should get traffic now. Ready = the store answers a trivial query
// within READY_STORE_TIMEOUT_MS and the engine pool accepts work (not closed, its queue not full); during
// shutdown the server answers 503 `shutting_down` before this runs. /healthz stays the cheap liveness check.
import { InkprepError } from '@inkprep/engine';
import type { AppServices } from './services.js';
import { ServiceError } from './errors/registry.js';

/** How long the store's `SELECT 1` may take before the process is reported not ready. */
export const READY_STORE_TIMEOUT_MS = 2_000;

export interface ReadyReport {
  status: 'ready';
  store: { ok: boolean; ms: number };
  engine: { ok: boolean; threads: number; running: number; queued: number; max_queue: number };
}

async function pingStore(app: AppServices): Promise<{ ok: boolean; ms: number; why?: string }> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      app.store.ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${READY_STORE_TIMEOUT_MS} ms`)), READY_STORE_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, ms: Math.round((performance.now() - t0) * 10) / 10 };
  } catch (err) {
    // The server's store wrapper turns an outage into store_unavailable; the driver's own words are its cause.
    const cause = (err as { cause?: unknown }).cause;
    const why = (err as Error).message ?? String(err);
    return { ok: false, ms: Math.round((performance.now() - t0) * 10) / 10, why: cause instanceof Error ? `${why}: ${cause.message}` : why };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Check the store and the engine pool.
 * @throws ServiceError 503 `store_unavailable`, or InkprepError 503 `engine_overloaded` | `shutting_down`, with both checks in the body.
 */
export async function readiness(app: AppServices): Promise<ReadyReport> {
  const store = await pingStore(app);
  const s = app.engine.stats();
  const engineOk = !s.closed && s.queued < s.maxQueue;
  const checks = {
    store: { ok: store.ok, ms: store.ms },
    engine: { ok: engineOk, threads: s.threads, running: s.running, queued: s.queued, max_queue: s.maxQueue },
  };
  if (!store.ok) {
    // The driver's message may name hosts: it goes to the log, not to this unauthenticated reply.
    app.log.warn('readiness: store check failed', { err: store.why, ms: store.ms });
    throw new ServiceError('store_unavailable', 'The store did not answer a trivial query; not ready', checks);
  }
  if (s.closed) throw new InkprepError('shutting_down', 'The engine pool is closed; not ready', checks);
  if (!engineOk) throw new InkprepError('engine_overloaded', `The engine queue is full (${s.queued} of ${s.maxQueue} waiting); not ready`, checks);
  return { status: 'ready', ...checks };
}
