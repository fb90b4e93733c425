// The webhook sender of one process: stores a job's completion as a delivery (enqueue), then makes due
// attempts, its own and those of any other process sharing the store (a process that died, or one idle while
// another is busy), each taken with a lease so exactly one process makes it. It wakes when the earliest
// pending delivery is due, and at least every `pollMs` to see other processes' new ones. Every attempt is
// recorded on the delivery (store/webhooks.ts); a 2xx ends it; a refused address (url-policy.ts) ends it as
// failed; anything else is retried with backoff (backoff.ts) until the window ends.
// The outbox sweep: at most every `pollMs` it also stores the delivery of every final job with a callback_url
// that has none (finished within the retry window), so a completion whose enqueue never happened (the process
// died between finishing the job and enqueueing, or the insert failed) is still sent. A job has at most one
// delivery (unique in the store), so the sweep and the runner's hook racing store it once.
import { randomBytes } from 'node:crypto';
import type { WebhookConfig } from '../config.js';
import { ServiceError } from '../errors/registry.js';
import type { Logger } from '../log.js';
import type { JobRecord } from '../store/jobs.js';
import type { ClaimedDelivery, WebhookStore } from '../store/webhooks.js';
import { nextAttemptAt } from './backoff.js';
import { sendOnce, type AttemptResult } from './send.js';
import { newWebhookSecret, signatureHeader, signingSecrets } from './signature.js';
import { checkCallbackUrl, resolveTarget, systemResolver, type Resolver } from './url-policy.js';

/** Attempts one process makes at once. */
const MAX_IN_FLIGHT = 8;
/** A claim outlives the attempt's deadline by this much (the recording after it, a busy event loop). */
const LEASE_MARGIN_MS = 30_000;
/** Shortest sleep between two looks at the store (a due time in the past or very near). */
const MIN_WAKE_MS = 20;
/** Jobs the outbox sweep enqueues per pass (the rest on the next). */
const SWEEP_BATCH = 100;

export interface DispatcherOptions {
  store: WebhookStore;
  config: WebhookConfig;
  log: Logger;
  /**
   * Wall clock, ms; default Date.now. Not the app's injectable clock: the signature's `t` is checked by
   * receivers against their own time, and retries are timed by real timers.
   */
  clock?: () => number;
  /** Host name resolution (tests map names to addresses); default the system's. */
  resolve?: Resolver;
  /** Version in the User-Agent. */
  userAgent?: string;
  /** The body a final job's delivery sends (the job's JSON answer); without it there is no outbox sweep. */
  bodyOf?: (job: JobRecord) => unknown;
  /** The clock of the jobs' `finishedAt` (the app's injectable clock), for the sweep's window; default `clock`. */
  jobClock?: () => number;
}

/** A completion to deliver: whose, which job, where, and the job body sent as JSON. */
export interface Completion {
  accountId: string;
  jobId: string;
  callbackUrl: string;
  body: unknown;
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private ticking: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private readonly resolve: Resolver;
  private readonly now: () => number;
  /** When the next outbox sweep is due (ms); 0: at the first tick. */
  private sweepAt = 0;

  constructor(private readonly o: DispatcherOptions) {
    this.resolve = o.resolve ?? systemResolver;
    this.now = o.clock ?? Date.now;
  }

  /** Start looking for due deliveries (at once: a restart picks up what was left). */
  start(): void {
    this.wake(0);
  }

  /**
   * The submission check of a `callback_url` (SSRF policy, url-policy.ts), for the route accepting a job.
   * @throws ServiceError 400 `invalid_callback_url`
   */
  check(callbackUrl: string): void {
    checkCallbackUrl(callbackUrl, this.o.config.allowHosts);
  }

  /**
   * Store a completion's delivery (durable once this resolves) and send it soon; returns the delivery id. A job
   * has one delivery: when it already had one (stored by the outbox sweep or another call), nothing new is
   * stored and that one's id is returned.
   */
  async enqueue(c: Completion): Promise<string> {
    const id = (await this.put(c)) ?? (await this.o.store.deliveriesOf(c.jobId))[0]?.id;
    if (id === undefined) throw new Error(`the delivery of job ${c.jobId} was neither stored nor found`);
    return id;
  }

  /** Store a completion's delivery; its id, or null when the job already had one. */
  private async put(c: Completion): Promise<string | null> {
    const id = 'whd_' + randomBytes(12).toString('hex');
    const now = this.now();
    const stored = await this.o.store.enqueue({ id, accountId: c.accountId, jobId: c.jobId, url: c.callbackUrl, body: JSON.stringify(c.body), now, giveUpAt: now + this.o.config.retryForMs });
    if (!stored) return null;
    this.wake(0);
    return id;
  }

  /** The outbox sweep (see the top): enqueue the final jobs with a callback_url and no delivery; returns how many were stored. */
  async sweep(): Promise<number> {
    const bodyOf = this.o.bodyOf;
    if (!bodyOf) return 0;
    let stored = 0;
    // Within the retry window only: an older completion would be given up at once, and a delivery pruned by
    // housekeeping (ended, 40 days old) must not be stored again.
    const since = (this.o.jobClock ?? this.now)() - this.o.config.retryForMs;
    for (const job of await this.o.store.undelivered(since, SWEEP_BATCH)) {
      if (job.callbackUrl === null) continue;
      const id = await this.put({ accountId: job.accountId, jobId: job.id, callbackUrl: job.callbackUrl, body: bodyOf(job) });
      if (id !== null) {
        stored++;
        this.o.log.warn('webhook delivery stored by the outbox sweep (its enqueue at completion was lost)', { job: job.id, delivery: id });
      }
    }
    return stored;
  }

  /** Delete deliveries that ended before `before` (ms) with their attempts (the server's hourly housekeeping). */
  prune(before: number): Promise<number> {
    return this.o.store.prune(before);
  }

  /** Stop taking deliveries and wait for the attempts running (their outcome is recorded). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking?.catch(() => undefined);
    await Promise.all([...this.inFlight]);
  }

  private wake(ms: number): void {
    if (this.closed) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.ticking = this.tick().finally(() => {
        this.ticking = null;
        if (this.again) {
          this.again = false;
          this.wake(0);
        }
      });
    }, ms);
    this.timer.unref();
  }

  /** Take what is due (up to the free places), start those attempts, and sleep until the next due time. */
  private async tick(): Promise<void> {
    let next = this.o.config.pollMs;
    try {
      if (this.o.bodyOf && this.now() >= this.sweepAt) {
        this.sweepAt = this.now() + this.o.config.pollMs;
        await this.sweep();
      }
      const free = MAX_IN_FLIGHT - this.inFlight.size;
      if (free > 0) {
        const now = this.now();
        const taken = await this.o.store.claimDue(now, free, this.o.config.timeoutMs + LEASE_MARGIN_MS);
        for (const d of taken) {
          const p: Promise<void> = this.attempt(d).catch((err: unknown) => this.o.log.warn('webhook attempt failed to record', { delivery: d.id, err: String(err) }))
            .finally(() => {
              this.inFlight.delete(p);
              this.wake(0);
            });
          this.inFlight.add(p);
        }
      }
      const due = await this.o.store.nextDue();
      if (due !== null) next = Math.min(next, Math.max(0, due - this.now()));
    } catch (err) {
      this.o.log.warn('webhook poll failed', { err: String(err) });
    }
    if (!this.closed) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = null;
        this.wake(0);
      }, Math.max(MIN_WAKE_MS, next));
      this.timer.unref();
    }
  }

  /** One attempt of a claimed delivery, and its record. */
  private async attempt(d: ClaimedDelivery): Promise<void> {
    const n = d.attempts + 1;
    const at = this.now();
    let result: AttemptResult;
    let refused = false;
    try {
      const target = await resolveTarget(d.url, this.o.config.allowHosts, this.resolve);
      const secrets = await this.o.store.secrets(d.accountId, at, newWebhookSecret);
      const sentAt = this.now();
      result = await sendOnce(target, d.body, {
        'content-type': 'application/json',
        'user-agent': this.o.userAgent ?? 'inkprep-webhooks',
        'inkprep-webhook-id': d.id,
        'inkprep-webhook-attempt': String(n),
        'inkprep-signature': signatureHeader(signingSecrets(secrets, sentAt), sentAt, d.body),
      }, this.o.config.timeoutMs, this.now);
    } catch (err) {
      // A refused address is final (the policy will not change its mind); a failed name lookup is retried.
      refused = err instanceof ServiceError && err.code === 'invalid_callback_url';
      const e = err as NodeJS.ErrnoException;
      result = { statusCode: null, error: refused ? `address_not_allowed: ${e.message}` : e.code ? `${e.code}: ${e.message}` : String(e.message ?? err), durationMs: Math.max(0, this.now() - at) };
    }
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const nextAt = ok || refused ? null : nextAttemptAt(n, at + result.durationMs, d.giveUpAt, this.o.config);
    const outcome = ok ? { state: 'delivered' as const } : nextAt === null ? { state: 'failed' as const } : { state: 'pending' as const, nextAt };
    const kept = await this.o.store.recordAttempt(d, { n, at, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs }, outcome);
    const fields = { delivery: d.id, job: d.jobId, attempt: n, status: result.statusCode, error: result.error, ms: result.durationMs };
    if (!kept) this.o.log.warn('webhook attempt outlived its claim', fields);
    else if (outcome.state === 'failed') this.o.log.warn('webhook given up', fields);
    else this.o.log.info(ok ? 'webhook delivered' : 'webhook attempt failed', fields);
  }
}
