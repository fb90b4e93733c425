// The OpenAPI document makes a working client (issue 29), tried exactly as a user would: types generated with
// openapi-typescript's Node API from the document the server serves, a client written with openapi-fetch
// (test/openapi-client/client.ts: every operation, no casts) type-checked with `tsc --noEmit --strict` together
// with calls the types must refuse (mistakes.ts), then run against a real server on a free port, its answers
// asserted (status, content type, parsed body).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tinyPng, type TestServer } from './harness.js';

const SOURCE = fileURLToPath(new URL('../openapi-client/', import.meta.url));
// Inside the repository (so `openapi-fetch` resolves from its node_modules), one folder per test process
// (the two transport projects run this file at once); `.scratch-*` is git-ignored.
const SCRATCH = path.join(SOURCE, `.scratch-${process.pid}`);
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** client.ts's entry point, seen from here without its types (they exist only once the test generated them). */
interface Client {
  callEveryOperation(inputs: { baseUrl: string; key: string; png: Blob }): Promise<Record<string, Json>>;
}

let t: TestServer;
let served: Json;

beforeAll(async () => {
  t = await startTestServer();
  rmSync(SCRATCH, { recursive: true, force: true });
  mkdirSync(SCRATCH, { recursive: true });
});
afterAll(async () => {
  rmSync(SCRATCH, { recursive: true, force: true });
  await t?.close();
});

/** `tsc` on the given files; exit code and what it printed. */
function tsc(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSC, ...args], { cwd: SCRATCH, timeout: 300_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

/** `METHOD /path` of every operation in a document. */
function operationsOf(doc: Json): string[] {
  return Object.entries(doc.paths as Json).flatMap(([p, item]) => Object.keys(item as Json).map((m) => `${m.toUpperCase()} ${p}`)).sort();
}

describe('a client generated from the served document', () => {
  it('openapi-typescript turns the served document into types (binary parts and answers as Blob)', async () => {
    const r = await fetch(`${t.url}/api/v1/openapi.json`);
    expect(r.status).toBe(200);
    served = (await r.json()) as Json;
    // openapi-typescript's documented transform for file uploads: `format: binary` is a Blob.
    const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));
    const ast = await openapiTS(served as Parameters<typeof openapiTS>[0], {
      silent: true,
      transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
    });
    const types = astToString(ast);
    writeFileSync(path.join(SCRATCH, 'schema.ts'), types);
    copyFileSync(path.join(SOURCE, 'client.ts'), path.join(SCRATCH, 'client.ts'));
    copyFileSync(path.join(SOURCE, 'mistakes.ts'), path.join(SCRATCH, 'mistakes.ts'));
    expect(types).toMatch(/"\/api\/v1\/fix": \{/);
    expect(types).not.toMatch(/"\/web\/app\.js"|"\/metrics"/);
    expect(types).toMatch(/image: Blob;/);
  });

  it('the client calls every operation of the document', () => {
    const source = readFileSync(path.join(SOURCE, 'client.ts'), 'utf8');
    const called = [...new Set([...source.matchAll(/\.(GET|POST|DELETE)\('([^']+)'/g)].map((m) => `${m[1]} ${m[2]}`))].sort();
    expect(called).toEqual(operationsOf(served));
  });

  it('tsc --noEmit --strict accepts the client and refuses each mistake', async () => {
    const r = await tsc([
      '--noEmit', '--strict', '--skipLibCheck', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext',
      '--lib', 'ES2023', '--types', 'node', 'client.ts', 'mistakes.ts',
    ]);
    expect(r.out, 'tsc output').toBe('');
    expect(r.code).toBe(0);
  });

  it('the type-check bites: a cast-free client that sends a field of the wrong type does not compile', async () => {
    writeFileSync(path.join(SCRATCH, 'wrong.ts'), [
      "import createClient from 'openapi-fetch';",
      "import type { paths } from './schema.js';",
      "import { formData } from './client.js';",
      'export const call = (png: Blob) => createClient<paths>({}).POST(\'/api/v1/upscale\', { body: { image: png, scale: 3 }, bodySerializer: formData });',
      '',
    ].join('\n'));
    const r = await tsc(['--noEmit', '--strict', '--skipLibCheck', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--lib', 'ES2023', '--types', 'node', 'wrong.ts']);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/wrong\.ts\(4,\d+\): error TS2322: Type '3' is not assignable to type '(2 \| 4|4 \| 2)/);
  });

  it('runs against the server: every answer has the documented status, content type and body', async () => {
    // The very file tsc checked (its imports of the generated types are type-only).
    const client = (await import(pathToFileURL(path.join(SCRATCH, 'client.ts')).href)) as Client;
    const png = new Blob([await tinyPng()], { type: 'image/png' });
    const r = await client.callEveryOperation({ baseUrl: t.url, key: t.key, png });
    const PNG = [0x89, 0x50, 0x4e, 0x47];
    const head = (b: unknown, n: number) => [...(b as Uint8Array).slice(0, n)];

    expect(r.health).toEqual({ status: 200, type: 'application/json', state: 'ok' });
    expect(r.ready).toEqual({ status: 200, type: 'application/json', state: 'ready', engineThreads: 1 });
    expect(r.document).toEqual({ status: 200, type: 'application/json', openapi: '3.1.0' });
    expect(r.line).toMatchObject({ status: 200, type: 'application/json' });
    expect(r.line.maxWaiting).toBeGreaterThan(0);
    expect(r.removeBgLimits).toMatchObject({ status: 200, type: 'application/json' });
    expect(r.removeBgLimits.maxPixels).toBeGreaterThan(0);
    expect(r.upscaleLimits).toEqual({ status: 200, type: 'application/json', scales: [2, 4] });
    expect(r.scan).toMatchObject({ status: 200, type: 'application/json', width: 32, background: 'transparent' });
    expect(r.scan.remaining).toMatch(/^[0-9]+$/);
    expect(r.fix).toMatchObject({ status: 200, type: 'image/png' });
    expect(head(r.fix.bytes, 4)).toEqual(PNG);
    expect(r.svg).toMatchObject({ status: 200, type: 'image/svg+xml' });
    expect(r.svg.text).toMatch(/<svg[\s>][\s\S]*<\/svg>\s*$/);
    expect(r.pdf).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(Buffer.from((r.pdf!.bytes as Uint8Array).slice(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(r.cutout).toMatchObject({ status: 200, type: 'image/png' });
    expect(['matte', 'model', 'alpha']).toContain(r.cutout.method);
    expect(head(r.cutout.bytes, 4)).toEqual(PNG);
    expect(r.plates).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(Buffer.from((r.plates!.bytes as Uint8Array).slice(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(r.plateJson).toEqual({ status: 200, type: 'application/json', width: 32, garment: '#1b1b1d' });
    expect(r.sheet).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(Buffer.from((r.sheet!.bytes as Uint8Array).slice(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(r.sheetJson).toEqual({ status: 200, type: 'application/json', placements: 3 });
    expect(r.upscale).toEqual({ status: 200, type: 'application/json', width: 64, hostedBy: 'service' });
    expect(r.result).toMatchObject({ status: 200, type: 'image/png' });
    expect(head(r.result.bytes, 4)).toEqual(PNG);
    expect(r.held).toEqual({ status: 404, type: 'application/json', code: 'not_found' });
    expect(r.templates).toMatchObject({ status: 200, type: 'application/json' });
    expect(r.templates.count).toBeGreaterThan(0);
    expect(r.garments).toMatchObject({ status: 200, type: 'application/json' });
    expect(r.garments.keys).toContain('own:classic-tee');
    expect(r.style).toMatchObject({ status: 200, type: 'application/json' });
    expect(r.style.colors).toBeGreaterThan(0);
    expect(r.preview).toMatchObject({ status: 200, type: 'image/jpeg' });
    expect(head(r.preview.bytes, 3)).toEqual([0xff, 0xd8, 0xff]);
    expect(r.mockupImage).toMatchObject({ status: 200, type: 'image/jpeg' });
    expect(head(r.mockupImage.bytes, 3)).toEqual([0xff, 0xd8, 0xff]);
    expect(r.mockupJson).toMatchObject({ status: 200, type: 'application/json', garment: 'own:classic-tee', contentType: 'image/png' });
    expect(r.mockupJson.base64).toBeGreaterThan(100);
    expect(r.batch).toMatchObject({ status: 200, type: 'application/json', count: 2, colors: ['black', 'white'] });
    for (const url of r.batch.urls) expect(url).toMatch(/^\/api\/v1\/upscale\/results\/[A-Za-z0-9_-]+\.jpg$/);
    expect(r.refused).toEqual({ status: 401, type: 'application/json', code: 'unauthorized' });
    expect(r.scanJob).toEqual({ status: 202, type: 'application/json', jobStatus: 'succeeded', preferenceApplied: 'respond-async, wait=30' });
    expect(r.jobRead).toMatchObject({ status: 200, type: 'application/json', jobStatus: 'succeeded' });
    expect(r.jobRead.width).toBeGreaterThan(0);
    expect(r.jobOutput).toMatchObject({ status: 200, type: 'image/svg+xml', vecStatus: 'succeeded' });
    expect(r.jobOutput.text).toContain('<svg');
    expect(r.cancelDone).toEqual({ status: 409, type: 'application/json', code: 'job_finished' });
  });
});
