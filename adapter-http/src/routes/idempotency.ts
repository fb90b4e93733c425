// Idempotency-Key on every metered POST (issue #30; docs/guides/deploying.md "Retrying safely"). A client
// that retries after a timeout or a dropped connection sends the same key; within 24 hours the same request
// (method, path, account, every form field and the file's bytes, hashed while the upload streams in) gets
// the first answer again (status, content type, the reply's headers and body, plus `Idempotent-Replayed:
// true`) from whichever process of the deployment it reaches, without running or counting again.
//
// What is stored: 2xx answers, and 4xx answers the same request would get again (invalid options, an
// unreadable or too large image, not separable). Not stored, so a retry runs again: 429 (a limit or the
// full vectorize line: later it may pass), 5xx and 503 (the service failed, not the request), a
// not_separable whose cause is the model (absent, loading, failed), and requests whose client left before
// the answer (their use is released, as without a key). Bodies up to INLINE_MAX_BYTES live in the store
// row; larger ones (remove-bg, fix, mockup images) go to the result storage like hosted upscale results
// and are deleted with their key by the hourly sweep.
//
// A 2xx answer is stored in the same store transaction that confirms the request's use: either the use is
// counted and a retry gets this answer, or neither (the use is released and a retry runs again, counted
// once). When the store is away at that moment the transaction is queued with the usage settler
// (limits/settle.ts) and the answer goes out; the key stays claimed by this process until the store takes
// it (a retry meanwhile gets 503, then 409 in progress, then the answer), or, if the settler gives it up
// (queue full), the use goes uncounted and the key frees itself when its lease lapses.
import { createHash } from 'node:crypto';
import type { Caller } from '../auth/authenticate.js';
import { ServiceError, isCodedError } from '../errors/registry.js';
import type { Exchange } from '../http/exchange.js';
import type { Form } from '../http/multipart.js';
import type { Reply } from '../http/reply.js';
import type { Alongside, Reservation } from '../limits/meter.js';
import type { AppServices } from '../services.js';
import { keepReservation } from './metered-reply.js';
import { hostingFor, type ResultStorage } from '../storage/index.js';
import { type IdempotencyClaim, type StoredAnswer, type Store } from '../store/index.js';

/**
 * A key: 1 to 255 characters, each a letter, digit or one of `- _ . : ~ + / =` (UUIDs, ULIDs, base64 and
 * base64url values all fit; nothing that needs escaping in a log line).
 */
export const IDEMPOTENCY_KEY_PATTERN = '^[A-Za-z0-9._~:+/=-]{1,255}$';
const KEY_RE = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** Bodies up to this size are stored in the store row; larger ones in the result storage. */
export const INLINE_MAX_BYTES = 256 * 1024;

/** Retry-After of a 409 `idempotency_key_in_progress`: poll again soon, the first request's answer is kept. */
export const IN_PROGRESS_RETRY_SECONDS = 2;

/** The header a replayed answer carries. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** @throws ServiceError 400 `invalid_idempotency_key` */
export function checkIdempotencyKey(key: string): void {
  if (!KEY_RE.test(key)) {
    throw new ServiceError('invalid_idempotency_key', `The Idempotency-Key header must be 1 to 255 characters, each a letter, digit or one of - _ . : ~ + / = (got ${key.length} characters)`);
  }
}

/**
 * SHA-256 hex of what makes two requests the same: method, path, account, every field (sorted) and the
 * file's digest; and whether it asked for a job (`Prefer: respond-async`: its answer is the 202, not the result).
 */
export function requestHash(ex: Exchange, accountId: string, form: Form, asJob = false): string {
  const fields = Object.keys(form.fields).sort().map((k) => [k, form.fields[k]]);
  const parts: unknown[] = [ex.method, ex.path, accountId, fields, form.imageDigest];
  if (asJob) parts.push('respond-async'); // absent otherwise, so keys stored before jobs existed hash the same
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Whether the answer to `err` (a 4xx) is what the same request would get again, so it is stored. */
function deterministicError(err: unknown, status: number): boolean {
  if (status < 400 || status >= 500 || status === 409 || status === 429 || status === 499) return false;
  // not_separable because of the model (absent, loading, failed) may pass later; because of the image it will not.
  return !(isCodedError(err) && err.code === 'not_separable' && err.details.model !== undefined);
}

function storageOf(app: AppServices): ResultStorage {
  return hostingFor(app.config.dataDir, app.config.store.resultRetentionMs).storage;
}

/** The request's claim on its key, while it runs: it ends with its answer stored, or abandoned. */
export class IdempotentRun {
  private settled = false;
  constructor(private readonly app: AppServices, private readonly ex: Exchange, private readonly claim: IdempotencyClaim) {}

  /**
   * Store `reply` (a 2xx) as the key's answer and keep `reservation` in the same store transaction; call
   * before sending it. A non-2xx abandons the claim.
   */
  async recordSuccess(reply: Reply, reservation: Reservation | null): Promise<void> {
    if (reply.status < 200 || reply.status >= 300) return this.abandon();
    const alongside = await this.prepare(reply);
    if (!alongside) return keepReservation(reservation, this.ex);
    try {
      if (reservation) await reservation.keep(alongside);
      else await alongside.commit(null);
    } catch (err) {
      // Neither happened (a store failure other than an outage): the use is released after the request and
      // the key freed, so a retry runs again and is counted once. The answer still goes out.
      this.ex.log.error('storing an idempotent answer with its usage confirmation failed: the use is not counted, a retry runs again', { err: String(err) });
      this.settled = false;
      await this.abandon();
    }
  }

  /** Store the error reply of `err` when it is deterministic; otherwise abandon the claim. Call before sending it. */
  async recordError(err: unknown, reply: Reply): Promise<void> {
    if (!deterministicError(err, reply.status)) return this.abandon();
    const alongside = await this.prepare(reply);
    try {
      await alongside?.commit(null); // no use to confirm: an error's is released
    } catch (e) {
      // The answer still goes out; the key is freed (or, the store away, no longer renewed), so a retry runs again.
      this.ex.log.error('storing an idempotent answer failed', { err: String(e) });
      this.settled = false;
      await this.abandon();
    }
  }

  /** Free the key (no answer worth replaying); a no-op once stored or abandoned. Store errors are logged. */
  async abandon(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    try {
      await this.app.store.idempotency.abandon(this.claim);
    } catch (err) {
      // The claim's lease is no longer renewed: the key frees itself after it.
      this.ex.log.warn('releasing an idempotency key failed', { err: String(err) });
    }
  }

  /**
   * The stored form of `reply` and the store write of it (with a use to confirm, or none), or null when
   * there is nothing to store (already settled, or a large body the result storage refused: the claim is
   * then abandoned).
   */
  private async prepare(reply: Reply): Promise<Alongside | null> {
    if (this.settled) return null;
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
    let bodyRef: string | null = null;
    if (body.byteLength > INLINE_MAX_BYTES) {
      try {
        bodyRef = await storageOf(this.app).put({ bytes: body, contentType: reply.contentType });
      } catch (err) {
        this.ex.log.warn('storing a large idempotent answer failed; a retry will run again', { err: String(err) });
        await this.abandon();
        return null;
      }
    }
    this.settled = true;
    const expiresAt = reply.keepFor === undefined ? null : this.app.clock() + reply.keepFor;
    const answer: StoredAnswer = { status: reply.status, contentType: reply.contentType, headers: { ...reply.headers }, body: bodyRef ? null : body, bodyRef, expiresAt };
    const dropBody = async (): Promise<void> => {
      if (bodyRef) await storageOf(this.app).delete(bodyRef).catch(() => false);
    };
    return {
      bytes: bodyRef ? 0 : body.byteLength,
      commit: async (use) => {
        const kept = await this.app.store.idempotency.complete(this.claim, answer, use);
        if (!kept) {
          this.ex.log.warn('an idempotency claim was taken over before its answer was stored (this process stalled past the lease)');
          await dropBody();
        }
      },
      dropped: () => {
        // The settler gave the answer up with its use (uncounted): free the key for a retry, when the store lets us.
        this.app.store.idempotency.abandon(this.claim).catch(() => undefined);
        void dropBody();
      },
    };
  }
}

/**
 * Look the key up for this request (after the body was read: its hash needs the file) and claim it.
 * @returns the stored answer to replay, or the claim of a request that runs now.
 * @throws ServiceError 422 `idempotency_key_reused` | 409 `idempotency_key_in_progress` (retry_after_seconds)
 */
export async function claimIdempotency(app: AppServices, ex: Exchange, caller: Caller, key: string, form: Form, asJob = false): Promise<{ replay: Reply } | { run: IdempotentRun }> {
  const r = await app.store.idempotency.claim({ accountId: caller.account.id, key, requestHash: requestHash(ex, caller.account.id, form, asJob), now: app.clock() });
  switch (r.kind) {
    case 'mismatch':
      throw new ServiceError('idempotency_key_reused', 'This Idempotency-Key was used with a different request (method, path, fields or file) in the last 24 hours; send a new key with a new request');
    case 'in_progress':
      throw new ServiceError('idempotency_key_in_progress', `A request with this Idempotency-Key is still running; send it again in ${IN_PROGRESS_RETRY_SECONDS} s to get its answer`, { retry_after_seconds: IN_PROGRESS_RETRY_SECONDS });
    case 'replay':
      return { replay: await replayOf(app, r.answer) };
    case 'claimed':
      if (r.staleBodyRef) await storageOf(app).delete(r.staleBodyRef).catch(() => false);
      return { run: new IdempotentRun(app, ex, r.claim) };
  }
}

async function replayOf(app: AppServices, a: StoredAnswer): Promise<Reply> {
  let body = a.body;
  if (body === null && a.bodyRef !== null) body = (await storageOf(app).get(a.bodyRef))?.bytes ?? null;
  // Only when the result storage lost it (deleted by hand, or a result retention under 24 hours).
  if (body === null) throw new Error(`the stored answer of an idempotency key is gone from the result storage (${a.bodyRef ?? 'no body'})`);
  return { status: a.status, contentType: a.contentType, headers: { ...a.headers, [REPLAYED_HEADER]: 'true' }, body };
}

/** Delete the keys past their 24 hours (or their answer's expiry) and their stored bodies (the hourly sweep); returns how many. */
export async function sweepIdempotencyKeys(store: Store, storage: ResultStorage, now: number): Promise<number> {
  const { removed, bodyRefs } = await store.idempotency.sweep(now);
  for (const ref of bodyRefs) await storage.delete(ref).catch(() => false);
  return removed;
}
