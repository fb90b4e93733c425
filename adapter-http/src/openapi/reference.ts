// docs/reference/http-api.md, written from the public OpenAPI document (document.ts) and nothing else: one
// section per operation with its method, path, summary, key and metering, its parameters or form fields
// (type, default, limits, meaning), its answers (status, content types, headers) and the error codes of each
// status. `npm run openapi` (openapi/write.ts) writes it beside docs/openapi.json;
// test/repo/http-reference.test.ts fails when the committed page differs, so the page cannot drift from the
// document any more than the document can drift from the routes.
import type { Schema } from './schemas.js';

type Node = { [k: string]: unknown };

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const node = (v: unknown): Node => (isNode(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A table cell: pipes escaped, line breaks folded. */
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
const code = (s: string): string => `\`${s.replace(/\|/g, '\\|')}\``;

/** `#/components/schemas/Error_not_found` -> the schema it points at. */
function resolve(doc: Node, s: Node): Node {
  const ref = s.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return s;
  let cur: unknown = doc;
  for (const part of ref.slice(2).split('/')) cur = node(cur)[part];
  return node(cur);
}

const literal = (v: unknown): string => code(typeof v === 'string' ? v : JSON.stringify(v));

/** A schema in words: its type, with the values allowed when they are few. */
export function typeText(s: Schema): string {
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) return list(s.anyOf ?? s.oneOf).map((x) => typeText(node(x))).join(' or ');
  if ('const' in s) return literal(s.const);
  if (Array.isArray(s.enum)) return s.enum.map(literal).join(', ');
  if (s.format === 'binary') return 'file';
  const types = (Array.isArray(s.type) ? s.type : [s.type]).filter((t): t is string => typeof t === 'string');
  if (types.includes('array')) return `array of ${typeText(node(s.items))}`;
  return types.join(' or ') || 'any';
}

/** Limits of a value: range, length, pattern. */
export function limitsText(s: Schema): string {
  const out: string[] = [];
  for (const alt of [s, ...list(s.anyOf), ...list(s.oneOf)].map(node)) {
    if (alt.minimum !== undefined && alt.maximum !== undefined) out.push(`${String(alt.minimum)} to ${String(alt.maximum)}`);
    else if (alt.minimum !== undefined) out.push(`at least ${String(alt.minimum)}`);
    else if (alt.maximum !== undefined) out.push(`at most ${String(alt.maximum)}`);
    if (typeof alt.pattern === 'string') out.push(`matches ${code(alt.pattern)}`);
    if (alt.minLength === 1) out.push('not empty');
  }
  return out.join('; ');
}

const defaultText = (s: Schema): string => (s.default === undefined ? '' : literal(s.default));

/** The fields of a JSON body, for the answers table (top-level names; objects are closed in the document). */
function bodyText(doc: Node, s: Node): string {
  const r = resolve(doc, s);
  if (Array.isArray(r.oneOf)) return r.oneOf.map((x) => bodyText(doc, node(x))).join(' or ');
  const props = Object.keys(node(r.properties));
  if (props.length) return `JSON { ${props.map(code).join(', ')} }`;
  return 'JSON';
}

/** Error codes named by an error answer's schema. */
function errorCodes(doc: Node, s: Node): string[] {
  const r = resolve(doc, s);
  if (Array.isArray(r.oneOf)) return r.oneOf.flatMap((x) => errorCodes(doc, node(x)));
  const c = node(node(r.properties).code).const;
  return typeof c === 'string' ? [c] : [];
}

function parametersTable(params: Node[]): string[] {
  const out = ['| parameter | in | type | required | default | limits | meaning |', '|---|---|---|---|---|---|---|'];
  for (const p of params) {
    const s = node(p.schema);
    out.push(`| ${code(String(p.name))} | ${String(p.in)} | ${cell(typeText(s))} | ${p.required ? 'yes' : ''} | ${cell(defaultText(s))} | ${cell(limitsText(s))} | ${cell(String(p.description ?? s.description ?? ''))} |`);
  }
  return out;
}

function formTable(media: Node): string[] {
  const schema = node(media.schema);
  const required = new Set(list(schema.required));
  const encoding = node(media.encoding);
  const out = ['| field | type | required | default | limits | meaning |', '|---|---|---|---|---|---|'];
  for (const [name, raw] of Object.entries(node(schema.properties))) {
    const s = node(raw);
    const types = node(encoding[name]).contentType;
    const type = typeText(s) + (typeof types === 'string' ? ` (${types})` : '');
    out.push(`| ${code(name)} | ${cell(type)} | ${required.has(name) ? 'yes' : ''} | ${cell(defaultText(s))} | ${cell(limitsText(s))} | ${cell(String(s.description ?? ''))} |`);
  }
  return out;
}

function answersTable(doc: Node, responses: Node, errorsPage: string): string[] {
  const out = ['| status | content | body | headers |', '|--:|---|---|---|'];
  for (const [status, raw] of Object.entries(responses)) {
    const r = node(raw);
    const content = node(r.content);
    const types = Object.keys(content);
    // The shared headers (components: on every answer, said once in the introduction) are not repeated on each row.
    const headers = Object.entries(node(r.headers)).filter(([, h]) => node(h).$ref === undefined).map(([name]) => name);
    let body: string;
    let kinds = types.map(code);
    if (Number(status) >= 400) {
      const codes = [...new Set(types.flatMap((t) => errorCodes(doc, node(node(content[t]).schema))))];
      const own = types.flatMap((t) => list(node(node(content[t]).schema).oneOf)).map(node).filter((x) => x.$ref === undefined);
      body = [own.length ? `${String(r.description)}, or ` : '', `error ${codes.map((c) => `[${code(c)}](${errorsPage}#error-codes)`).join(', ')}`].join('');
    } else {
      // Each media type with how a client reads it: JSON, text or binary (a Blob).
      kinds = types.map((t) => `${code(t)} (${t === 'application/json' ? 'JSON' : typeText(node(node(content[t]).schema)) === 'file' ? 'binary' : 'text'})`);
      const json = content['application/json'];
      body = `${String(r.description)}${json ? `; JSON ${bodyText(doc, node(node(json).schema)).replace(/^JSON /, '')}` : ''}`;
    }
    out.push(`| ${status} | ${kinds.join(', ')} | ${cell(body)} | ${headers.map(code).join(', ')} |`);
  }
  return out;
}

/**
 * The whole page for a document. `errorsPage` is the error reference relative to the page (its table of
 * codes is linked from every error answer).
 */
export function httpReference(document: Record<string, unknown>, errorsPage = 'errors.md'): string {
  const doc = node(document);
  const info = node(doc.info);
  const out: string[] = [
    '# HTTP API reference',
    '',
    '<!-- Generated from the OpenAPI document (adapter-http/src/openapi) by `npm run openapi`; do not edit. -->',
    '',
    `${String(info.title)} ${String(info.version)}: every operation of [the OpenAPI 3.1 document](../openapi.json)`,
    '(served without a key at `GET /api/v1/openapi.json`), which is made from the route table and the request',
    'validation. The contract is [docs/artwork-api-v1.md](../artwork-api-v1.md); the options of each op are also in',
    '[options.md](options.md), the error codes with their meaning in [errors.md](errors.md).',
    '',
    '- **Key**: operations marked "key" need the API key of an account with an active Business plan, in',
    '  `x-api-key: <key>` or `Authorization: Bearer <key>`.',
    '- **Form fields** of the image POSTs are `multipart/form-data` text parts (numbers and `true`/`false` as',
    '  text) beside the `image` file part. A field sent empty, or a value outside its type or limits, is',
    '  `400 invalid_option` naming the field, and so is a field sent twice, a text field sent as a file part,',
    '  a second `image` part or any other file part.',
    '- **Metered** calls answer with `X-RateLimit-Limit`, `-Remaining`, `-Reset` and `-Policy` on success; a',
    '  `429` of a limit adds `Retry-After`.',
    '- Every answer carries `X-Request-Id` and `X-Content-Type-Options: nosniff`. An unknown path is',
    '  `404 not_found`; a known path with another method is `405 method_not_allowed` with `Allow`. `HEAD` works',
    '  wherever `GET` does (the same status and headers, no body). `400 malformed_request` is node:http\'s answer',
    '  to a request whose framing it cannot read, on any path ([Operating](../guides/operating.md#malformed-requests)).',
    '- **Unknown fields**: a form field or query parameter an operation does not read is ignored (the contract is',
    '  silent on them) and every answer after the fields were read lists it in `X-Ignored-Fields` (sorted,',
    '  comma-separated, escaped; a POST\'s query parameter as `?name`), the `202` of a job and its',
    '  `result.headers` too. With the request header `Prefer: handling=strict` (RFC 7240) it is',
    '  `400 unknown_field` naming it and the nearest known name ("did you mean sheet_width_in?"), and the',
    '  answers after the fields were read carry `Preference-Applied: handling=strict` (an answer sent before,',
    '  such as a 401 or a 413 while uploading, carries neither header).',
    '',
  ];
  const paths = node(doc.paths);
  const ops: { method: string; path: string; op: Node }[] = [];
  for (const [p, item] of Object.entries(paths)) for (const [m, op] of Object.entries(node(item))) ops.push({ method: m.toUpperCase(), path: p, op: node(op) });
  out.push('## Operations', '', '| operation | summary | key |', '|---|---|---|');
  const anchor = (method: string, path: string) => `${method} ${path}`.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-');
  for (const { method, path, op } of ops) {
    out.push(`| [${code(`${method} ${path}`)}](#${anchor(method, path)}) | ${cell(String(op.summary ?? ''))} | ${list(op.security).length ? 'key' : ''} |`);
  }
  out.push('');
  for (const { method, path, op } of ops) {
    const metered = Object.entries(node(op.responses)).some(([st, r]) => Number(st) < 300 && 'X-RateLimit-Remaining' in node(node(r).headers));
    const facts = [
      list(op.security).length ? 'key' : 'no key',
      metered ? 'metered' : 'not metered',
      `\`operationId\`: \`${String(op.operationId)}\``,
    ];
    out.push(`### ${method} ${path}`, '', `**${String(op.summary ?? '')}** (${facts.join(', ')}).`, '');
    if (typeof op.description === 'string') out.push(op.description, '');
    const params = list(op.parameters).map(node);
    if (params.length) out.push(...parametersTable(params), '');
    const form = node(node(node(op.requestBody).content)['multipart/form-data']);
    if (Object.keys(form).length) out.push('Form (`multipart/form-data`):', '', ...formTable(form), '');
    out.push('Answers:', '', ...answersTable(doc, node(op.responses), errorsPage), '');
  }
  return out.join('\n');
}
