// The end of every metered request, written once for GET and image POST routes: a 2xx reply keeps its
// usage reservation (confirmed before the reply is sent, with the X-RateLimit-* headers), any other reply
// or failure releases it, and the exchange is settled last.
import type { Exchange } from '../http/exchange.js';
import type { Reply } from '../http/reply.js';
import type { Reservation } from '../limits/meter.js';

/** The reply with the reservation's X-RateLimit-* headers added (2xx replies of metered routes). */
function withRateLimit(reply: Reply, reservation: Reservation | null): Reply {
  const h = reservation?.headers;
  return h ? { ...reply, headers: { ...reply.headers, ...h } } : reply;
}

/**
 * Confirm the reservation of a successful reply before sending it, so every 2xx a client receives is
 * counted even if this process dies right after. While the store is away the settler queues the
 * confirmation and resolves (limits/settle.ts: counted once the store is back). Any other store error is
 * logged, not turned into an error reply: the work is done, and the use stays pending (still counted)
 * while this process lives.
 */
export async function keepReservation(reservation: Reservation | null, ex: Exchange): Promise<void> {
  try {
    await reservation?.keep();
  } catch (err) {
    ex.log.error('confirming a usage reservation failed', { err: String(err) });
  }
}

/**
 * Send `reply` unless the client has left; a 2xx keeps the reservation first and carries its headers.
 * `record` sees the reply exactly as it is sent, before it is (an idempotency key stores it there); on a
 * 2xx it is given the reservation and keeps it itself, in one store transaction with the stored answer.
 */
export async function sendMetered(ex: Exchange, reply: Reply, reservation: Reservation | null, record?: (reply: Reply, reservation: Reservation | null) => Promise<void>): Promise<void> {
  if (ex.aborted) return;
  if (reply.status >= 200 && reply.status < 300) {
    const out = withRateLimit(reply, reservation);
    if (record) await record(out, reservation);
    else await keepReservation(reservation, ex);
    ex.send(out);
  } else {
    await record?.(reply, null);
    ex.send(reply);
  }
}

/**
 * After the request, whatever happened: release the reservation (a no-op once kept; a store error is
 * logged, the exchange still settles), then settle the exchange.
 */
export async function releaseAndSettle(ex: Exchange, reservation: Reservation | null): Promise<void> {
  try {
    await reservation?.release();
  } catch (err) {
    ex.log.error('releasing a usage reservation failed', { err: String(err) });
  }
  ex.settle();
}
