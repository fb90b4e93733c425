// The try-it page's API module (adapter-http/web/api.js, loaded as the browser loads it: an ES module
// using fetch, FormData, File and crypto, all of which Node has) against the real server: every image POST
// carries an Idempotency-Key per user action, so the same file and fields sent again (a second click, a
// retry) is replayed and counted once, other fields are a new action, and a 409 in progress is waited out
// with its Retry-After. The page's own fetch goes to relative /api/v1 paths; here they are sent to the test
// server. (test/browser/page.test.ts checks the same in chromium where one is installed.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tinyPng, type TestServer } from './harness.js';

interface ApiModule {
  setKey(key: string): void;
  postImage(path: string, file: File, fields?: Record<string, unknown>): Promise<Response>;
}

let t: TestServer;
let api: ApiModule;
const realFetch = globalThis.fetch;
/** What the page sent: the Idempotency-Key of each POST. */
const sent: string[] = [];
/** Answers to invent before the server's (a 409 while the first request runs). */
const injected: Response[] = [];

beforeAll(async () => {
  t = await startTestServer();
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    if (init?.method === 'POST') sent.push(headers.get('idempotency-key') ?? '');
    const fake = injected.shift();
    if (fake) return fake;
    return realFetch(new URL(String(input), t.url), init);
  }) as typeof fetch;
  api = (await import('../../adapter-http/web/api.js' as string)) as ApiModule;
  api.setKey(t.key);
}, 120_000);
afterAll(async () => {
  globalThis.fetch = realFetch;
  await t?.close();
});

describe('the page sends an Idempotency-Key per action', () => {
  it('the same file and fields again: the same key, the first answer replayed, one use; other fields: a new key', async () => {
    const file = new File([await tinyPng()], 'art.png', { type: 'image/png' });
    sent.length = 0;
    const first = await api.postImage('/api/v1/scan', file, { print_width_inches: '6' });
    const again = await api.postImage('/api/v1/scan', file, { print_width_inches: '6', unused: '' });
    const other = await api.postImage('/api/v1/scan', file, { print_width_inches: '7' });
    expect(sent[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(sent[1]).toBe(sent[0]);
    expect(sent[2]).not.toBe(sent[0]);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.from(await first.arrayBuffer()))).toBe(true);
    // Two sends of one action counted once: the new action has exactly one use fewer left than the first.
    expect(Number(other.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    // Another file is another action.
    const second = new File([await tinyPng()], 'art.png', { type: 'image/png' });
    await api.postImage('/api/v1/scan', second, { print_width_inches: '6' });
    expect(sent[3]).not.toBe(sent[0]);
  });

  it('a 409 idempotency_key_in_progress is waited out (Retry-After) and the same key sent again', async () => {
    const file = new File([await tinyPng()], 'art.png', { type: 'image/png' });
    sent.length = 0;
    injected.push(new Response(JSON.stringify({ error: 'still running', code: 'idempotency_key_in_progress', retry_after_seconds: 1 }), {
      status: 409, headers: { 'content-type': 'application/json', 'retry-after': '1' },
    }));
    const res = await api.postImage('/api/v1/scan', file, { print_width_inches: '8' });
    expect(res.status).toBe(200);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
  });
});
