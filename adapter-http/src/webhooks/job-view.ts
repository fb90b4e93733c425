// A job's webhook deliveries as its JSON answer shows them (GET /api/v1/jobs/{id}): per delivery its id (the
// `Inkprep-Webhook-Id` receivers saw), state, next attempt, and every attempt with its time, status code or
// error, and duration.
import type { Delivery, DeliveryAttempt } from '../store/webhooks.js';

export interface DeliveryJson {
  id: string;
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  /** ISO time of the next attempt while pending, else null. */
  next_attempt_at: string | null;
  attempts: { at: string; status_code: number | null; error: string | null; duration_ms: number }[];
}

export function deliveryJson(d: Delivery & { attemptLog: readonly DeliveryAttempt[] }): DeliveryJson {
  return {
    id: d.id, url: d.url, state: d.state,
    next_attempt_at: d.state === 'pending' ? new Date(d.nextAt).toISOString() : null,
    attempts: d.attemptLog.map((a) => ({ at: new Date(a.at).toISOString(), status_code: a.statusCode, error: a.error, duration_ms: a.durationMs })),
  };
}
