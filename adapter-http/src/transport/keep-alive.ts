// How long an idle keep-alive connection stays open, and what the server tells clients about it. A client
// that sends on a connection just as the server closes it gets a socket error ('other side closed',
// ECONNRESET) for a request the server never read, and a POST is not retried for it. Clients that read the
// `Keep-Alive: timeout=N` hint retire their pooled sockets before N (undici at N - 2 s, Node's http.Agent at
// N - 1 s), so the server advertises half of the earliest time it may close: a client whose own timer runs
// late on a busy machine still has that much slack before the server's close.

/** `INKPREP_KEEPALIVE_TIMEOUT_S` unset: node:http closes an idle connection after this long (uWS's own value). */
export const DEFAULT_KEEPALIVE_TIMEOUT_S = 10;

/**
 * uWebSockets.js closes an idle connection after its compiled-in 10 s, counted on a 4 s tick: 8 to 12 s
 * after the last response (measured 8.7-11.3 s). Not configurable from JavaScript.
 */
export const UWS_IDLE_TIMEOUT_S = 10;
const UWS_EARLIEST_CLOSE_S = 8;

/** The `Keep-Alive` header value of a server that may close an idle connection `earliestCloseS` after a response. */
export function keepAliveHint(earliestCloseS: number): string {
  return `timeout=${Math.max(1, Math.floor(earliestCloseS / 2))}`;
}

/** What uWS advertises: half of its earliest close. */
export const UWS_KEEPALIVE_HINT = keepAliveHint(UWS_EARLIEST_CLOSE_S);
