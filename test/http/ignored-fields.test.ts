// Fields and query parameters an operation does not read (routes/unknown-fields.ts), through a real server
// on the transport of this run (test/http runs on both): the request still runs as before, and every answer
// after the fields were read lists them in X-Ignored-Fields (sorted, escaped, capped); a request with only
// known fields has no such header; `Prefer: handling=strict` makes them 400 `unknown_field` naming the
// field and the known name it most likely meant, with Preference-Applied; a job's 202 and its stored result
// carry the header too. Before this, `-F sheet_width=13` ran on the default 22 in sheet without a word.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobBody } from '@inkprep/http';
import { form, get, post, startTestServer, tinyPng, until, type TestServer } from './harness.js';

let t: TestServer;
let png: Uint8Array;
beforeAll(async () => {
  t = await startTestServer();
  png = await tinyPng();
});
afterAll(async () => {
  await t.close();
});

type Answer = Awaited<ReturnType<typeof post>>;

/** POST with extra request headers (Prefer). */
async function postWith(p: string, body: FormData, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(t.url + p, { method: 'POST', body, headers: { 'x-api-key': t.key, ...headers } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const json = (res.headers.get('content-type') ?? '').startsWith('application/json') ? JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown> : null;
  return { status: res.status, json, headers: res.headers, bytes };
}

const STRICT = { Prefer: 'handling=strict' };

function sheetForm(fields: Record<string, string>): FormData {
  const f = new FormData();
  f.append('design', new Blob([png]), 'design-0.png');
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}
const ITEMS = JSON.stringify([{ design: 0, quantity: 2, width_in: 1 }]);

describe('unknown form fields, by default', () => {
  it('run exactly as without them, and the answer lists them in X-Ignored-Fields (sorted, once each)', async () => {
    const plain = await post(t, '/api/v1/scan', form(png, { print_width_inches: '10' }));
    const extra = await post(t, '/api/v1/scan', form(png, { print_width_inches: '10', zeta: '1', colours: '8' }));
    expect(plain.status).toBe(200);
    expect(extra.status).toBe(200);
    expect(extra.json).toEqual(plain.json);
    expect(extra.headers.get('x-ignored-fields')).toBe('colours, zeta');
    expect(extra.headers.get('preference-applied')).toBeNull();
  });

  it('a request with known fields only has no X-Ignored-Fields', async () => {
    const r = await post(t, '/api/v1/scan', form(png, { print_width_inches: '10' }));
    expect(r.status).toBe(200);
    expect(r.headers.has('x-ignored-fields')).toBe(false);
    const fix = await post(t, '/api/v1/fix', form(png));
    expect(fix.status).toBe(200);
    expect(fix.headers.has('x-ignored-fields')).toBe(false);
  });

  it('the brief\'s gang sheet: sheet_width=13 runs on the default width, and says sheet_width was ignored', async () => {
    const r = await post(t, '/api/v1/gangsheet', sheetForm({ items: ITEMS, format: 'json', sheet_width: '13' }));
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ignored-fields')).toBe('sheet_width');
    const known = await post(t, '/api/v1/gangsheet', sheetForm({ items: ITEMS, format: 'json', sheet_width_in: '13' }));
    expect(known.status).toBe(200);
    expect(known.headers.has('x-ignored-fields')).toBe(false);
  });

  it('an error answered after the fields were read lists them too (the status is the one it always was)', async () => {
    const r = await post(t, '/api/v1/gangsheet', sheetForm({ sheet_width: '13' })); // no items
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'invalid_option', field: 'items' });
    expect(r.headers.get('x-ignored-fields')).toBe('sheet_width');
  });

  it('a POST reads no query parameter: one is listed as ?name', async () => {
    const r = await post(t, '/api/v1/scan?print_width_inches=10', form(png));
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ignored-fields')).toBe('?print_width_inches');
  });
});

describe('unknown query parameters of GET routes', () => {
  it('are listed; the parameters a route reads are not', async () => {
    const r = await get(t, '/api/v1/vectorize?verbose=1');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ignored-fields')).toBe('verbose');
    const known = await get(t, '/api/v1/mockup/preview?template=tee-black&size=400');
    expect(known.status).toBe(200);
    expect(known.headers.has('x-ignored-fields')).toBe(false);
    const plain = await get(t, '/api/v1/vectorize');
    expect(plain.headers.has('x-ignored-fields')).toBe(false);
  });

  it('Prefer: handling=strict -> 400 unknown_field with the nearest parameter', async () => {
    const r = await get(t, '/api/v1/mockup/preview?template=tee-black&sise=400', t.key, STRICT);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'unknown_field', field: 'sise', suggestion: 'size' });
    expect(String(r.json!.error)).toContain('did you mean size?');
    expect(r.headers.get('preference-applied')).toBe('handling=strict');
    const ok = await get(t, '/api/v1/vectorize', t.key, STRICT);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('preference-applied')).toBe('handling=strict');
  });
});

describe('Prefer: handling=strict', () => {
  it('an unknown field is 400 unknown_field naming it, with did-you-mean, before anything is counted', async () => {
    const before = (await t.store.usage(t.account.id, t.clock.now(), 0)).perEndpoint.gangsheet ?? 0;
    const r = await postWith('/api/v1/gangsheet', sheetForm({ items: ITEMS, sheet_width: '13' }), STRICT);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'unknown_field', field: 'sheet_width', fields: 'sheet_width', suggestion: 'sheet_width_in' });
    expect(String(r.json!.error)).toContain('sheet_width (did you mean sheet_width_in?)');
    expect(r.headers.get('preference-applied')).toBe('handling=strict');
    expect(r.headers.has('x-ignored-fields')).toBe(false); // refused, not ignored
    expect((await t.store.usage(t.account.id, t.clock.now(), 0)).perEndpoint.gangsheet ?? 0).toBe(before);
  });

  it('known fields only: the answer is the usual one, with Preference-Applied', async () => {
    const r = await postWith('/api/v1/scan', form(png, { print_width_inches: '10' }), STRICT);
    expect(r.status).toBe(200);
    expect(r.headers.get('preference-applied')).toBe('handling=strict');
    expect(r.headers.has('x-ignored-fields')).toBe(false);
  });

  it('several unknown fields, and a POST\'s query parameter, are all named', async () => {
    const r = await postWith('/api/v1/scan?print_width_inches=10', form(png, { colour: 'x', zzz: '1' }), { Prefer: 'respond-async, handling=strict' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'unknown_field', field: '?print_width_inches', fields: '?print_width_inches, colour, zzz' });
    expect(String(r.json!.error)).toContain('query parameter print_width_inches (send it as a form field)');
  });

  it('handling=lenient (the default) changes nothing', async () => {
    const r = await postWith('/api/v1/scan', form(png, { colours: '8' }), { Prefer: 'handling=lenient' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ignored-fields')).toBe('colours');
    expect(r.headers.has('preference-applied')).toBe(false);
  });
});

describe('names that try to break the header', () => {
  it('CR LF, commas and other bytes are percent-encoded; nothing is injected', async () => {
    const q = `${encodeURIComponent('a\r\nX-Injected: 1')}=1&${encodeURIComponent('b,c')}=2&${encodeURIComponent('é')}=3`;
    const r = await get(t, `/api/v1/vectorize?${q}`);
    expect(r.status).toBe(200);
    expect(r.headers.has('x-injected')).toBe(false);
    expect(r.headers.get('x-ignored-fields')).toBe('%C3%A9, a%0D%0AX-Injected%3A%201, b%2Cc');
    const f = form(png);
    f.append('a b,c"d', '1'); // (a control byte in a part header is refused by the multipart parser: 400 missing_image)
    const p = await post(t, '/api/v1/fix', f);
    expect(p.status, JSON.stringify(p.json)).toBe(200);
    // FormData sends the quote as %22 (HTML's form encoding); the name as received is escaped again
    expect(p.headers.get('x-ignored-fields')).toBe('a%20b%2Cc%2522d');
  });

  it('a form field name is read as UTF-8, and listed as its UTF-8 bytes, as a query parameter\'s is', async () => {
    const f = form(png);
    f.append('größe', '10');
    const r = await post(t, '/api/v1/fix', f);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.headers.get('x-ignored-fields')).toBe('gr%C3%B6%C3%9Fe');
    expect((await get(t, `/api/v1/vectorize?${encodeURIComponent('größe')}=10`)).headers.get('x-ignored-fields')).toBe('gr%C3%B6%C3%9Fe');
    const strict = await postWith('/api/v1/fix', (() => { const g = form(png); g.append('größe', '10'); return g; })(), STRICT);
    expect(strict.status).toBe(400);
    expect(strict.json).toMatchObject({ code: 'unknown_field', field: 'gr%C3%B6%C3%9Fe' });
  });

  it('a long name is cut, and many names are capped with (+N more)', async () => {
    const long = 'n'.repeat(300);
    const many = Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, '0')}=1`).join('&');
    const r = await get(t, `/api/v1/vectorize?${long}=1&${many}`);
    expect(r.status).toBe(200);
    const names = r.headers.get('x-ignored-fields')!.split(', ');
    expect(names).toHaveLength(21);
    expect(names[0]).toBe(`${'n'.repeat(64)}...`);
    expect(names.slice(1, 20)).toEqual(Array.from({ length: 19 }, (_, i) => `p${String(i).padStart(2, '0')}`));
    expect(names[20]).toBe('(+11 more)');
  });
});

describe('a job (Prefer: respond-async)', () => {
  it('the 202 and the job\'s stored result list the unknown field', async () => {
    // strict refuses it at submission, before any job exists
    const a = await postWith('/api/v1/scan', form(png, { print_width_inches: '10', colours: '8' }), { Prefer: 'respond-async, handling=strict, wait=30' });
    expect(a.status).toBe(400);
    expect(a.json).toMatchObject({ code: 'unknown_field', field: 'colours' });
    const s = await postWith('/api/v1/scan', form(png, { print_width_inches: '10', colours: '8' }), { Prefer: 'respond-async, wait=30' });
    expect(s.status).toBe(202);
    expect(s.headers.get('x-ignored-fields')).toBe('colours');
    const id = s.json!.id as string;
    let job!: JobBody;
    await until(async () => {
      job = (await get(t, `/api/v1/jobs/${id}`)).json as unknown as JobBody;
      return job.status === 'succeeded' || job.status === 'failed';
    }, 60_000, `job ${id} final`);
    expect(job.status).toBe('succeeded');
    expect(job.result!.headers['X-Ignored-Fields']).toBe('colours');
  });

  it('strict and respond-async: Preference-Applied names both', async () => {
    const s = await postWith('/api/v1/scan', form(png, { print_width_inches: '10' }), { Prefer: 'respond-async, handling=strict' });
    expect(s.status).toBe(202);
    expect(s.headers.get('preference-applied')).toBe('respond-async, handling=strict');
    expect(s.headers.has('x-ignored-fields')).toBe(false);
  });
});
