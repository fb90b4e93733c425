// Fields and query parameters a route does not read. The contract is silent on them, so a request carrying
// them still runs exactly as before (clients may send extra fields), but it is no longer silent: every answer
// after the fields were read lists them in `X-Ignored-Fields`, so `-F sheet_width=13` (meant:
// sheet_width_in) shows up instead of a sheet at the default width. With `Prefer: handling=strict`
// (RFC 7240, read by jobs/prefer.ts) they are a 400 `unknown_field` naming them, with the nearest known name,
// and every answer says `Preference-Applied: handling=strict`.
// The known names are the route's own (RouteMeta.fields: the op's option table, or what the route's
// validation reads), so no second list exists to drift. A POST reads no query parameter at all: any it
// carries is listed as `?name`.
import { ServiceError } from '../errors/registry.js';
import { nearestName } from '../errors/did-you-mean.js';
import type { Exchange } from '../http/exchange.js';
import { readPreferences } from '../jobs/index.js';

/** The response header listing the fields a request sent that its route does not read. */
export const IGNORED_FIELDS_HEADER = 'X-Ignored-Fields';
/** At most this many names are listed (sorted); more end the list with `(+N more)`. */
export const MAX_LISTED_FIELDS = 20;
/** A listed name longer than this (after escaping) is cut and ends with `...`. */
export const MAX_LISTED_NAME = 64;

/** What a request sent that its route does not read: form field names, and query parameter names. */
export interface SentNames {
  fields: Iterable<string>;
  /** Query parameters; `read` false: the route reads none (a POST), so each is listed as `?name`. */
  query: { names: Iterable<string>; read: boolean };
}

/** The query parameter names of a raw query string ('' -> none). */
export function queryNames(query: string): string[] {
  return query === '' ? [] : [...new URLSearchParams(query).keys()];
}

/**
 * A name as it may appear in a header or message: bytes outside `A-Z a-z 0-9 _ . - [ ]` percent-encoded (so
 * no CR, LF, comma or non-ASCII byte can reach the header, and distinct names stay distinct), cut at
 * MAX_LISTED_NAME characters. The empty name is `""`.
 */
export function safeFieldName(name: string): string {
  if (name === '') return '""';
  let out = '';
  for (const b of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9_.\-[\]]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    if (out.length > MAX_LISTED_NAME) return `${out.slice(0, MAX_LISTED_NAME).replace(/%[0-9A-F]?$/, '')}...`;
  }
  return out;
}

/** The unknown names of a request, escaped (safeFieldName), de-duplicated and sorted; query ones as `?name`. */
export function unknownNames(sent: SentNames, known: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const f of sent.fields) if (!known.has(f)) out.add(safeFieldName(f));
  for (const q of sent.query.names) if (!sent.query.read || !known.has(q)) out.add(sent.query.read ? safeFieldName(q) : `?${safeFieldName(q)}`);
  return [...out].sort();
}

/** The X-Ignored-Fields value of (escaped, sorted) names: `a, b` (at most MAX_LISTED_FIELDS, then `(+N more)`). */
export function ignoredFieldsValue(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED_FIELDS);
  if (names.length > shown.length) shown.push(`(+${names.length - shown.length} more)`);
  return shown.join(', ');
}

/** The 400 of `Prefer: handling=strict`: the unknown names, each with the known name it most likely meant. */
export function unknownFieldError(names: readonly string[], known: ReadonlySet<string>, where: string): ServiceError {
  const list = [...known].sort();
  const parts = names.slice(0, MAX_LISTED_FIELDS).map((n) => {
    if (!n.startsWith('?')) {
      const near = nearestName(n, list);
      return { name: n, near, text: near !== undefined ? `${n} (did you mean ${near}?)` : n };
    }
    // a POST's query parameter: never read, even under a known name (the form carries the fields)
    const base = n.slice(1);
    const near = known.has(base) ? base : nearestName(base, list);
    const hint = known.has(base) ? 'send it as a form field' : near !== undefined ? `fields go in the form; did you mean ${near}?` : 'fields go in the form';
    return { name: n, near, text: `query parameter ${base} (${hint})` };
  });
  const more = names.length > parts.length ? ` and ${names.length - parts.length} more` : '';
  const first = parts[0]!;
  const message = `${where} does not read ${parts.length === 1 && !more ? 'the field' : 'the fields'} ${parts.map((p) => p.text).join(', ')}${more}; `
    + `it reads ${list.length > 0 ? list.join(', ') : 'no field'}. Drop ${parts.length === 1 && !more ? 'it' : 'them'}, or send the request without Prefer: handling=strict to have unknown fields ignored (listed in ${IGNORED_FIELDS_HEADER})`;
  return new ServiceError('unknown_field', message, { field: first.name, fields: ignoredFieldsValue(names), ...(first.near !== undefined ? { suggestion: first.near } : {}) });
}

/**
 * Check what a request sent against its route's known names, once the fields are read: under
 * `Prefer: handling=strict` an unknown one throws 400 `unknown_field`; otherwise every later answer of the
 * exchange lists them in X-Ignored-Fields. Returns the unknown names (escaped) for the job path.
 */
export function checkSentNames(ex: Exchange, sent: SentNames, known: ReadonlySet<string>, where: string): string[] {
  const names = unknownNames(sent, known);
  if (ex.prefer !== '' && readPreferences(ex.prefer).strict) {
    ex.addReplyHeader('Preference-Applied', 'handling=strict');
    if (names.length > 0) throw unknownFieldError(names, known, where);
    return names;
  }
  if (names.length > 0) ex.addReplyHeader(IGNORED_FIELDS_HEADER, ignoredFieldsValue(names));
  return names;
}
