// Idempotency keys across processes (issue #30): two `inkprep serve` processes sharing one store, on one
// SQLite file (one data dir) and on one PostgreSQL database (skipped with the reason printed when no server
// answers). A key sent to process A and then to B gets identical bodies and one counted use (admin CLI
// `usage`); the same request sent to both at once runs once (the other is 409 in progress until the first
// is done, then its replay: identical bytes); the key with another request is 422 on either process.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, pgUnavailableReason } from '../scale/pg.js';
import { form, tinyPng } from './harness.js';
import { MAIN, startServe, type ServeProcess } from './serve-process.js';

interface Answer { status: number; headers: Headers; bytes: Buffer }

async function send(base: string, apiKey: string, idemKey: string, fields: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${base}/api/v1/scan`, { method: 'POST', body: form(await tinyPng(), fields), headers: { 'x-api-key': apiKey, 'Idempotency-Key': idemKey } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/**
 * What a retrying client does: send again (same key) after a dropped connection (a kept-alive socket the
 * server closed as it was reused: EPIPE, ECONNRESET) and after a 409 in progress (its Retry-After later).
 * Resolves to the final answer and the 409s seen on the way.
 */
async function sendRetrying(base: string, apiKey: string, idemKey: string, fields: Record<string, string>): Promise<{ answer: Answer; inProgress: Answer[] }> {
  const inProgress: Answer[] = [];
  for (let attempt = 0; ; attempt++) {
    let answer: Answer;
    try {
      answer = await send(base, apiKey, idemKey, fields);
    } catch (err) {
      if (attempt >= 20) throw err;
      continue;
    }
    if (answer.status !== 409 || attempt >= 20) return { answer, inProgress };
    inProgress.push(answer);
    await new Promise((r) => setTimeout(r, Number(answer.headers.get('retry-after')) * 1000));
  }
}

function admin(env: Record<string, string>, args: string[]): any {
  const r = spawnSync(process.execPath, [MAIN, 'admin', ...args, '--json'], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Uses of the account counted in the window (all keys), as `inkprep admin usage` reports them. */
function used(env: Record<string, string>, accountId: string): number {
  return (admin(env, ['usage', accountId]).per_key as { used: number }[]).reduce((n, k) => n + k.used, 0);
}

function sharedStoreSuite(name: string, setup: () => Promise<{ env: Record<string, string>; cleanup: () => Promise<void> } | string>): void {
  describe(`Idempotency-Key across two processes on ${name}`, () => {
    let skip: string | null = null;
    let env: Record<string, string> = {};
    let cleanup: () => Promise<void> = async () => {};
    let a: ServeProcess | null = null;
    let b: ServeProcess | null = null;
    let accountId = '';
    let apiKey = '';

    beforeAll(async () => {
      const s = await setup();
      if (typeof s === 'string') {
        skip = s;
        console.warn(`skipping idempotency on ${name}: ${s}`);
        return;
      }
      ({ env, cleanup } = s);
      accountId = admin(env, ['account', 'create', '--name', 'idem', '--plan', 'business', '--create']).id;
      apiKey = admin(env, ['key', 'create', accountId]).key;
      [a, b] = await Promise.all([startServe({ ...env, INKPREP_LOG_LEVEL: 'warn' }), startServe({ ...env, INKPREP_LOG_LEVEL: 'warn' })]);
    }, 240_000);
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await cleanup();
    }, 60_000);

    it('a key sent to process A, then to B: identical bodies, one use counted; another request with it is 422 on B', async (ctx) => {
      if (skip) return ctx.skip();
      const key = 'shared-' + randomBytes(8).toString('hex');
      const before = used(env, accountId);
      const first = (await sendRetrying(a!.base, apiKey, key, { print_width_inches: '10' })).answer;
      expect(first.status, first.bytes.toString()).toBe(200);
      const onB = (await sendRetrying(b!.base, apiKey, key, { print_width_inches: '10' })).answer;
      expect(onB.status).toBe(200);
      expect(onB.headers.get('idempotent-replayed')).toBe('true');
      expect(onB.bytes.equals(first.bytes)).toBe(true);
      expect(used(env, accountId)).toBe(before + 1);
      const other = (await sendRetrying(b!.base, apiKey, key, { print_width_inches: '9' })).answer;
      expect(other.status).toBe(422);
      expect(JSON.parse(other.bytes.toString())).toMatchObject({ code: 'idempotency_key_reused' });
    }, 240_000);

    it('the same request sent to both at once runs once: the other waits (409 in progress) or gets the replay', async (ctx) => {
      if (skip) return ctx.skip();
      const before = used(env, accountId);
      for (let round = 0; round < 3; round++) {
        const key = `race-${round}-` + randomBytes(8).toString('hex');
        const [x, y] = await Promise.all([sendRetrying(a!.base, apiKey, key, {}), sendRetrying(b!.base, apiKey, key, {})]);
        const answers = [x.answer, y.answer];
        const why = answers.map((r) => `${r.status} ${r.bytes.toString().slice(0, 80)}`).join(' | ');
        for (const r of answers) expect(r.status, why).toBe(200);
        expect(x.answer.bytes.equals(y.answer.bytes), why).toBe(true);
        // At most one ran (none seen only if a dropped connection lost its answer: then both are replays).
        expect(answers.filter((r) => r.headers.get('idempotent-replayed') === null).length, why).toBeLessThanOrEqual(1);
        for (const r of [...x.inProgress, ...y.inProgress]) {
          expect(JSON.parse(r.bytes.toString())).toMatchObject({ code: 'idempotency_key_in_progress' });
          expect(r.headers.get('retry-after')).toBe('2');
        }
      }
      // One use per key, however the two processes and the retries met.
      expect(used(env, accountId)).toBe(before + 3);
    }, 240_000);
  });
}

sharedStoreSuite('one SQLite file', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-idem-'));
  return { env: { INKPREP_DATA_DIR: dir }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

sharedStoreSuite('one PostgreSQL database', async () => {
  const reason = await pgUnavailableReason();
  if (reason) return reason;
  const db = await createTestDatabase();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-idem-pg-'));
  return {
    env: { DATABASE_URL: db.url, INKPREP_DATA_DIR: dir },
    cleanup: async () => {
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    },
  };
});
