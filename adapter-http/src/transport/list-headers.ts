// Request headers the pipeline reads whose repeated lines are one value: a list header may be sent as
// several lines that mean their values joined with ", " in order (RFC 9110 section 5.3). node:http joins
// them already; uWS's getHeader returns the first line only, so its transport joins these itself.
// Only list headers belong here: a single-value header sent twice (Idempotency-Key, X-Api-Key,
// Content-Length, ...) keeps each transport's own handling, since joining it would make a new value.
// `Connection` is not listed: uWS decides on its own first line whether to close, and the transport's
// `Connection: close` reply header must say what uWS does.

/** Lower-case names of the list headers the pipeline reads (`Wire.header` gives their lines joined). */
export const LIST_HEADERS: ReadonlySet<string> = new Set([
  'prefer', // RFC 7240 section 2: `Prefer: wait=10` and `Prefer: respond-async` are one request for a job
  'x-forwarded-for', // each proxy may add its own line; the client is found from the right of all of them
]);

/** The value of a list header's lines, as node:http joins them (every line counts, an empty one too). */
export function joinLines(prev: string | undefined, line: string): string {
  return prev === undefined ? line : `${prev}, ${line}`;
}
