// One request/response pair over uWS. Captures what the handler needs from the stack-allocated
// HttpRequest up front, attaches onAborted unless it replied inside the uWS callback, and guarantees: no write after an abort, exactly one
// reply, an AbortSignal that fires when the client leaves (so engine tasks and queue places are dropped),
// corked writes with backpressure for large bodies, one log line and metrics per request.
import { randomBytes } from 'node:crypto';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { Logger } from '../log.js';
import { errorReply } from './errors.js';
import { statusLine, type Reply } from './reply.js';

/** Hooks the server gives each exchange (in-flight tracking, metrics, log). */
export interface ExchangeHooks {
  log: Logger;
  logRequests: boolean;
  onStart(ex: Exchange): void;
  /** Called once when the exchange is over (replied or aborted) and its work has settled. */
  onEnd(ex: Exchange): void;
}

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
  /** Raw query string (without `?`). */
  readonly query: string;
  readonly contentLength: number | null;
  readonly apiKeyHeader: string;
  readonly authorizationHeader: string;
  private childLog: Logger | null = null;
  status = 0;
  code: string | undefined;
  bytesIn = 0;
  /** Account id (never the key secret) for the log line. */
  accountId: string | undefined;
  keyId: string | undefined;
  private abortedFlag = false;
  private replied = false;
  private settled = false;
  private controller: AbortController | null = null;
  private readonly abortHandlers: (() => void)[] = [];

  constructor(readonly res: HttpResponse, req: HttpRequest, route: string, private readonly hooks: ExchangeHooks) {
    this.method = req.getMethod();
    this.path = req.getUrl();
    this.route = route;
    if (this.method === 'get') {
      this.contentType = '';
      this.contentLength = null;
      this.query = req.getQuery() ?? '';
    } else {
      this.contentType = req.getHeader('content-type');
      this.query = '';
      const cl = req.getHeader('content-length');
      this.contentLength = cl && /^\d+$/.test(cl) ? Number(cl) : null;
    }
    this.apiKeyHeader = req.getHeader('x-api-key');
    this.authorizationHeader = req.getHeader('authorization');
    this.id = requestId(req.getHeader('x-request-id'));
    hooks.onStart(this);
  }

  private armed = false;
  /**
   * Attach the uWS abort handler. The server calls this when the route handler returns without having
   * replied (uWS requires it before returning); replies sent synchronously skip it (saves a native handle).
   */
  armAbort(): void {
    if (this.armed || this.responseEnded) return;
    this.armed = true;
    this.res.onAborted(() => {
      this.abortedFlag = true;
      this.controller?.abort();
      for (const h of this.abortHandlers.splice(0)) h();
      if (!this.replied) {
        this.status = 499;
        this.code = 'aborted';
      }
      this.maybeEnd();
    });
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
   * Send a reply (once; ignored after an abort or a previous reply). `closeConnection` ends the
   * keep-alive connection, used when the request body was not read to its end.
   */
  send(reply: Reply, closeConnection = false): void {
    if (this.replied || this.abortedFlag) return;
    this.replied = true;
    this.status = reply.status;
    const res = this.res;
    const body = reply.body;
    res.cork(() => {
      res.writeStatus(statusLine(reply.status));
      res.writeHeader('Content-Type', reply.contentType);
      res.writeHeader('X-Request-Id', this.id);
      if (reply.headers) for (const k in reply.headers) res.writeHeader(k, reply.headers[k]!);
      if (typeof body === 'string' || body.byteLength < 64 * 1024) {
        res.end(body, closeConnection);
        this.finished();
        return;
      }
      this.stream(body, closeConnection);
    });
  }

  /** Reply with the error map's reply for `err` (nothing if the client left). */
  fail(err: unknown, closeConnection = false): void {
    if (this.replied || this.abortedFlag) return;
    const { reply, code } = errorReply(err, this.log, this.id);
    this.code = code;
    this.send(reply, closeConnection);
  }

  /** Large bodies: tryEnd with onWritable so a slow reader never makes us buffer the whole body twice. */
  private stream(body: Uint8Array, closeConnection: boolean): void {
    const res = this.res;
    const total = body.byteLength;
    const start = res.getWriteOffset();
    const [, done] = res.tryEnd(body, total);
    if (done) {
      this.finished();
      return;
    }
    res.onWritable((offset) => {
      if (this.abortedFlag) return true;
      const [ok, fin] = res.tryEnd(body.subarray(offset - start), total);
      if (fin) {
        if (closeConnection) res.close();
        this.finished();
      }
      return ok;
    });
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
    if (this.hooks.logRequests) {
      // Built by hand (hot path): ids, method, code and key ids are plain tokens; the path is escaped.
      let f = ',"req":"' + this.id + '","method":' + JSON.stringify(this.method) + ',"path":' + JSON.stringify(this.path) + ',"status":' + this.status + ',"ms":' + ms;
      if (this.code) f += ',"code":"' + this.code + '"';
      if (this.accountId) f += ',"account":"' + this.accountId + '","key":"' + this.keyId + '"';
      if (this.bytesIn) f += ',"bytes_in":' + this.bytesIn;
      this.hooks.log.infoRaw('request', f);
    }
    this.hooks.onEnd(this);
  }

  /** Milliseconds since the request arrived. */
  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }
}
