// Checks one HTTP response of the service against the OpenAPI document (adapter-http/src/openapi) with ajv
// (JSON Schema 2020-12, the dialect of OpenAPI 3.1): the status must be documented for the operation, every
// X- header (and Retry-After, Allow) documented for that reply, required headers present, the media type
// listed, and a JSON body valid against its schema (closed objects: an undocumented field fails). Paths
// outside the document get the 404 / 405 replies of components.responses. Used by openapi-setup.ts.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { ROUTES, buildOpenApi } from '@inkprep/http';

type Json = Record<string, unknown>;

export interface CheckResult {
  /** `METHOD /path/{template}`, or `404 (no such path)` / `405 (method not allowed)`. */
  op: string;
  status: number;
  errors: string[];
}

interface Compiled {
  doc: Json;
  ajv: Ajv2020;
  paths: { template: string; re: RegExp }[];
  validators: Map<string, ValidateFunction>;
}

let compiled: Compiled | null = null;

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function load(): Compiled {
  if (compiled) return compiled;
  // The full document: the public one plus the operations it leaves out (the page's files, /metrics), so
  // every reply of the server is still checked.
  const doc = buildOpenApi(ROUTES, { scope: 'all' }) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (formats as unknown as { default: (a: Ajv2020) => void }).default(ajv);
  ajv.addFormat('binary', true); // OAS format of a binary body or file part (not a JSON format; bodies checked here are JSON)
  ajv.addSchema(doc, 'openapi.json');
  const paths = Object.keys(doc.paths as Json).map((template) => ({
    template,
    re: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
  }));
  compiled = { doc, ajv, paths, validators: new Map() };
  return compiled;
}

/** A validator for the schema at a JSON pointer into the document. */
function validatorAt(c: Compiled, pointer: string): ValidateFunction {
  const have = c.validators.get(pointer);
  if (have) return have;
  const v = c.ajv.compile({ $ref: `openapi.json#${pointer}` });
  c.validators.set(pointer, v);
  return v;
}

function resolveRef(c: Compiled, node: Json): { node: Json; pointer: string | null } {
  const ref = node.$ref;
  if (typeof ref !== 'string') return { node, pointer: null };
  const pointer = ref.replace(/^#/, '');
  let cur: unknown = c.doc;
  for (const part of pointer.split('/').slice(1)) cur = (cur as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return { node: cur as Json, pointer };
}

/** Header names a response must document when present (besides the standard HTTP ones). */
function checkedHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n.startsWith('x-') || n === 'retry-after' || n === 'allow';
}

/**
 * Check one response. `body` is the text of a JSON body (null when the reply is not JSON or was not read).
 */
export function checkResponse(method: string, pathname: string, status: number, headers: Headers, body: string | null): CheckResult {
  const c = load();
  // HEAD is checked as the GET it mirrors (same status and headers; its body is never read).
  const head = method.toLowerCase() === 'head';
  const m = head ? 'get' : method.toLowerCase();
  const hit = c.paths.find((p) => p.re.test(pathname));
  const item = hit ? ((c.doc.paths as Json)[hit.template] as Json) : undefined;
  let op: string;
  let response: Json | undefined;
  let pointer: string;
  const errors: string[] = [];
  if (!hit || !item) {
    op = '404 (no such path)';
    pointer = '/components/responses/NotFound';
    response = ((c.doc.components as Json).responses as Json).NotFound as Json;
    if (status !== 404) errors.push(`status ${status} on a path the document does not have (only 404 not_found is documented there)`);
  } else if (!item[m]) {
    op = '405 (method not allowed)';
    pointer = '/components/responses/MethodNotAllowed';
    response = ((c.doc.components as Json).responses as Json).MethodNotAllowed as Json;
    if (status !== 405) errors.push(`status ${status} for ${method} ${hit.template}, which the document does not have (only 405 is documented)`);
  } else {
    op = `${method.toUpperCase()} ${hit.template}`;
    pointer = `/paths/${escapePointer(hit.template)}/${m}/responses/${status}`;
    response = ((item[m] as Json).responses as Json)[String(status)] as Json | undefined;
    if (!response) {
      errors.push(`undocumented status ${status} (documented: ${Object.keys((item[m] as Json).responses as Json).join(', ')})`);
      return { op, status, errors };
    }
  }
  if (errors.length) return { op, status, errors };

  // Headers: every X- / Retry-After / Allow header documented; documented required ones present; values valid.
  const documented = new Map<string, { schema?: Json; required?: boolean; pointer: string }>();
  for (const [name, h] of Object.entries((response.headers as Json | undefined) ?? {})) {
    const r = resolveRef(c, h as Json);
    documented.set(name.toLowerCase(), { ...(r.node as { schema?: Json; required?: boolean }), pointer: r.pointer ?? `${pointer}/headers/${escapePointer(name)}` });
  }
  for (const [name, value] of headers) {
    if (!checkedHeader(name)) continue;
    const d = documented.get(name.toLowerCase());
    if (!d) {
      errors.push(`undocumented header ${name}`);
      continue;
    }
    if (d.schema) {
      const v = validatorAt(c, `${d.pointer}/schema`);
      if (!v(value)) errors.push(`header ${name}: ${JSON.stringify(value)} ${c.ajv.errorsText(v.errors)}`);
    }
  }
  for (const [name, d] of documented) if (d.required && !headers.has(name)) errors.push(`required header ${name} missing`);

  // Media type and body.
  const content = (response.content as Json | undefined) ?? {};
  const type = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (Object.keys(content).length > 0 && !(type in content)) {
    errors.push(`content type ${type || '(none)'} not documented (documented: ${Object.keys(content).join(', ')})`);
  } else if (type === 'application/json' && body !== null && !head) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      errors.push('body is not JSON');
      return { op, status, errors };
    }
    const schemaPointer = `${pointer}/content/application~1json/schema`;
    const v = validatorAt(c, schemaPointer);
    if (!v(parsed)) {
      const code = (parsed as Json | null)?.code;
      const allowed = errorCodesIn(c, resolveRef(c, { $ref: `#${schemaPointer}` }).node);
      if (status >= 400 && typeof code === 'string' && allowed.length && !allowed.includes(code)) {
        errors.push(`error code ${code} not documented for this status (documented: ${allowed.join(', ')})`);
      } else errors.push(`body: ${explain(v)} in ${body.slice(0, 300)}`);
    }
  }
  return { op, status, errors };
}

/** The error codes a (possibly oneOf) error schema allows. */
function errorCodesIn(c: Compiled, schema: Json): string[] {
  const refs = Array.isArray(schema.oneOf) ? (schema.oneOf as Json[]) : [schema];
  const out: string[] = [];
  for (const r of refs) {
    const node = resolveRef(c, r).node;
    const code = ((node?.properties as Json | undefined)?.code as Json | undefined)?.const;
    if (typeof code === 'string') out.push(code);
  }
  return out;
}

/** Every (operation, status) the document declares. */
export function declaredPairs(): string[] {
  const c = load();
  const out: string[] = [];
  for (const [p, item] of Object.entries(c.doc.paths as Json)) {
    for (const [m, op] of Object.entries(item as Json)) {
      for (const st of Object.keys((op as Json).responses as Json)) out.push(`${m.toUpperCase()} ${p} ${st}`);
    }
  }
  return out;
}

/** ajv's errors, naming the property an `additionalProperties: false` refused. */
function explain(v: ValidateFunction): string {
  return (v.errors ?? []).map((e) => {
    const extra = (e.params as { additionalProperty?: string }).additionalProperty;
    return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra ? ` (undocumented field ${extra})` : ''}`;
  }).join('; ');
}
