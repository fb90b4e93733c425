// The response check of test/openapi-setup.ts really fails: a server whose routes answer off the document
// (an undocumented field, status, header or error code) makes the wrapped fetch reject with the mismatch.
// The routes below shadow real ones (the router takes the first route of a path), so the document is the
// service's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, ServiceError, binary, getRoute, json, type RouteDef } from '@inkprep/http';
import { EXPECT_MISMATCH } from '../openapi-record.js';
import { checkResponse } from './openapi-check.js';
import { startTestServer, type TestServer } from './harness.js';

const offDocument: RouteDef[] = [
  // 4.7 + a field the document does not have
  getRoute({ path: '/api/v1/vectorize', handle: () => json({ queue: { converting: false, waiting: 0, max_waiting: 4 }, eta_ms: 10 }) }),
  // a status GET /upscale does not document
  getRoute({ path: '/api/v1/upscale', handle: () => json({ error: 'teapot', code: 'internal_error' }, 418) }),
  // an X- header GET /remove-bg does not document
  getRoute({ path: '/api/v1/remove-bg', handle: () => json({ maxPixels: 25_000_000, fairUsePerDay: null, fairUseUsed: null, fairUseRemaining: null }, 200, { 'X-Secret': '1' }) }),
  // an error code the status read cannot answer with
  getRoute({ path: '/api/v1/mockup/templates', handle: () => { throw new ServiceError('queue_full', 'not here', { queue: { converting: true, waiting: 1, max_waiting: 1 } }); } }),
  // a wrong media type
  getRoute({ path: '/api/v1/garments', handle: () => binary('x', 'text/html') }),
];

const g = globalThis as typeof globalThis & { [EXPECT_MISMATCH]?: boolean };

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ routes: [...offDocument, ...ROUTES] });
  g[EXPECT_MISMATCH] = true; // these mismatches are the point: not counted as failures of the suite
});
afterAll(async () => {
  g[EXPECT_MISMATCH] = false;
  await t.close();
});

const call = (path: string) => fetch(t.url + path, { headers: { 'x-api-key': t.key } });

describe('responses off the OpenAPI document fail the fetch', () => {
  it('an undocumented body field', async () => {
    await expect(call('/api/v1/vectorize')).rejects.toThrow(/OpenAPI: GET \/api\/v1\/vectorize -> 200 .*must NOT have additional properties.*eta_ms/);
  });
  it('an undocumented status', async () => {
    await expect(call('/api/v1/upscale')).rejects.toThrow(/undocumented status 418/);
  });
  it('an undocumented X- header', async () => {
    await expect(call('/api/v1/remove-bg')).rejects.toThrow(/undocumented header x-secret/);
  });
  it('an error code not listed for that status', async () => {
    await expect(call('/api/v1/mockup/templates')).rejects.toThrow(/(undocumented status 429|error code queue_full not documented)/);
  });
  it('an undocumented media type', async () => {
    await expect(call('/api/v1/garments')).rejects.toThrow(/content type text\/html not documented/);
  });
  it('the real routes pass (same server, unshadowed paths)', async () => {
    const r = await call('/api/v1/mockup/preview?template=nope');
    expect([200, 400]).toContain(r.status);
    const ok = await fetch(t.url + '/healthz');
    expect(ok.status).toBe(200);
  });
});

describe('checkResponse', () => {
  it('a required header missing, a bad header value, an unknown path, a wrong method', () => {
    const h = new Headers({
      'content-type': 'image/svg+xml; charset=utf-8', 'x-request-id': 'r1', 'x-content-type-options': 'nosniff', 'x-paths': '12', 'x-colors-used': '3', 'x-trace-ms': '40',
      'x-ratelimit-limit': '999999', 'x-ratelimit-remaining': '999998', 'x-ratelimit-reset': '86400', 'x-ratelimit-policy': 'daily',
    });
    expect(checkResponse('POST', '/api/v1/vectorize', 200, h, null).errors).toEqual(['required header x-queue-ms missing']);
    h.set('x-queue-ms', 'soon');
    expect(checkResponse('POST', '/api/v1/vectorize', 200, h, null).errors.join()).toMatch(/header x-queue-ms: "soon" .*must match pattern/);
    // Every reply carries nosniff (both transports): its absence, or another value, is a mismatch.
    h.set('x-queue-ms', '0');
    h.delete('x-content-type-options');
    expect(checkResponse('POST', '/api/v1/vectorize', 200, h, null).errors).toEqual(['required header x-content-type-options missing']);
    h.set('x-content-type-options', 'sniff');
    expect(checkResponse('POST', '/api/v1/vectorize', 200, h, null).errors.join()).toMatch(/header x-content-type-options: "sniff"/);
    const e404 = new Headers({ 'content-type': 'application/json', 'x-request-id': 'r2', 'x-content-type-options': 'nosniff' });
    expect(checkResponse('GET', '/api/v1/nope', 404, e404, JSON.stringify({ error: 'No route /api/v1/nope', code: 'not_found' })).errors).toEqual([]);
    expect(checkResponse('GET', '/api/v1/nope', 200, e404, '{}').errors.join()).toMatch(/path the document does not have/);
    const e405 = new Headers({ 'content-type': 'application/json', 'x-request-id': 'r3', 'x-content-type-options': 'nosniff', allow: 'POST' });
    expect(checkResponse('PUT', '/api/v1/scan', 405, e405, JSON.stringify({ error: 'Method PUT is not allowed', code: 'method_not_allowed' })).errors).toEqual([]);
    expect(checkResponse('PUT', '/api/v1/scan', 405, e405, JSON.stringify({ error: 'x', code: 'not_found' })).errors.join()).toMatch(/error code not_found not documented/);
  });
  it('error extras are closed per code', () => {
    const h = new Headers({ 'content-type': 'application/json', 'x-request-id': 'r', 'x-content-type-options': 'nosniff' });
    const body = { error: 'Expected a number from 0.1 to 500 for print_width_inches but received "x"', code: 'invalid_option', field: 'print_width_inches' };
    expect(checkResponse('POST', '/api/v1/scan', 400, h, JSON.stringify(body)).errors).toEqual([]);
    expect(checkResponse('POST', '/api/v1/scan', 400, h, JSON.stringify({ ...body, stack: 'at x.ts:1' })).errors.length).toBe(1);
    expect(checkResponse('POST', '/api/v1/scan', 400, h, JSON.stringify({ error: 'x', code: 'invalid_option' })).errors.length).toBe(1); // field is required
  });
});
