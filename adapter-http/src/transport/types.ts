// The contract between the request pipeline and an HTTP transport (uWebSockets.js or node:http).
// The pipeline (Exchange, multipart, routes, errors, auth, limits) sees only these types; a transport is a
// small adapter that turns its own request/response objects into a Wire and runs one handler per request.
import { type CliErrorCode } from '../errors/registry.js';
import type { Reply } from '../http/reply.js';

/** Which HTTP implementation serves the route table. */
export type TransportKind = 'uws' | 'node';
/** `INKPREP_HTTP`: a transport, or `auto` (uWS where its @btc-vision build loads, else node:http). */
export type TransportChoice = TransportKind | 'auto';

/** Receives one body chunk; `chunk` is only valid during the call unless the wire says `ownsChunks`. */
export type BodyChunkHandler = (chunk: Uint8Array, last: boolean) => void;

/**
 * One request/response pair as a transport delivers it.
 * Request fields must be read synchronously inside the handler call (uWS requests live on its stack).
 */
export interface Wire {
  /** Lower-case method, e.g. `get`. */
  readonly method: string;
  /** Path without the query string, as sent (not decoded). */
  readonly path: string;
  /** Raw query string without `?` (empty when absent). */
  readonly query: string;
  /**
   * A request header by lower-case name; empty string when absent. The list headers of list-headers.ts come
   * with all their lines joined by ", " on every transport; for a repeated single-value header each transport
   * keeps its own rule (node:http joins most, uWS gives the first line).
   */
  header(name: string): string;
  /** The socket peer's address as the transport reports it (normalised by http/client-address.ts); empty if unknown. */
  readonly remoteAddress: string;
  /** Whether chunks given to `onData` stay valid after the callback (node Buffers do; uWS reuses its memory). */
  readonly ownsChunks: boolean;
  /** Receive the request body; call at most once. The final call has `last` true (possibly with an empty chunk). */
  onData(cb: BodyChunkHandler): void;
  /** Stop reading the body from the socket (backpressure) until `resume`. */
  pause(): void;
  resume(): void;
  /** Called once when the client leaves before the response was fully written. */
  onAborted(cb: () => void): void;
  /**
   * Write the whole response (status, Content-Type, X-Request-Id, extra headers, body with Content-Length),
   * with backpressure for large bodies. `done` runs once the body has been handed to the socket in full
   * (not when the client left first). `closeConnection` closes the connection after the response and says
   * so (`Connection: close`); otherwise the reply advertises the idle timeout (`Keep-Alive: timeout=N`).
   */
  respond(reply: Reply, requestId: string, closeConnection: boolean, done: () => void): void;
  /** Close the connection at once (shutdown, or a body drained past its bound). */
  close(): void;
}

/** A listening transport. */
export interface TransportServer {
  readonly kind: TransportKind;
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** Stop accepting new connections; connections already open keep being served. */
  stopListening(): void;
  /** Close connections that are idle between requests (after the drain; node:http keeps them otherwise). */
  closeIdle(): void;
}

export interface ListenOptions {
  host: string;
  port: number;
  /**
   * Share the port with other processes on purpose (`inkprep cluster`). Otherwise a port already in use is an
   * error, even for uWS, which would share it silently through SO_REUSEPORT.
   */
  sharePort: boolean;
  /**
   * Seconds an idle keep-alive connection stays open after a response (`INKPREP_KEEPALIVE_TIMEOUT_S`); the
   * replies advertise half of it (keep-alive.ts). uWS has its own fixed timer and refuses any other value.
   */
  keepAliveTimeoutS: number;
}

/** A transport implementation: listens and runs `handler` once per request. */
export interface Transport {
  readonly kind: TransportKind;
  listen(opts: ListenOptions, handler: (wire: Wire) => void): Promise<TransportServer>;
}

/** Thrown when the port is taken (the CLI prints it and exits non-zero). */
export class PortInUseError extends Error {
  readonly code: CliErrorCode = 'port_in_use';
  constructor(readonly host: string, readonly port: number) {
    super(`Port ${port} on ${host} is already in use (another inkprep serve, or another program). Stop it or choose another PORT; only \`inkprep cluster\` shares a port, on purpose.`);
    this.name = 'PortInUseError';
  }
}
