// The job runner of one server process (issue #33): accepts jobs from the route machinery (after the
// request was admitted exactly as a synchronous one: auth, limits, body, file, options), runs them with
// the route's own executor, and finishes them in the store; takes over the unfinished jobs of processes
// that are gone (their lease lapsed, or they ended on this host: on SQLite, a restart), cancels on DELETE,
// and tells registered hooks (the webhooks module) when a job it finished reaches a final state.
//
// - Durability: the request (fields + files) is written to the result storage and the job row created
//   before the 202; the process that accepted it holds it (lease renewed while it lives) and runs it at once.
// - Counting: the job carries its usage reservation (all of a batch's uses); it is confirmed in the
//   transaction that marks the job succeeded (store/jobs.ts), so a job run again after its holder died
//   counts its uses once. A failed or canceled
//   job releases it (unmetered).
// - Progress: the engine's progress events of the job's engine calls, written at most every
//   PROGRESS_WRITE_MS; each write (and each poll) also tells the runner when the job was canceled elsewhere.
import type { Engine } from '@inkprep/engine';
import type { Caller } from '../auth/authenticate.js';
import { errorReply } from '../http/errors.js';
import type { Reply } from '../http/reply.js';
import type { Reservation } from '../limits/meter.js';
import type { Logger } from '../log.js';
import type { QueueTurn } from '../queue/turn.js';
import type { AppServices } from '../services.js';
import { hostingFor, type ResultStorage } from '../storage/index.js';
import { isFinal, type JobEnd, type JobRecord, type JobUse } from '../store/jobs.js';
import { eventIdsOf } from '../store/use.js';
import { ServiceError } from '../errors/registry.js';
import { errorOf, isJsonReply, jobBody, resultOf, type JobBody } from './body.js';
import { decodeRequest, encodeRequest, type JobRequest } from './request.js';
import { randomBytes } from 'node:crypto';

/** Progress is written to the store at most this often per job. */
export const PROGRESS_WRITE_MS = 500;
/** How often a process looks for orphaned jobs and for its running jobs canceled elsewhere. */
export const DEFAULT_POLL_MS = 1000;

/** What a route's executor receives to run one job. */
export interface JobRun {
  /** The services, with an engine whose calls report the job's progress and stop when it is canceled. */
  app: AppServices;
  caller: Caller;
  request: JobRequest;
  signal: AbortSignal;
  log: Logger;
  /** The vectorize turn taken when the job was accepted (its place in the line), or null: the executor joins the line itself. */
  turn: Promise<QueueTurn> | null;
  /** Call when the work itself starts (after the line): the job becomes `running`. */
  started(): Promise<void>;
}

/** A route's way to run a job: the same steps as its synchronous request after admission, ending in its reply. */
export type JobExecutor = (run: JobRun) => Promise<Reply>;

/** Hooks other modules register (the webhooks module: callback_url delivery). */
export interface JobHooks {
  /**
   * Called once per job, by the process that made it final (succeeded, failed or canceled), with the job
   * body and the stored callback_url. Errors are logged, never retried here (the webhooks module does not
   * rely on it alone: its outbox sweep stores a delivery this hook failed to).
   */
  onFinal: ((job: JobBody, callbackUrl: string | null) => void | Promise<void>)[];
  /** Checks a submitted callback_url (throw a 400 error to refuse it); default: any non-empty text up to 2,048 characters. */
  checkCallback: ((url: string) => void | Promise<void>) | null;
}

/** A job accepted by this process, as the route machinery hands it over. */
export interface Submission {
  operation: string;
  caller: Caller;
  request: JobRequest;
  /** The use reserved at admission; from now on the job owns it. */
  reservation: Reservation | null;
  callbackUrl: string | null;
  /** The place in the vectorize line taken at admission. */
  turn: Promise<QueueTurn> | null;
  /** Aborts that place when the job is canceled (the signal the turn was requested with). */
  controller: AbortController;
}

interface Local {
  controller: AbortController;
  reservation: Reservation | null;
  /** Why the job was stopped here: canceled (DELETE), or the server closing (left for another process). */
  stop: 'canceled' | 'shutdown' | null;
  done: Promise<void>;
}

function newJobId(): string {
  return 'job_' + randomBytes(12).toString('hex');
}

/** An engine whose op calls carry the job's signal and progress sink (the route's own call options kept). */
function jobEngine(engine: Engine, signal: AbortSignal, onProgress: (e: { stage: string; fraction: number }) => void): Engine {
  return new Proxy(engine, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      const fn = v as (...a: unknown[]) => unknown;
      if (prop === 'stats' || prop === 'close') return fn.bind(target);
      return (...args: unknown[]) => {
        const at = prop === 'run' ? 3 : 2;
        while (args.length < at) args.push(undefined);
        args[at] = { ...(args[at] as object | undefined), signal, onProgress };
        return fn.apply(target, args);
      };
    },
  });
}

const RUNNERS = new WeakMap<AppServices, JobRunner>();

/** The runner of a server's services (the route machinery submits to it; routes/jobs.ts reads and cancels). */
export function jobsOf(app: AppServices): JobRunner {
  const r = RUNNERS.get(app);
  if (!r) throw new Error('no job runner for these services (startJobRunner was not called)');
  return r;
}

export class JobRunner {
  readonly hooks: JobHooks = { onFinal: [], checkCallback: null };
  private readonly local = new Map<string, Local>();
  private readonly waiters = new Map<string, (() => void)[]>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private closed = false;

  constructor(private readonly app: AppServices, private readonly executors: ReadonlyMap<string, JobExecutor>, private readonly pollMs = DEFAULT_POLL_MS) {}

  private get storage(): ResultStorage {
    return hostingFor(this.app.config.dataDir, this.app.config.store.resultRetentionMs).storage;
  }

  /** Start polling (at once: jobs left by an ended process, e.g. before a restart on SQLite, resume now). */
  start(): void {
    const tick = (): void => {
      this.timer = null;
      void this.poll().finally(() => {
        if (!this.closed) {
          this.timer = setTimeout(tick, this.pollMs);
          this.timer.unref();
        }
      });
    };
    tick();
  }

  /** Jobs running in this process now. */
  get running(): number {
    return this.local.size;
  }

  /**
   * Store the request and the job (held by this process), start it, and return it as queued.
   * @throws ServiceError 429 `too_many_jobs` when the account has INKPREP_JOBS_MAX_ACTIVE open jobs.
   */
  async submit(s: Submission): Promise<JobRecord> {
    const requestRef = await this.storage.put({ bytes: encodeRequest(s.request), contentType: 'application/octet-stream' });
    const job = {
      id: newJobId(), accountId: s.caller.account.id, keyId: s.caller.key.id, operation: s.operation, createdAt: this.app.clock(),
      requestRef, callbackUrl: s.callbackUrl, use: s.reservation?.use ?? null,
    };
    let created: boolean;
    try {
      created = await this.app.store.jobs.create(job, this.app.config.jobsMaxActive);
    } catch (err) {
      await this.storage.delete(requestRef).catch(() => false);
      throw err;
    }
    if (!created) {
      await this.storage.delete(requestRef).catch(() => false);
      const max = this.app.config.jobsMaxActive;
      throw new ServiceError('too_many_jobs', `This account has ${max} queued or running jobs, the most it may have; wait for one to finish (GET /api/v1/jobs/{id}) and submit again`, { limit: max, retry_after_seconds: 5 });
    }
    this.app.store.jobs.hold();
    const record = (await this.app.store.jobs.get(job.id))!;
    this.launch(record, { caller: s.caller, request: s.request, reservation: s.reservation, turn: s.turn, controller: s.controller });
    return record;
  }

  /** Resolves when the job (run here) is final or after `ms`, whichever first. */
  whenFinal(id: string, ms: number): Promise<void> {
    if (!this.local.has(id) || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      t.unref();
      const list = this.waiters.get(id) ?? [];
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      list.push(done);
      this.waiters.set(id, list);
    });
  }

  /**
   * Cancel a queued or running job of `accountId` (its work is aborted here, or by its holder at its next
   * progress write or poll; its use is released). Null when the account has no such job.
   */
  async cancel(id: string, accountId: string): Promise<{ job: JobRecord; canceled: boolean } | null> {
    const out = await this.app.store.jobs.cancel(id, accountId, this.app.clock());
    if (!out || !out.canceled) return out;
    const here = this.local.get(id);
    if (here) {
      here.stop = 'canceled';
      here.controller.abort();
      await here.reservation?.release().catch(() => undefined);
      here.reservation = null;
    } else if (out.job.use) {
      // Held by another process (or none): its pending uses go now; that process's finish no longer matches.
      await this.releaseUse(out.job.use);
    }
    if (out.job.requestRef) await this.storage.delete(out.job.requestRef).catch(() => false);
    this.final(out.job);
    return out;
  }

  /** Stop polling; wait up to `graceMs` for the jobs running here, then stop the rest (another process, or the next start, runs them again). */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const running = [...this.local.values()];
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(running.map((l) => l.done)), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    for (const l of this.local.values()) {
      l.stop ??= 'shutdown';
      l.controller.abort();
    }
    await Promise.all([...this.local.values()].map((l) => l.done));
  }

  private async poll(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      // Canceled elsewhere (DELETE reached another process): stop the work here.
      for (const [id, l] of this.local) {
        if (l.stop) continue;
        const j = await this.app.store.jobs.get(id);
        if (j && j.status === 'canceled') {
          l.stop = 'canceled';
          l.controller.abort();
        }
      }
      const room = Math.max(0, Math.max(2, this.app.config.threads) - this.local.size);
      if (room === 0 || this.app.draining()) return;
      for (const job of await this.app.store.jobs.takeOrphans(room)) {
        this.app.log.info('job taken over', { job: job.id, operation: job.operation, attempts: job.attempts });
        this.app.store.jobs.hold();
        this.launch(job, null);
      }
    } catch (err) {
      this.app.log.warn('job poll failed', { err: String(err) });
    } finally {
      this.polling = false;
    }
  }

  private launch(job: JobRecord, given: { caller: Caller; request: JobRequest; reservation: Reservation | null; turn: Promise<QueueTurn> | null; controller: AbortController } | null): void {
    const controller = given?.controller ?? new AbortController();
    const l: Local = { controller, reservation: given?.reservation ?? null, stop: null, done: Promise.resolve() };
    this.local.set(job.id, l);
    l.done = this.execute(job, l, given).catch((err: unknown) => {
      this.app.log.error('job runner failed', { job: job.id, err: String(err) });
    }).finally(() => {
      this.local.delete(job.id);
      this.app.store.jobs.drop();
      for (const w of this.waiters.get(job.id) ?? []) w();
      this.waiters.delete(job.id);
    });
  }

  private async execute(job: JobRecord, l: Local, given: { caller: Caller; request: JobRequest; turn: Promise<QueueTurn> | null } | null): Promise<void> {
    const log = this.app.log.child({ job: job.id });
    const signal = l.controller.signal;
    let lastWrite = 0;
    let writing = false;
    const onProgress = (e: { stage: string; fraction: number }): void => {
      const t = Date.now();
      if (writing || t - lastWrite < PROGRESS_WRITE_MS) return;
      lastWrite = t;
      writing = true;
      this.app.store.jobs.progress(job.id, e.fraction, e.stage).then((status) => {
        if ((status === null || status === 'canceled') && !l.stop) {
          l.stop = status === 'canceled' ? 'canceled' : 'shutdown'; // canceled, or taken by another process
          l.controller.abort();
        }
      }, () => undefined).finally(() => {
        writing = false;
      });
    };
    const app: AppServices = { ...this.app, engine: jobEngine(this.app.engine, signal, onProgress) };
    let turn: QueueTurn | null = null;
    try {
      const executor = this.executors.get(job.operation);
      if (!executor) throw new Error(`no route runs jobs of ${job.operation}`);
      const caller = given?.caller ?? (await this.callerOf(job));
      let request = given?.request;
      if (!request) {
        const stored = job.requestRef ? await this.storage.get(job.requestRef) : null;
        if (!stored) throw new Error(`the stored request of job ${job.id} is gone from the result storage`);
        request = decodeRequest(stored.bytes);
      }
      const turnP = given?.turn ?? null;
      const reply = await executor({
        app, caller, request, signal, log,
        turn: turnP ? turnP.then((t) => (turn = t)) : null,
        started: async () => {
          if (!(await this.app.store.jobs.start(job.id, this.app.clock())) && !l.stop) {
            l.stop = 'canceled';
            l.controller.abort();
          }
          if (signal.aborted) throw new Error('job stopped');
        },
      });
      (turn as QueueTurn | null)?.release();
      if (l.stop === 'canceled') return;
      await this.end(job, l, { reply }); // done before a shutdown stopped it: finished all the same
    } catch (err) {
      (turn as QueueTurn | null)?.release();
      if (l.stop === 'canceled') return;
      if (l.stop === 'shutdown') {
        // Left for another process (or the next start): its use is recorded again when that run succeeds.
        await l.reservation?.release().catch(() => undefined);
        if (this.closed) await this.app.store.jobs.release(job.id).catch(() => undefined);
        return;
      }
      await this.end(job, l, { err, log });
    } finally {
      (turn as QueueTurn | null)?.release();
      // A place taken at submission that was never granted (the job failed or was canceled before its turn).
      given?.turn?.then((t) => t.release(), () => undefined);
    }
  }

  private async callerOf(job: JobRecord): Promise<Caller> {
    const [account, key] = await Promise.all([this.app.store.getAccount(job.accountId), this.app.store.getKey(job.keyId)]);
    if (!account || !key) throw new ServiceError('unauthorized', 'The key or account of this job no longer exists');
    return { account, key };
  }

  private async end(job: JobRecord, l: Local, how: { reply: Reply } | { err: unknown; log: Logger }): Promise<void> {
    let reply: Reply;
    if ('reply' in how) reply = how.reply;
    else reply = errorReply(how.err, how.log, job.id).reply;
    const ok = reply.status >= 200 && reply.status < 300;
    let outputRef: string | null = null;
    const end: JobEnd = { status: ok ? 'succeeded' : 'failed', finishedAt: this.app.clock(), result: null, error: null, outputRef: null, outputType: null };
    if (ok) {
      if (!isJsonReply(reply)) {
        const bytes = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
        outputRef = await this.storage.put({ bytes, contentType: reply.contentType });
        end.outputRef = outputRef;
        end.outputType = reply.contentType;
      }
      end.result = JSON.stringify(resultOf(reply));
    } else {
      end.error = JSON.stringify(errorOf(reply));
    }
    let finished = false;
    try {
      finished = await this.app.store.jobs.finish(job.id, end);
    } catch (err) {
      // The holder keeps renewing while this process lives; the next start or another process runs it again.
      this.app.log.error('finishing a job failed', { job: job.id, err: String(err) });
    }
    if (!finished) {
      if (outputRef) await this.storage.delete(outputRef).catch(() => false);
      await l.reservation?.release().catch(() => undefined);
      return;
    }
    if (ok) {
      // Confirmed in the finishing transaction; keep() only settles this process's bookkeeping (idempotent).
      await l.reservation?.keep().catch(() => undefined);
    } else if (l.reservation) {
      await l.reservation.release().catch(() => undefined);
    } else if (job.use) {
      await this.releaseUse(job.use);
    }
    l.reservation = null;
    if (job.requestRef) await this.storage.delete(job.requestRef).catch(() => false);
    const after = await this.app.store.jobs.get(job.id).catch(() => null);
    if (after && isFinal(after.status)) this.final(after);
  }

  /** Release every event of a job's use (a batch's several) that no reservation of this process holds. */
  private async releaseUse(use: JobUse): Promise<void> {
    await Promise.all(eventIdsOf(use).map((id) => this.app.settler.release(id).catch(() => undefined)));
  }

  private final(job: JobRecord): void {
    if (this.hooks.onFinal.length === 0) return;
    const body = jobBody(job, this.app.config.publicUrl);
    for (const h of this.hooks.onFinal) {
      Promise.resolve()
        .then(() => h(body, job.callbackUrl))
        .catch((err: unknown) => this.app.log.error('a job hook failed', { job: job.id, err: String(err) }));
    }
  }
}

/** Create and start the runner of a server's services; `executors` maps a route path to the route's executor. */
export function startJobRunner(app: AppServices, executors: ReadonlyMap<string, JobExecutor>, pollMs?: number): JobRunner {
  const r = new JobRunner(app, executors, pollMs);
  RUNNERS.set(app, r);
  r.start();
  return r;
}
