// Header lines sent more than once, over raw sockets (fetch folds a repeated header into one line before it
// leaves the client), on the transport of this run (test/http runs once per transport). HTTP lets a list
// header be split over several lines that mean their comma-joined value (RFC 9110 section 5.3): node:http
// joins them, uWS's getHeader sees only the first, so the uWS transport joins the lines of the list headers
// the pipeline reads (transport/list-headers.ts). `Prefer: wait=N` then `Prefer: respond-async` (RFC 7240
// section 2) is one request for a job; two X-Forwarded-For lines are one hop list whose right-most untrusted
// hop is the client. A single-value header sent twice keeps what each transport did before: Idempotency-Key
// is refused on node:http (it joins every repeated unknown header, and the joined value is no key) and the
// first line counts on uWS (Content-Length twice: strict-wire.test.ts).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_WAIT_MS, form, startTestServer, tinyPng, until, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ config: { trustedProxy: ['127.0.0.1'] } });
});
afterAll(async () => {
  await t.close();
});

interface RawResponse {
  status: number;
  /** Lower-case name -> every line's value, in order. */
  headers: Map<string, string[]>;
  body: Buffer;
}

/** Send one request (head lines as given, then `body`) on a new connection and read the reply until the server closes it. */
function send(head: string[], body: Buffer = Buffer.alloc(0)): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const s = net.connect(t.server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no complete reply within ${MIN_WAIT_MS} ms to ${head[0]}`));
    }, MIN_WAIT_MS);
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('error', () => {}); // a reset still ends in 'close'
    s.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) {
        reject(new Error(`no response head to ${head[0]}: ${JSON.stringify(all.toString('latin1'))}`));
        return;
      }
      const [statusLine = '', ...lines] = all.subarray(0, end).toString('latin1').split('\r\n');
      const headers = new Map<string, string[]>();
      for (const l of lines) {
        const c = l.indexOf(':');
        const name = l.slice(0, c).trim().toLowerCase();
        headers.set(name, [...(headers.get(name) ?? []), l.slice(c + 1).trim()]);
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: all.subarray(end + 4) });
    });
    s.write([...head, `Host: 127.0.0.1:${t.server.port}`, 'Connection: close', `Content-Length: ${body.length}`, '', ''].join('\r\n'));
    s.write(body);
  });
}

/** A multipart body with the tiny PNG as `image`, and its Content-Type line. */
async function scanForm(): Promise<{ type: string; body: Buffer }> {
  const req = new Request('http://localhost/', { method: 'POST', body: form(await tinyPng()) });
  return { type: `Content-Type: ${req.headers.get('content-type')!}`, body: Buffer.from(await req.arrayBuffer()) };
}

const json = (r: RawResponse): Record<string, unknown> => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;

describe('a list header sent as several lines means the lines joined', () => {
  it('Prefer: wait=N, then Prefer: respond-async on its own line, is a job held up to N seconds', async () => {
    const f = await scanForm();
    const r = await send(['POST /api/v1/scan HTTP/1.1', `x-api-key: ${t.key}`, f.type, 'Prefer: wait=30', 'Prefer: respond-async'], f.body);
    expect(r.status, r.body.toString()).toBe(202);
    expect(r.headers.get('preference-applied')).toEqual(['respond-async, wait=30']);
    expect(json(r).id).toMatch(/^job_[0-9a-f]{24}$/);
  });

  it('Prefer: respond-async, then Prefer: wait=N: the wait counts too', async () => {
    const f = await scanForm();
    const r = await send(['POST /api/v1/scan HTTP/1.1', `x-api-key: ${t.key}`, f.type, 'Prefer: respond-async', 'Prefer: wait=30'], f.body);
    expect(r.status, r.body.toString()).toBe(202);
    expect(r.headers.get('preference-applied')).toEqual(['respond-async, wait=30']);
  });

  it('an empty Prefer line before respond-async loses nothing; one line still works alone', async () => {
    const f = await scanForm();
    const empty = await send(['POST /api/v1/scan HTTP/1.1', `x-api-key: ${t.key}`, f.type, 'Prefer:', 'Prefer: respond-async'], f.body);
    expect(empty.status, empty.body.toString()).toBe(202);
    expect(empty.headers.get('preference-applied')).toEqual(['respond-async']);
    const sync = await send(['POST /api/v1/scan HTTP/1.1', `x-api-key: ${t.key}`, f.type, 'Prefer: handling=lenient'], f.body);
    expect(sync.status, sync.body.toString()).toBe(200);
    expect(sync.headers.has('preference-applied')).toBe(false);
  });

  it('two X-Forwarded-For lines from a trusted proxy: the client is the right-most untrusted hop of both', async () => {
    // The client wrote the first line itself; the trusted proxy (127.0.0.1) added the second.
    const r = await send(['GET /api/v1/vectorize HTTP/1.1', `x-api-key: ${t.key}`, 'x-request-id: repeated-xff-1', 'X-Forwarded-For: 203.0.113.9', 'X-Forwarded-For: 198.51.100.7']);
    expect(r.status).toBe(200);
    await until(() => t.logs.some((l) => l.req === 'repeated-xff-1' && l.status === 200), 10_000, 'the request line');
    expect(t.logs.find((l) => l.req === 'repeated-xff-1' && l.status === 200)).toMatchObject({ client: '198.51.100.7' });
  });
});

describe('a single-value header sent twice keeps what each transport did', () => {
  it('Idempotency-Key twice: refused on node:http (the joined value is no key), the first line on uWS', async () => {
    const f = await scanForm();
    const head = ['POST /api/v1/scan HTTP/1.1', `x-api-key: ${t.key}`, f.type];
    const twice = await send([...head, 'Idempotency-Key: repeated-key-a', 'Idempotency-Key: repeated-key-b'], f.body);
    if (t.server.transport === 'node') {
      expect(twice.status).toBe(400);
      expect(json(twice).code).toBe('invalid_idempotency_key');
    } else {
      expect(twice.status, twice.body.toString()).toBe(200);
      const again = await send([...head, 'Idempotency-Key: repeated-key-a'], f.body);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toEqual(['true']);
      expect(again.body.equals(twice.body)).toBe(true);
    }
  });
});
