// The `Prefer` request header (RFC 7240): the preferences a client states, of which the service honours
// `respond-async` (answer 202 with a job instead of holding the connection) and `wait` (with
// respond-async: hold the 202 up to that many seconds, so a short job's body is already final), and
// `handling=strict` (a field or query parameter the operation does not read is 400 `unknown_field` instead of
// being ignored; on every route: routes/unknown-fields.ts).
// Grammar (RFC 7240 section 2): preferences separated by commas, each `token [= word] *( ; param )`, names
// case-insensitive, values tokens or quoted strings; a preference named twice counts the first time.

/** What the service reads from a Prefer header. */
export interface Preferences {
  respondAsync: boolean;
  /** `wait=` seconds (a non-negative integer), or null when absent or malformed. */
  waitSeconds: number | null;
  /** `handling=strict` (RFC 7240 section 4.4); `handling=lenient`, the default, asks for nothing. */
  strict: boolean;
}

/** Split on `sep` outside double-quoted strings (with backslash escapes). */
function splitOutsideQuotes(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted && ch === '\\' && i + 1 < s.length) {
      cur += ch + s[++i]!;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === sep && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function unquote(v: string): string {
  const t = v.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).replace(/\\(.)/g, '$1') : t;
}

/** Every preference of a header value, name (lower-case) -> value ('' without one), first occurrence kept. */
export function parsePreferences(header: string): Map<string, string> {
  const prefs = new Map<string, string>();
  for (const item of splitOutsideQuotes(header, ',')) {
    const first = splitOutsideQuotes(item, ';')[0]!; // parameters after ';' are not used by any preference read here
    const eq = first.indexOf('=');
    const name = (eq < 0 ? first : first.slice(0, eq)).trim().toLowerCase();
    if (!name || prefs.has(name)) continue;
    prefs.set(name, eq < 0 ? '' : unquote(first.slice(eq + 1)));
  }
  return prefs;
}

/** The preferences the service honours, from the raw header ('' when absent). */
export function readPreferences(header: string): Preferences {
  if (!header) return { respondAsync: false, waitSeconds: null, strict: false };
  const prefs = parsePreferences(header);
  const wait = prefs.get('wait');
  return {
    respondAsync: prefs.has('respond-async'),
    waitSeconds: wait !== undefined && /^\d{1,6}$/.test(wait) ? Number(wait) : null,
    strict: prefs.get('handling')?.toLowerCase() === 'strict',
  };
}
