// The `Inkprep-Signature` header of a webhook delivery, Stripe's scheme: `t=<unix seconds>,v1=<hex HMAC-SHA256
// of "<t>.<raw body>">`, one v1 per secret that signs (during a rotation's grace both the new and the previous
// secret do, so a receiver still holding the old one keeps verifying). The timestamp is inside the signed
// text, so a receiver rejecting old `t` also rejects replays. Secrets are `whsec_` + 32 random bytes (hex).
import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookSecrets } from '../store/webhooks.js';

/** A new signing secret. */
export function newWebhookSecret(): string {
  return 'whsec_' + randomBytes(32).toString('hex');
}

/** Hex HMAC-SHA256 of `<t>.<body>` under one secret. */
export function signPayload(secret: string, t: number, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
}

/** The secrets signing at `now`: the current one, and the previous one while its grace lasts. */
export function signingSecrets(s: WebhookSecrets, now: number): string[] {
  return s.previous !== null && s.previousUntil !== null && now < s.previousUntil ? [s.current, s.previous] : [s.current];
}

/** The header value for a body sent at `now` (ms). */
export function signatureHeader(secrets: readonly string[], now: number, body: string): string {
  const t = Math.floor(now / 1000);
  return [`t=${t}`, ...secrets.map((s) => `v1=${signPayload(s, t, body)}`)].join(',');
}
