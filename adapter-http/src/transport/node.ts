// The node:http transport: serves the route table where uWebSockets.js has no native build (Node 22, 24)
// or when INKPREP_HTTP=node. Maps IncomingMessage/ServerResponse onto the Wire contract: body chunks with a
// final `last` call, pause/resume, an abort callback when the connection closes before the response was
// flushed, and replies with Content-Length whose completion waits for the socket to take the body.
// Idle keep-alive connections close after `keepAliveTimeoutS` (Node adds a second of its own); replies
// advertise half of it, not Node's default hint of the full timeout (keep-alive.ts says why).
import http, { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { ListenOptions as NetListenOptions } from 'node:net';
import type { Reply } from '../http/reply.js';
import { keepAliveHint } from './keep-alive.js';
import { answerClientError } from './node-client-error.js';
import { PortInUseError, type BodyChunkHandler, type ListenOptions, type Transport, type TransportServer, type Wire } from './types.js';

/** Replies at least this large complete on the socket's 'finish' (the client reads them at its own pace). */
const LARGE_REPLY = 64 * 1024;
const EMPTY = new Uint8Array(0);
/**
 * Node's own defaults, pinned so a Node upgrade does not move them: the request's headers must arrive within
 * 60 s of its first byte, the whole request (body included) within 5 minutes.
 */
const HEADERS_TIMEOUT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 300_000;

/** SO_REUSEPORT for node:http (`reusePort`) exists from Node 22.12 and 23.1. */
export function nodeCanSharePort(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

class NodeWire implements Wire {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly remoteAddress: string;
  readonly ownsChunks = true;
  private abortCb: (() => void) | null = null;

  constructor(private readonly req: IncomingMessage, private readonly res: ServerResponse, private readonly hint: string) {
    this.method = (req.method ?? 'GET').toLowerCase();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q < 0 ? url : url.slice(0, q);
    this.query = q < 0 ? '' : url.slice(q + 1);
    this.remoteAddress = req.socket.remoteAddress ?? '';
    // 'close' also follows a normal finish; only a close before the response was flushed is an abort.
    res.once('close', () => {
      if (!res.writableFinished) this.abortCb?.();
    });
  }

  header(name: string): string {
    const v = this.req.headers[name];
    return v === undefined ? '' : Array.isArray(v) ? v.join(', ') : v;
  }

  onData(cb: BodyChunkHandler): void {
    this.req.on('data', (c: Buffer) => cb(c, false));
    this.req.once('end', () => cb(EMPTY, true));
    this.req.on('error', () => {}); // a reset mid-upload surfaces as the response's 'close'
  }

  pause(): void {
    this.req.pause();
  }

  resume(): void {
    this.req.resume();
  }

  onAborted(cb: () => void): void {
    this.abortCb = cb;
  }

  respond(reply: Reply, requestId: string, closeConnection: boolean, done: () => void): void {
    const res = this.res;
    const body = reply.body;
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    const headers: OutgoingHttpHeaders = { 'Content-Type': reply.contentType, 'Content-Length': length, 'X-Request-Id': requestId, 'X-Content-Type-Options': 'nosniff' };
    if (reply.headers) for (const k in reply.headers) headers[k] = reply.headers[k];
    // Our Keep-Alive header replaces Node's (which would name the full timeout); none where the connection
    // ends with this reply (asked by the pipeline, or by the client's `Connection: close`).
    if (closeConnection) headers.Connection = 'close';
    else if (res.shouldKeepAlive) headers['Keep-Alive'] = this.hint;
    res.writeHead(reply.status, STATUS_CODES[reply.status] ?? (reply.status === 499 ? 'Client Closed Request' : 'Status'), headers);
    // The socket keeps a reference to the body (no copy) and sends it as the client reads: node's own
    // backpressure. A large reply is over when it was flushed, as with uWS tryEnd/onWritable. For HEAD,
    // node:http sends the headers (our Content-Length, the GET body's) and drops the body itself.
    if (length >= LARGE_REPLY) res.once('finish', done);
    res.end(body);
    if (length < LARGE_REPLY) done();
  }

  close(): void {
    this.req.socket.destroy();
  }
}

class NodeServer implements TransportServer {
  readonly kind = 'node' as const;
  constructor(private readonly server: http.Server, readonly port: number) {}
  stopListening(): void {
    this.server.close();
  }
  closeIdle(): void {
    this.server.closeIdleConnections();
  }
}

export const nodeTransport: Transport = {
  kind: 'node',
  listen(opts: ListenOptions, handler: (wire: Wire) => void): Promise<TransportServer> {
    if (opts.sharePort && !nodeCanSharePort()) {
      return Promise.reject(new Error(`Sharing a port between processes on the node:http transport needs Node >= 22.12 (reusePort); this is Node ${process.version}. Use INKPREP_HTTP=uws where uWebSockets.js loads, or one process per port.`));
    }
    const hint = keepAliveHint(opts.keepAliveTimeoutS);
    const server = http.createServer(
      { keepAliveTimeout: opts.keepAliveTimeoutS * 1000, headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      (req, res) => handler(new NodeWire(req, res, hint)),
    );
    // Requests the parser refuses (bad Content-Length, Content-Length with Transfer-Encoding) get a JSON error.
    server.on('clientError', answerClientError);
    // Without reusePort a second bind fails with EADDRINUSE, which is what `serve` wants.
    const listenOpts: NetListenOptions & { reusePort?: boolean } = { host: opts.host, port: opts.port, ...(opts.sharePort ? { reusePort: true } : {}) };
    return new Promise((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        reject(err.code === 'EADDRINUSE' ? new PortInUseError(opts.host, opts.port) : err);
      };
      server.once('error', onError);
      server.listen(listenOpts, () => {
        server.off('error', onError);
        const addr = server.address();
        resolve(new NodeServer(server, typeof addr === 'object' && addr ? addr.port : opts.port));
      });
    });
  },
};
