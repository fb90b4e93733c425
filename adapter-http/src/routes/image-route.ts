// postImageRoute(): an image POST endpoint. It runs the straight line of every image POST:
//   body limit (Content-Length, then while streaming) -> auth (key + live account state) -> form ->
//   fields it does not read (X-Ignored-Fields, or 400 under Prefer: handling=strict: unknown-fields.ts) ->
//   options (resolved once, by the op's option table: `resolveOptions`) -> image header probe (format, pixel limit) -> metering (atomic
//   reservation) -> vectorize line (optional) -> engine (takes the resolved value as it is; aborted with the
//   client) -> reply; any error goes
//   through the one error map (http/errors.ts). A reservation is kept (confirmed in the store, before the
//   reply is sent) only when the reply is 2xx; otherwise released.
// With `Prefer: respond-async` (metered routes), everything up to and including the reservation (and the
// vectorize line's place) is the same; then the request becomes a job (jobs/runner.ts): 202 Accepted with
// the job body, and the job runs the rest (`runJob`, the same steps) in whichever process holds it.
import { InkprepError, invalidOption, resolveOptions, type ImageFormat, type OpName, type Resolved, type ResultOf } from '@inkprep/engine';
// Internal: the engine's parse helpers, so the API document describes a route's own validation by running it.
import { validate } from '@inkprep/engine/internals';
import type { Caller } from '../auth/authenticate.js';
import type { Exchange } from '../http/exchange.js';
import { checkImageHeader, type ImageHeader } from '../http/image-header.js';
import { readForm } from '../http/multipart.js';
import { json, type Reply } from '../http/reply.js';
import { reserveUses, type Meter, type Reservation } from '../limits/meter.js';
import type { QueueTurn } from '../queue/turn.js';
import type { AppServices } from '../services.js';
import { authenticateExchange } from './caller.js';
import { releaseAndSettle, sendMetered } from './metered-reply.js';
import { checkIdempotencyKey, claimIdempotency, type IdempotentRun } from './idempotency.js';
import { errorReply } from '../http/errors.js';
import { formOptions, tableFields, type Probes, type RouteDef, type RouteField } from './route-def.js';
import { JOBS_PREFIX, jobsOf, jobView, readPreferences, type JobRun } from '../jobs/index.js';
import { checkSentNames, ignoredFieldsValue, IGNORED_FIELDS_HEADER, queryNames } from './unknown-fields.js';

/** What a POST image handler (and `respond`) receives. */
export interface ImageCall<Options> {
  /** The request's log and signal (a job's, when the call runs as a job). */
  ex: Pick<Exchange, 'log' | 'signal'>;
  app: AppServices;
  caller: Caller;
  /** Text fields as sent (unknown fields included: ignored by validation, listed in X-Ignored-Fields). */
  fields: Record<string, string>;
  /**
   * The uploaded file. The request owns these bytes and never reads them after the engine call, so engine
   * calls pass `{ transfer: true }` (zero-copy; `image` is detached once the engine runs).
   */
  image: Uint8Array;
  /** The file's format and size from its header (read in JS, nothing decoded). */
  info: ImageHeader;
  /** Validated options. */
  options: Options;
  /** Aborts when the client disconnects: pass it to every engine call. */
  signal: AbortSignal;
  /** Milliseconds spent waiting in the vectorize line (0 for other routes). */
  queueMs: number;
  /** The injected clock's now (ms) when the request was admitted. */
  now: number;
  /** True when the call runs as an asynchronous job (`Prefer: respond-async`), not for a waiting client. */
  job?: boolean;
}

/** Fields shared by both kinds of image POST route. */
export interface ImageRouteBase<Options> {
  /** Full path, e.g. `/api/v1/scan`. */
  path: string;
  /** Name recorded in usage events and logs; default the path's last segment. */
  endpoint?: string;
  /** Largest `image` file in bytes (413 `image_too_large` while streaming); default config.maxUploadBytes (50 MB). */
  maxBytes?: number | ((app: AppServices) => number);
  /** Largest image in pixels, checked from the header (413 `image_too_large` with maxPixels, pixels). Default config.maxPixels. */
  maxPixels?: number | ((call: { app: AppServices; options: Options; caller: Caller }) => number | Promise<number>);
  /** Accepted formats (400 `unsupported_format` otherwise); default PNG, JPEG, WebP. */
  formats?: readonly ImageFormat[];
  /** What the call counts against: `'daily'` (default), `{ fairUse: 'remove_bg' | 'upscale' }` (daily + account cap), or `'none'`. */
  meter?: Meter;
  /**
   * How many uses the call counts (default 1): POST /mockup/batch counts one per image. All are reserved at
   * admission (429 naming what is needed and what is left when the limit cannot take them all) and kept or
   * released together.
   */
  uses?: (options: Options) => number;
  /** Run one at a time through the vectorize line (429 `queue_full` when it is full). */
  queue?: 'vectorize';
  /** Field values the API document describes the validation with (default one run with no fields). */
  probes?: Probes;
  /**
   * Pass the request's AbortSignal to the engine task (op routes), so a client that leaves stops the work.
   * Default false: with Piscina 5, many concurrent tasks carrying a signal on a small pool stalled for
   * seconds (32 concurrent scans: 10 s vs 0.1 s without), and aborting a running task stops its worker
   * (a restart reloads every op module). Set it for long ops that run one at a time (vectorize). Short
   * ops finish and their result is dropped when the client has left; the reservation is released.
   */
  abortEngine?: boolean;
  /**
   * Files come as a repeated field `name` (up to `max` parts, all of them together within maxBytes) instead of
   * one `image`; `pack` turns them into the op's one input. Only POST /gangsheet has this allowance.
   */
  repeatedFile?: { name: string; max: number; maxFieldBytes: number; pack(files: readonly Uint8Array[]): Uint8Array };
}

/** An image POST backed by one engine op: `respond` turns the op's result into the reply. */
export interface OpImageRoute<K extends OpName> extends ImageRouteBase<Resolved<K>> {
  op: K;
  respond(result: ResultOf<K>, call: ImageCall<Resolved<K>>): Reply | Promise<Reply>;
}

/** An image POST with its own handler (e.g. upscale: engine + storage); `validate` checks the fields first. */
export interface CustomImageRoute<Options> extends ImageRouteBase<Options> {
  op?: undefined;
  /** The op whose option table lists this route's form fields (its HTTP fields) for the API document. */
  options?: OpName;
  /** Validate the text fields (throw `invalidOption(field, ...)`); runs before metering. */
  validate(fields: Record<string, string>): Options;
  handle(call: ImageCall<Options>): Promise<Reply>;
}

const ALL_FORMATS: readonly ImageFormat[] = ['png', 'jpeg', 'webp'];

/** Longest `Prefer: wait=` honoured (seconds): the 202 is held at most this long for the job to finish. */
export const MAX_PREFER_WAIT_S = 60;
/** Longest callback_url accepted (characters). */
const MAX_CALLBACK_URL = 2048;

type AnySpec = OpImageRoute<OpName> | CustomImageRoute<unknown>;

/** What admission makes of a request: resolved options, the pixel limit, the first file's header, the op's input. */
interface Prepared {
  options: unknown;
  maxPixels: number;
  info: ImageHeader;
  image: Uint8Array;
}

/** The file parts as the route takes them (400 `missing_image` when absent or empty). */
function uploadsOf(spec: AnySpec, form: { image?: { bytes: Uint8Array } | null; files: readonly { bytes: Uint8Array }[] }): Uint8Array[] {
  const repeated = spec.repeatedFile;
  if (repeated) {
    const uploads = form.files.map((f) => f.bytes);
    if (uploads.length === 0 || uploads.some((b) => b.byteLength === 0)) throw new InkprepError('missing_image', `A design file is missing or empty: send each as a file part named ${repeated.name}`);
    return uploads;
  }
  if (!form.image || form.image.bytes.byteLength === 0) throw new InkprepError('missing_image', 'The image file is missing: send it as a file part named image');
  return [form.image.bytes];
}

/** Options, pixel limit and every file's header (format, pixel limit), checked before anything is metered or decoded. */
async function prepare(spec: AnySpec, app: AppServices, caller: Caller, fields: Record<string, string>, uploads: Uint8Array[], formats: readonly ImageFormat[]): Promise<Prepared> {
  // Form fields are text: only textOptions lets the engine parse numbers and booleans from text. An op
  // route resolves them here, once; the engine takes the resolved value as it is.
  const options: unknown = spec.op !== undefined ? resolveOptions(spec.op, formOptions(spec.op, fields)) : spec.validate(fields);
  const maxPixels = typeof spec.maxPixels === 'function'
    ? await spec.maxPixels({ app, options: options as never, caller })
    : spec.maxPixels ?? app.config.maxPixels;
  const headers: ImageHeader[] = [];
  for (const u of uploads) headers.push(await checkImageHeader(u, { maxPixels, formats }));
  const image = spec.repeatedFile ? spec.repeatedFile.pack(uploads) : uploads[0]!;
  return { options, maxPixels, info: headers[0]!, image };
}

/** The work after admission and the line: the engine op (or the route's handler) to the reply. */
async function execute(spec: AnySpec, call: ImageCall<unknown>, maxPixels: number, turn: QueueTurn | null, engineSignal: AbortSignal | undefined): Promise<Reply> {
  if (spec.op === undefined) return spec.handle(call);
  const result = await call.app.engine.run(spec.op, call.image, call.options as Resolved<OpName>, { signal: engineSignal, maxPixels, transfer: true });
  turn?.release();
  return spec.respond(result as never, call as never);
}

/** Join the vectorize line for a job: resolves once it has its place (429 `queue_full` otherwise); the turn comes later. */
async function joinLine(app: AppServices, signal: AbortSignal): Promise<{ turn: Promise<QueueTurn> }> {
  let placed!: () => void;
  const hasPlace = new Promise<void>((r) => (placed = r));
  const turn = app.vectorizeQueue.acquire(signal, placed);
  turn.catch(() => undefined); // awaited by the job; a rejection before the place is thrown below
  await Promise.race([hasPlace, turn]);
  return { turn }; // wrapped: awaiting a bare promise would wait for the turn itself
}

/** A job's run of an image route: the same steps as the synchronous request after admission. */
async function runAsJob(spec: AnySpec, formats: readonly ImageFormat[], run: JobRun): Promise<Reply> {
  const { app, caller, request, signal } = run;
  const p = await prepare(spec, app, caller, request.fields, request.files, formats);
  let turn: QueueTurn | null = null;
  try {
    if (spec.queue === 'vectorize') turn = run.turn ? await run.turn : await app.vectorizeQueue.acquire(signal);
    await run.started();
    const call: ImageCall<unknown> = {
      ex: { log: run.log, signal }, app, caller, fields: request.fields, image: p.image, info: p.info, options: p.options, signal, queueMs: turn?.waitedMs ?? 0, now: app.clock(), job: true,
    };
    const reply = await execute(spec, call, p.maxPixels, turn, signal);
    // the job's result shows the header its submission's 202 carried (the stored result keeps X- headers)
    const ignored = request.ignored ?? [];
    return ignored.length === 0 ? reply : { ...reply, headers: { ...reply.headers, [IGNORED_FIELDS_HEADER]: ignoredFieldsValue(ignored) } };
  } finally {
    turn?.release();
  }
}

/**
 * An image POST route (multipart `image` + text fields). See the file header for the pipeline.
 * @example
 * postImageRoute({ path: '/api/v1/scan', op: 'scan', respond: (report) => json(report) })
 */
export function postImageRoute<K extends OpName>(spec: OpImageRoute<K>): RouteDef;
export function postImageRoute<Options>(spec: CustomImageRoute<Options>): RouteDef;
export function postImageRoute(spec: AnySpec): RouteDef {
  const endpoint = spec.endpoint ?? spec.path.slice(spec.path.lastIndexOf('/') + 1);
  const formats = spec.formats ?? ALL_FORMATS;
  const table = spec.op ?? spec.options;
  const meter = spec.meter ?? 'daily';
  // Every metered POST takes an Idempotency-Key (issue #30); unmetered ones have no charge to protect.
  const idempotent = meter !== 'none';
  // Every metered POST can run as a job (issue #33, `Prefer: respond-async`).
  const asyncable = meter !== 'none';
  // The document's request fields: the op's table, else the route's own validation run under the recorder.
  const fields = (): RouteField[] => {
    if (spec.op !== undefined) return tableFields(spec.op);
    if (spec.options !== undefined) return tableFields(spec.options);
    return validate.describeFields((p: Record<string, string>) => spec.validate(p), spec.probes ?? [{}]);
  };
  // The fields the route reads: the same list the document shows (and callback_url for a job).
  let knownNames: ReadonlySet<string> | null = null;
  const known = (): ReadonlySet<string> => (knownNames ??= new Set([...fields().map((f) => f.field), ...(asyncable ? ['callback_url'] : [])]));
  return {
    method: 'post',
    path: spec.path,
    meta: {
      kind: 'image', auth: true, meter, formats, idempotent, async: asyncable,
      ...(spec.queue ? { queue: spec.queue } : {}),
      ...(spec.repeatedFile ? { repeatedFile: { name: spec.repeatedFile.name, max: spec.repeatedFile.max } } : {}),
      ...(table !== undefined ? { op: table } : {}),
      fields,
    },
    ...(asyncable ? { runJob: (run: JobRun) => runAsJob(spec, formats, run) } : {}),
    handle(ex, app) {
      const maxBytes = typeof spec.maxBytes === 'function' ? spec.maxBytes(app) : spec.maxBytes ?? app.config.maxUploadBytes;
      const idemKey = idempotent && ex.idempotencyKey !== '' ? ex.idempotencyKey : null;
      const prefs = asyncable ? readPreferences(ex.prefer) : null;
      const asJob = prefs?.respondAsync === true;
      // With a key, the file is hashed as it streams in (the request's identity), not read a second time.
      const repeated = spec.repeatedFile;
      const body = readForm(ex, { maxFileBytes: maxBytes, digest: idemKey !== null, ...(repeated ? { repeatedFile: { name: repeated.name, max: repeated.max }, maxFieldBytes: repeated.maxFieldBytes } : {}) });
      let reservation: Reservation | null = null;
      let turn: QueueTurn | null = null;
      let idem: IdempotentRun | null = null;
      const run = async (): Promise<void> => {
        const caller = await authenticateExchange(ex, app);
        if (idemKey !== null) checkIdempotencyKey(idemKey);
        const form = await body.done;
        // Fields the route does not read: listed in X-Ignored-Fields from here on, or 400 under Prefer: handling=strict.
        const ignored = checkSentNames(ex, { fields: Object.keys(form.fields), query: { names: queryNames(ex.query), read: false } }, known(), `POST ${spec.path}`);
        // callback_url (the webhooks module posts the final job there) belongs to a job only.
        const callbackUrl = Object.prototype.hasOwnProperty.call(form.fields, 'callback_url') ? form.fields.callback_url! : null;
        if (callbackUrl !== null) {
          // said plainly: the generic "Expected ... but received <the URL>" made a good URL look like the problem
          if (!asJob) throw new InkprepError('invalid_option', 'callback_url is taken only with the header Prefer: respond-async (the finished job is posted there): add the header, or leave callback_url out', { field: 'callback_url' });
          const check = jobsOf(app).hooks.checkCallback;
          if (check) await check(callbackUrl);
          else if (callbackUrl === '' || callbackUrl.length > MAX_CALLBACK_URL) throw invalidOption('callback_url', `a URL of 1 to ${MAX_CALLBACK_URL} characters`, callbackUrl);
        }
        if (idemKey !== null) {
          const claimed = await claimIdempotency(app, ex, caller, idemKey, form, asJob);
          if ('replay' in claimed) {
            ex.send(claimed.replay); // the first answer, without running or counting again
            return;
          }
          idem = claimed.run;
        }
        const uploads = uploadsOf(spec, form);
        const p = await prepare(spec, app, caller, form.fields, uploads, formats);
        if (ex.aborted) return;
        const now = app.clock();
        reservation = await reserveUses(app.store, caller, endpoint, meter, now, spec.uses ? spec.uses(p.options as never) : 1, app.settler);
        if (ex.aborted) return;
        if (asJob) {
          const reply = await submitJob(caller, form.fields, uploads, callbackUrl, ignored);
          const run = idem as IdempotentRun | null;
          await run?.recordSuccess(reply, null); // the 202 is stored; the use stays with the job
          ex.send(reply);
          return;
        }
        if (spec.queue === 'vectorize') turn = await app.vectorizeQueue.acquire(ex.signal);
        const call: ImageCall<unknown> = {
          ex, app, caller, fields: form.fields, image: p.image, info: p.info, options: p.options, signal: ex.signal, queueMs: turn?.waitedMs ?? 0, now,
        };
        const reply = await execute(spec, call, p.maxPixels, turn, spec.abortEngine ? ex.signal : undefined);
        turn?.release();
        const run = idem as IdempotentRun | null;
        await sendMetered(ex, reply, reservation, run ? (r, kept) => run.recordSuccess(r, kept) : undefined);
      };
      // The request becomes a job: its place in the line (vectorize), the stored request and the job row,
      // then 202 with the job body (after up to `wait` seconds when the job finishes sooner).
      const submitJob = async (caller: Caller, fields: Record<string, string>, uploads: Uint8Array[], callbackUrl: string | null, ignored: string[]): Promise<Reply> => {
        const runner = jobsOf(app);
        const controller = new AbortController();
        const lineTurn = spec.queue === 'vectorize' ? (await joinLine(app, controller.signal)).turn : null;
        let job;
        try {
          job = await runner.submit({ operation: spec.path, caller, request: { fields, files: uploads, ...(ignored.length > 0 ? { ignored } : {}) }, reservation, callbackUrl, turn: lineTurn, controller });
        } catch (err) {
          controller.abort();
          lineTurn?.then((t) => t.release(), () => undefined);
          throw err;
        }
        reservation = null; // the job owns the use now: confirmed when it succeeds, released otherwise
        const wait = prefs?.waitSeconds ?? null;
        if (wait !== null) await runner.whenFinal(job.id, Math.min(wait, MAX_PREFER_WAIT_S) * 1000);
        const now = wait !== null ? (await app.store.jobs.get(job.id)) ?? job : job;
        return json(await jobView(app.store, app.config.publicUrl, now), 202, {
          Location: `${JOBS_PREFIX}${job.id}`,
          'Preference-Applied': wait !== null ? `respond-async, wait=${wait}` : 'respond-async',
        });
      };
      run()
        .catch(async (err) => {
          const run = idem as IdempotentRun | null;
          if (!run || ex.done) return ex.fail(err); // an unread rest of the body is drained by the Exchange
          // A claimed key stores a deterministic error answer, or is freed, before the reply goes out.
          const { reply, code } = errorReply(err, ex.log, ex.id);
          await run.recordError(err, reply);
          ex.code = code;
          ex.send(reply);
        })
        .finally(async () => {
          (turn as QueueTurn | null)?.release();
          body.stop();
          // Anything not stored (the client left, a failure) frees the key for a retry.
          await (idem as IdempotentRun | null)?.abandon();
          return releaseAndSettle(ex, reservation);
        });
    },
  };
}
