// The uWebSockets.js transport (Node 20, where its native build loads). One catch-all handler hands each
// request to the pipeline as a Wire; routing happens in the pipeline, so both transports route alike.
// uWS rules kept here: the HttpRequest is only valid inside the handler call; a handler that returns
// without having ended the response must attach onAborted; body memory is reused after each onData call;
// large replies go out with tryEnd/onWritable so a slow reader never makes uWS buffer the whole body.
// uWS closes idle connections on its own fixed timer and sends no Keep-Alive hint: every reply that keeps
// the connection says how long it may be reused (keep-alive.ts). uWS's getHeader gives a header's first
// line only: the list headers the pipeline reads are joined from all their lines, as node:http does.
import type { HttpRequest, HttpResponse, us_listen_socket } from 'uWebSockets.js';
import { ERROR_CODES } from '../errors/registry.js';
import { JSON_TYPE, statusLine, type Reply } from '../http/reply.js';
import { UWS_IDLE_TIMEOUT_S, UWS_KEEPALIVE_HINT } from './keep-alive.js';
import { LIST_HEADERS, joinLines } from './list-headers.js';
import { assertPortFree } from './port.js';
import { PortInUseError, type BodyChunkHandler, type ListenOptions, type Transport, type TransportServer, type Wire } from './types.js';
import type { UwsModule } from './uws-load.js';

const LARGE_REPLY = 64 * 1024;

class UwsWire implements Wire {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly remoteAddress: string;
  readonly ownsChunks = false;
  private req: HttpRequest | null;
  /** The list headers' lines joined (list-headers.ts), from one pass over the headers, made when first needed. */
  private lists: ReadonlyMap<string, string> | null;
  private abortCb: (() => void) | null = null;
  private armed = false;
  private ended = false;
  /** The client sent `Connection: close` (read now: the request is gone by the time the reply is written). */
  private readonly clientCloses: boolean;

  constructor(private readonly res: HttpResponse, req: HttpRequest, lists: ReadonlyMap<string, string> | null) {
    this.req = req;
    this.lists = lists;
    this.method = req.getMethod();
    this.path = req.getUrl();
    this.query = req.getQuery() ?? '';
    // Read now: the response (and its socket) may be gone by the time the request line is logged.
    this.remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
    this.clientCloses = /\bclose\b/i.test(req.getHeader('connection'));
  }

  header(name: string): string {
    if (!this.req) return '';
    // getHeader sees the first line of a header only; a list header's later lines are part of its value.
    if (LIST_HEADERS.has(name)) return (this.lists ??= scanHeaders(this.req).lists).get(name) ?? '';
    return this.req.getHeader(name);
  }

  /** Called by the transport when the handler returned: the request is gone; arm onAborted if still open. */
  handlerReturned(): void {
    this.req = null;
    if (!this.ended) this.arm();
  }

  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    this.res.onAborted(() => this.abortCb?.());
  }

  onData(cb: BodyChunkHandler): void {
    this.res.onData((ab, last) => cb(new Uint8Array(ab), last));
  }

  pause(): void {
    this.res.pause();
  }

  resume(): void {
    this.res.resume();
  }

  onAborted(cb: () => void): void {
    this.abortCb = cb;
  }

  respond(reply: Reply, requestId: string, closeConnection: boolean, done: () => void): void {
    const res = this.res;
    const body = reply.body;
    res.cork(() => {
      res.writeStatus(statusLine(reply.status));
      res.writeHeader('Content-Type', reply.contentType);
      res.writeHeader('X-Request-Id', requestId);
      res.writeHeader('X-Content-Type-Options', 'nosniff');
      if (reply.headers) for (const k in reply.headers) res.writeHeader(k, reply.headers[k]!);
      // uWS writes `Connection: close` when it ends with a close, except where the client asked for it (it
      // closes then, without saying so); a connection that stays open says how long it may be reused.
      if (this.clientCloses) res.writeHeader('Connection', 'close');
      else if (!closeConnection) res.writeHeader('Keep-Alive', UWS_KEEPALIVE_HINT);
      if (this.method === 'head') {
        // The GET reply's length, no body. uWS 20.30: endWithoutBody(length) closes the connection without a
        // response, so the header is written by hand and endWithoutBody() adds no Content-Length of its own.
        // A close asked for (shutdown) is left to the server's closing of connections.
        res.writeHeader('Content-Length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
        res.endWithoutBody();
        this.ended = true;
        done();
        return;
      }
      if (typeof body === 'string' || body.byteLength < LARGE_REPLY) {
        res.end(body, closeConnection);
        this.ended = true;
        done();
        return;
      }
      this.stream(body, closeConnection, done);
    });
  }

  private stream(body: Uint8Array, closeConnection: boolean, done: () => void): void {
    const res = this.res;
    const total = body.byteLength;
    const start = res.getWriteOffset();
    const [, fin] = res.tryEnd(body, total);
    if (fin) {
      this.ended = true;
      done();
      return;
    }
    // Still sending: a client that leaves now must be noticed (the handler may still be running).
    this.arm();
    let gone = false;
    const prev = this.abortCb;
    this.abortCb = () => {
      gone = true;
      prev?.();
    };
    res.onWritable((offset) => {
      if (gone) return true;
      const [ok, end] = res.tryEnd(body.subarray(offset - start), total);
      if (end) {
        this.ended = true;
        if (closeConnection) res.close();
        done();
      }
      return ok;
    });
  }

  close(): void {
    this.res.close();
  }
}

/** What one pass over a request's header lines finds. */
interface HeaderLines {
  /** How many Content-Length lines came. */
  contentLengths: number;
  /** Each list header's lines joined (list-headers.ts); absent when the header was not sent. */
  lists: Map<string, string>;
}

/**
 * Every header line of the request in one pass (uWS names arrive lower-case). Counted: Content-Length,
 * because uWS 20.30 reads the first of several (node:http refuses them) and a body framed two ways is
 * refused on both transports; joined: the list headers, of which getHeader would give the first line only.
 */
function scanHeaders(req: HttpRequest): HeaderLines {
  let contentLengths = 0;
  const lists = new Map<string, string>();
  req.forEach((k, v) => {
    if (k === 'content-length') contentLengths++;
    else if (LIST_HEADERS.has(k)) lists.set(k, joinLines(lists.get(k), v));
  });
  return { contentLengths, lists };
}

/** 400 malformed_request with its JSON body, then close (the body's framing cannot be trusted). */
function refuseMalformed(res: HttpResponse, message: string): void {
  res.cork(() => {
    res.writeStatus(statusLine(ERROR_CODES.malformed_request.status));
    res.writeHeader('Content-Type', JSON_TYPE);
    res.writeHeader('X-Content-Type-Options', 'nosniff');
    res.end(JSON.stringify({ error: message, code: 'malformed_request' }), true);
  });
}

class UwsServer implements TransportServer {
  readonly kind = 'uws' as const;
  constructor(private readonly uws: UwsModule, private readonly socket: us_listen_socket, readonly port: number) {}
  stopListening(): void {
    this.uws.us_listen_socket_close(this.socket);
  }
  closeIdle(): void {
    // uWS closes idle keep-alive connections itself after 10 s; the process exit closes the rest.
  }
}

/** The uWS transport over an already loaded native module (see uws-load.ts). */
export function createUwsTransport(uws: UwsModule): Transport {
  return {
    kind: 'uws',
    async listen(opts: ListenOptions, handler: (wire: Wire) => void): Promise<TransportServer> {
      if (opts.keepAliveTimeoutS !== UWS_IDLE_TIMEOUT_S) {
        throw new Error(`INKPREP_KEEPALIVE_TIMEOUT_S=${opts.keepAliveTimeoutS}, but uWebSockets.js closes idle connections after its own ${UWS_IDLE_TIMEOUT_S} s, which cannot be changed; use INKPREP_HTTP=node for another idle timeout, or leave the variable unset`);
      }
      // uWS binds with SO_REUSEPORT: without this probe a second server would share the port silently.
      if (!opts.sharePort) await assertPortFree(opts.host, opts.port);
      const app = uws.App();
      app.any('/*', (res, req) => {
        // Requests that may carry a body are walked once here; a GET or HEAD only if the pipeline asks for a
        // list header (X-Forwarded-For behind a trusted proxy), so the common GET walks nothing.
        const method = req.getMethod();
        const lines = method === 'get' || method === 'head' ? null : scanHeaders(req);
        if (lines && lines.contentLengths > 1) {
          refuseMalformed(res, 'Content-Length was sent more than once');
          return;
        }
        const wire = new UwsWire(res, req, lines?.lists ?? null);
        handler(wire);
        wire.handlerReturned();
      });
      const socket = await new Promise<us_listen_socket | false>((resolve) => app.listen(opts.host, opts.port, (s) => resolve(s)));
      if (!socket) throw opts.port !== 0 ? new PortInUseError(opts.host, opts.port) : new Error(`Cannot listen on ${opts.host}:${opts.port}`);
      return new UwsServer(uws, socket, uws.us_socket_local_port(socket));
    },
  };
}
