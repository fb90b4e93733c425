// One request/response pair, independent of the HTTP transport (uWS or node:http; see transport/types.ts).
// Captures what the handler needs from the request up front and guarantees: no write after an abort,
// exactly one reply, an AbortSignal that fires when the client leaves (so engine tasks and queue places
// are dropped), one log line and metrics per request. A reply sent before the request body has arrived
// (401/402/403/413/429/400 while the client is still uploading) is delivered and the rest of the body is
// read and discarded up to DRAIN_LIMIT_BYTES: closing a socket with unread data makes the kernel reset it,
// and Node's fetch, browsers and others then lose the answer (EPIPE) before they read it.
import { randomBytes } from 'node:crypto';
import { type HttpErrorCode } from '../errors/registry.js';
import type { Logger } from '../log.js';
import type { Wire } from '../transport/types.js';
import { clientAddress, type TrustedProxies } from './client-address.js';
import { errorReply, EXPECTED_5XX } from './errors.js';
import type { Reply } from './reply.js';

/** Hooks the server gives each exchange (in-flight tracking, metrics, log). */
export interface ExchangeHooks {
  log: Logger;
  logRequests: boolean;
  /** Proxies whose X-Forwarded-For is believed (INKPREP_TRUSTED_PROXY); null: the socket peer is the client. */
  proxies?: TrustedProxies;
  /** Routes whose request lines are `debug` (health and readiness probes, scrapes): hidden at the default level. */
  quietRoutes?: ReadonlySet<string>;
  /** Whether the server is shutting down: every reply then closes its connection. */
  closing?(): boolean;
  onStart(ex: Exchange): void;
  /** Called once when the exchange is over (replied or aborted) and its work has settled. */
  onEnd(ex: Exchange): void;
  /** Sees each reply as it is handed to the transport (ServerOptions.onReply). */
  onReply?(ex: Exchange, reply: Reply): void;
}

/**
 * After an early reply, at most this many further body bytes are read (and dropped) so the client can
 * finish sending and read the answer; a body declared larger gets the reply and a closed connection.
 */
export const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

const EMPTY = Buffer.alloc(0);
const ID_PREFIX = randomBytes(4).toString('hex');
let idCounter = 0;
const VALID_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A request id: the caller's `x-request-id` when it is short and safe, else `<process prefix>-<counter>`. */
function requestId(given: string): string {
  return given && VALID_ID.test(given) ? given : `${ID_PREFIX}-${(++idCounter).toString(36)}`;
}

export class Exchange {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  /** Route pattern for metrics (e.g. `/api/v1/scan`). */
  route: string;
  readonly startedAt = performance.now();
  /** Lower-cased headers the pipeline uses. */
  readonly contentType: string;
  /** Raw query string (without `?`); a POST's too: it reads none, and says so (routes/unknown-fields.ts). */
  readonly query: string;
  readonly contentLength: number | null;
  readonly apiKeyHeader: string;
  readonly authorizationHeader: string;
  /** The `Idempotency-Key` header as sent ('' when absent): read here because uWS headers exist only in the request callback. */
  readonly idempotencyKey: string;
  /**
   * The `Prefer` header as sent, its lines joined ('' when absent; jobs/prefer.ts reads it): `respond-async`
   * makes a metered POST a job; `handling=strict` refuses fields the route does not read, on any method.
   */
  readonly prefer: string;
  /** The client's address (socket peer, or the forwarded client behind a trusted proxy), for the log. */
  readonly client: string;
  private childLog: Logger | null = null;
  status = 0;
  code: string | undefined;
  /** Body bytes the pipeline read (multipart counts them; drained bytes after an early reply do not count). */
  bytesIn = 0;
  /** Account id (never the key secret) for the log line. */
  accountId: string | undefined;
  keyId: string | undefined;
  private abortedFlag = false;
  private replied = false;
  private settled = false;
  private controller: AbortController | null = null;
  private readonly abortHandlers: (() => void)[] = [];
  /** Body state: whether the last chunk arrived, bytes seen from the wire, and the reader. */
  private bodyDone: boolean;
  private bodySeen = 0;
  private bodyAttached = false;
  private bodyConsumer: ((chunk: Buffer, last: boolean) => void) | null = null;
  private bodyPaused = false;
  private draining = false;
  private closeAfterDrain = false;
  /** Headers every reply of this exchange carries from now on (addReplyHeader), null when none. */
  private replyHeaders: Record<string, string> | null = null;

  constructor(private readonly wire: Wire, route: string, private readonly hooks: ExchangeHooks) {
    this.method = wire.method;
    this.path = wire.path;
    this.route = route;
    this.query = wire.query;
    this.prefer = wire.header('prefer');
    if (this.method === 'get' || this.method === 'head') {
      this.contentType = '';
      this.contentLength = null;
      this.bodyDone = true;
    } else {
      this.contentType = wire.header('content-type');
      const cl = wire.header('content-length');
      this.contentLength = cl && /^\d+$/.test(cl) ? Number(cl) : null;
      this.bodyDone = this.contentLength === null ? wire.header('transfer-encoding') === '' : this.contentLength === 0;
    }
    this.apiKeyHeader = wire.header('x-api-key');
    this.authorizationHeader = wire.header('authorization');
    this.idempotencyKey = wire.header('idempotency-key');
    this.id = requestId(wire.header('x-request-id'));
    this.client = clientAddress(wire.remoteAddress, hooks.proxies ? wire.header('x-forwarded-for') : '', hooks.proxies ?? null);
    wire.onAborted(() => this.clientLeft());
    hooks.onStart(this);
  }

  private clientLeft(): void {
    if (this.abortedFlag) return;
    this.abortedFlag = true;
    this.controller?.abort();
    for (const h of this.abortHandlers.splice(0)) h();
    if (!this.replied) {
      this.status = 499;
      this.code = 'aborted';
    }
    this.maybeEnd();
  }

  /** Logger whose lines carry this request's id. */
  get log(): Logger {
    return (this.childLog ??= this.hooks.log.child({ req: this.id }));
  }

  /** The client disconnected (the response must not be touched). */
  get aborted(): boolean {
    return this.abortedFlag;
  }

  /** Whether a reply was sent (or the client left). */
  get done(): boolean {
    return this.replied || this.abortedFlag;
  }

  /** Whether the request body has arrived in full (true for requests without one). */
  get bodyComplete(): boolean {
    return this.bodyDone;
  }

  /** Fires when the client disconnects before the reply; pass it to engine calls and the queue. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedFlag) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** Run `fn` if the client disconnects (at once if it already has). */
  onAbort(fn: () => void): void {
    if (this.abortedFlag) fn();
    else this.abortHandlers.push(fn);
  }

  /**
   * Read the request body: `consumer` gets each chunk (its own copy) and a final call with `last` true.
   * Call once, synchronously in the route handler (uWS delivers nothing to a reader attached later).
   * After a reply the consumer gets nothing more (the rest is drained).
   */
  readBody(consumer: (chunk: Buffer, last: boolean) => void): void {
    this.bodyConsumer = consumer;
    this.attachBody();
  }

  /** Stop reading from the socket until `resumeBody` (backpressure from the body's consumer). */
  pauseBody(): void {
    if (this.bodyPaused || this.draining || this.abortedFlag || this.bodyDone) return;
    this.bodyPaused = true;
    this.wire.pause();
  }

  resumeBody(): void {
    if (!this.bodyPaused || this.abortedFlag) return;
    this.bodyPaused = false;
    this.wire.resume();
  }

  private attachBody(): void {
    if (this.bodyAttached) return;
    this.bodyAttached = true;
    const owns = this.wire.ownsChunks;
    this.wire.onData((chunk, last) => {
      const n = chunk.byteLength;
      this.bodySeen += n;
      if (last) this.bodyDone = true;
      if (this.draining) {
        if (this.bodySeen > DRAIN_LIMIT_BYTES) this.wire.close();
        else if (last && this.closeAfterDrain) this.wire.close();
        return;
      }
      const consumer = this.bodyConsumer;
      if (!consumer) return;
      const own = n === 0 ? EMPTY : owns ? Buffer.from(chunk.buffer, chunk.byteOffset, n) : Buffer.from(chunk);
      consumer(own, last);
    });
  }

  /**
   * Add a header to whatever reply this exchange sends (the result, an error, a replay), once the request
   * has shown something every answer should report (X-Ignored-Fields, Preference-Applied). A list header
   * the reply sets too (the 202's `Preference-Applied: respond-async`) gets both values, the reply's first.
   */
  addReplyHeader(name: string, value: string): void {
    const h = (this.replyHeaders ??= {});
    h[name] = h[name] === undefined ? value : `${h[name]}, ${value}`;
  }

  /**
   * Send a reply (once; ignored after an abort or a previous reply). `closeConnection` ends the
   * keep-alive connection after the reply (and after any unread body was drained).
   */
  send(reply: Reply, closeConnection = false): void {
    if (this.replied || this.abortedFlag) return;
    this.replied = true;
    if (this.replyHeaders) reply = withHeaders(reply, this.replyHeaders);
    this.status = reply.status;
    if (this.hooks.onReply) {
      try {
        this.hooks.onReply(this, reply);
      } catch (err) {
        this.log.error('onReply hook failed', { err: String(err) });
      }
    }
    const closeAfter = closeConnection || (this.hooks.closing?.() ?? false);
    let close = closeAfter;
    if (!this.bodyDone) {
      const left = this.contentLength === null ? 0 : this.contentLength - this.bodySeen;
      if (left > DRAIN_LIMIT_BYTES) {
        close = true; // too much to read only to say no: answer and close
      } else {
        this.draining = true;
        this.closeAfterDrain = closeAfter;
        close = false;
        this.bodyConsumer = null;
        this.attachBody();
        if (this.bodyPaused) {
          this.bodyPaused = false;
          this.wire.resume();
        }
      }
    }
    this.wire.respond(reply, this.id, close, () => this.finished());
  }

  /** Reply with the error map's reply for `err` (nothing if the client left). */
  fail(err: unknown, closeConnection = false): void {
    if (this.replied || this.abortedFlag) return;
    const { reply, code } = errorReply(err, this.log, this.id);
    this.code = code;
    this.send(reply, closeConnection);
  }

  /** Close the connection now (shutdown after the grace period); no-op once replied or aborted. */
  closeConnection(): void {
    if (!this.done) this.wire.close();
  }

  private responseEnded = false;
  private finished(): void {
    this.responseEnded = true;
    this.maybeEnd();
  }

  /** Mark the handler's work as settled (all engine calls finished); the exchange ends when both are done. */
  settle(): void {
    this.settled = true;
    this.maybeEnd();
  }

  private ended = false;
  private maybeEnd(): void {
    if (this.ended || !this.settled || !(this.responseEnded || this.abortedFlag)) return;
    this.ended = true;
    const ms = Math.round((performance.now() - this.startedAt) * 10) / 10;
    const level = this.hooks.quietRoutes?.has(this.route) ? 'debug'
      : this.status >= 500 ? EXPECTED_5XX[this.code as HttpErrorCode] ?? 'error' : 'info';
    if (this.hooks.logRequests && this.hooks.log.enabled(level)) {
      // Built by hand (hot path): ids, route, code and key ids are plain tokens; method, path and client are escaped.
      let f = ',"req":"' + this.id + '","client":' + JSON.stringify(this.client) + ',"method":' + JSON.stringify(this.method) + ',"route":"' + this.route
        + '","path":' + JSON.stringify(this.path) + ',"status":' + this.status + ',"ms":' + ms;
      if (this.code) f += ',"code":"' + this.code + '"';
      if (this.accountId) f += ',"account":"' + this.accountId + '","key":"' + this.keyId + '"';
      if (this.bytesIn) f += ',"bytes_in":' + this.bytesIn;
      this.hooks.log.raw(level, 'request', f);
    }
    this.hooks.onEnd(this);
  }

  /** Milliseconds since the request arrived. */
  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }
}


/** `reply` with `extra` headers added; a header both set is one comma list, the reply's value first. */
function withHeaders(reply: Reply, extra: Readonly<Record<string, string>>): Reply {
  const headers = { ...reply.headers };
  for (const [name, value] of Object.entries(extra)) headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  return { ...reply, headers };
}
