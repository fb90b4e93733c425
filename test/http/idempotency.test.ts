// Idempotency-Key on metered POSTs (issue #30), through the real server on the transport of INKPREP_HTTP:
// a retry with the same key and request replays the first answer byte for byte (Idempotent-Replayed: true)
// and counts one use (X-RateLimit-Remaining of the next request); the key with another request is 422; a
// key still running is 409 with Retry-After; 5xx answers are not kept (the retry runs again), deterministic
// 4xx answers are; large answers (result storage) replay identically; keys are per account and expire after
// 24 hours; bad keys are 400. Shared stores (one SQLite file, one PostgreSQL database) are in
// idempotency-shared.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { InkprepError } from '@inkprep/engine';
import { ROUTES, binary, json, postImageRoute, type RouteDef } from '@inkprep/http';
import { form, startTestServer, tinyPng, until, type TestServer } from './harness.js';

/** A gate the slow test route waits on, and whether a request entered it. */
let entered = 0;
let openGate: () => void = () => {};
let gate: Promise<void> = Promise.resolve();
/** Calls of the flaky route: the first fails with a 503, later ones succeed. */
let flakyCalls = 0;
const BIG = randomBytes(600 * 1024);

const TEST_ROUTES: RouteDef[] = [
  postImageRoute({
    path: '/test/slow', endpoint: 'slow', validate: () => ({}),
    async handle() {
      entered++;
      await gate;
      return json({ ok: true, at: entered });
    },
  }),
  postImageRoute({
    path: '/test/flaky', endpoint: 'flaky', validate: () => ({}),
    async handle() {
      if (++flakyCalls === 1) throw new InkprepError('engine_overloaded', 'busy, try again');
      return json({ ok: true, call: flakyCalls });
    },
  }),
  // An answer valid for 60 s (as a held upscale link): `keepFor`.
  postImageRoute({ path: '/test/expiring', endpoint: 'expiring', validate: () => ({}), handle: async () => ({ ...json({ link: randomBytes(8).toString('hex') }), keepFor: 60_000 }) }),
  // An answer over the inline limit (256 KiB): kept in the result storage.
  postImageRoute({ path: '/test/big', endpoint: 'big', validate: () => ({}), handle: async () => binary(BIG, 'application/octet-stream', { 'X-Size': String(BIG.length) }) }),
];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ routes: [...ROUTES, ...TEST_ROUTES] });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

interface Answer { status: number; headers: Headers; bytes: Buffer; json: () => Record<string, unknown> }

async function send(path: string, body: FormData, idemKey: string | null, apiKey = t.key): Promise<Answer> {
  const headers: Record<string, string> = { 'x-api-key': apiKey };
  if (idemKey !== null) headers['Idempotency-Key'] = idemKey;
  const res = await fetch(t.url + path, { method: 'POST', body, headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: () => JSON.parse(bytes.toString('utf8')) as Record<string, unknown> };
}

const newKey = (): string => 'k-' + randomBytes(12).toString('base64url');
const remaining = (a: Answer): number => Number(a.headers.get('x-ratelimit-remaining'));

/** The headers that matter for a replay: content type, the contract's X- headers. */
function replayable(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    if (k === 'content-type' || (k.startsWith('x-') && k !== 'x-request-id')) out[k] = v;
  });
  return out;
}

describe('Idempotency-Key', () => {
  it('a retry with the same key and request replays the first answer byte for byte and counts one use', async () => {
    const png = await tinyPng();
    const key = newKey();
    const first = await send('/api/v1/scan', form(png, { print_width_inches: '10' }), key);
    expect(first.status, first.bytes.toString()).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send('/api/v1/scan', form(png, { print_width_inches: '10' }), key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(replayable(again.headers)).toEqual(replayable(first.headers));
    // Counted once: the next request (no key) has one use fewer left than the first, not two.
    const next = await send('/api/v1/scan', form(png), null);
    expect(next.status).toBe(200);
    expect(remaining(next)).toBe(remaining(first) - 1);
  });

  it('the same key with another request is 422 idempotency_key_reused (fields, file, path); another account may use the key', async () => {
    const png = await tinyPng();
    const key = newKey();
    expect((await send('/api/v1/scan', form(png, { print_width_inches: '10' }), key)).status).toBe(200);
    const otherField = await send('/api/v1/scan', form(png, { print_width_inches: '11' }), key);
    expect(otherField.status).toBe(422);
    expect(otherField.json()).toMatchObject({ code: 'idempotency_key_reused' });
    const otherPng = Buffer.from(png);
    otherPng[otherPng.length - 5]! ^= 1; // one byte differs (the hash is compared before the image is decoded)
    const otherFile = await send('/api/v1/scan', form(otherPng, { print_width_inches: '10' }), key);
    expect(otherFile.status).toBe(422);
    expect((await send('/api/v1/fix', form(png, { print_width_inches: '10' }), key)).json()).toMatchObject({ code: 'idempotency_key_reused' });
    const other = await t.newAccount('other');
    const theirs = await send('/api/v1/scan', form(png, { print_width_inches: '11' }), key, other.key);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('while the first request runs, the same key is 409 idempotency_key_in_progress with Retry-After; then the answer replays', async () => {
    gate = new Promise((r) => (openGate = r));
    const before = entered;
    const png = await tinyPng();
    const key = newKey();
    const first = send('/test/slow', form(png), key);
    await until(() => entered > before, 60_000, 'the first request to run');
    const second = await send('/test/slow', form(png), key);
    expect(second.status).toBe(409);
    expect(second.json()).toMatchObject({ code: 'idempotency_key_in_progress', retry_after_seconds: 2 });
    expect(second.headers.get('retry-after')).toBe('2');
    openGate();
    const a = await first;
    expect(a.status).toBe(200);
    const third = await send('/test/slow', form(png), key);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.bytes.equals(a.bytes)).toBe(true);
    expect(entered).toBe(before + 1); // ran once
  });

  it('a 5xx is not kept (the retry runs again and its 2xx is kept); a deterministic 4xx is kept', async () => {
    const png = await tinyPng();
    const key = newKey();
    const failed = await send('/test/flaky', form(png), key);
    expect(failed.status).toBe(503);
    const retried = await send('/test/flaky', form(png), key);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const replay = await send('/test/flaky', form(png), key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json()).toEqual({ ok: true, call: 2 });
    expect(flakyCalls).toBe(2);

    const badKey = newKey();
    const bad = await send('/api/v1/scan', form(png, { print_width_inches: 'wide' }), badKey);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_option' });
    const badAgain = await send('/api/v1/scan', form(png, { print_width_inches: 'wide' }), badKey);
    expect(badAgain.status).toBe(400);
    expect(badAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(badAgain.bytes.equals(bad.bytes)).toBe(true);
  });

  it('an answer larger than the inline limit replays identically (kept in the result storage)', async () => {
    const png = await tinyPng();
    const key = newKey();
    const first = await send('/test/big', form(png), key);
    expect(first.status).toBe(200);
    expect(first.bytes.equals(BIG)).toBe(true);
    const again = await send('/test/big', form(png), key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-size')).toBe(String(BIG.length));
    expect(again.headers.get('content-type')).toBe('application/octet-stream');
    expect(again.bytes.equals(BIG)).toBe(true);
  });

  it('a key is remembered 24 hours: after that the same key may carry a new request; the sweep deletes it', async () => {
    const png = await tinyPng();
    const key = newKey();
    expect((await send('/api/v1/scan', form(png, { print_width_inches: '10' }), key)).status).toBe(200);
    t.clock.advance(24 * 3_600_000 + 1000);
    const later = await send('/api/v1/scan', form(png, { print_width_inches: '12' }), key);
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    t.clock.advance(24 * 3_600_000 + 1000);
    const swept = await t.store.idempotency.sweep(t.clock.now());
    expect(swept.removed).toBeGreaterThan(0);
  });

  it('an answer that points at an expiring result (keepFor: a held upscale link) is replayed only until it expires', async () => {
    const png = await tinyPng();
    const key = newKey();
    const first = await send('/test/expiring', form(png), key);
    expect(first.status).toBe(200);
    t.clock.advance(30_000);
    const within = await send('/test/expiring', form(png), key);
    expect(within.headers.get('idempotent-replayed')).toBe('true');
    expect(within.bytes.equals(first.bytes)).toBe(true);
    t.clock.advance(31_000);
    const after = await send('/test/expiring', form(png), key);
    expect(after.status).toBe(200);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(after.bytes.equals(first.bytes)).toBe(false);
  });

  it('a bad key is 400 invalid_idempotency_key, and nothing runs', async () => {
    const png = await tinyPng();
    for (const bad of ['has space', 'x'.repeat(256), 'semi;colon', 'quote"d']) {
      const r = await send('/api/v1/scan', form(png), bad);
      expect(r.status, bad).toBe(400);
      expect(r.json()).toMatchObject({ code: 'invalid_idempotency_key' });
    }
    const ok = await send('/api/v1/scan', form(png), 'x'.repeat(255));
    expect(ok.status).toBe(200);
    const uuid = await send('/api/v1/scan', form(png), '6f1c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f');
    expect(uuid.status).toBe(200);
  });
});
