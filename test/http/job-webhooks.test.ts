// Webhooks of jobs (issue #33) through the public API: a metered POST with `Prefer: respond-async` and a
// `callback_url` on a local receiver (http to 127.0.0.1, allowed by the test configuration's allow list,
// short retry delays). Each completion arrives once, signed (verified with the README's snippet and the
// secret `inkprep admin webhook-secret show` prints) with the job body GET /api/v1/jobs/{id} gives; a
// receiver that fails twice gets it on the third try and the job shows the three attempts; a callback to
// 127.0.0.1 on a server without the allow list is 400 invalid_callback_url at submission (no job); a host
// name resolving to a private address passes submission and is refused at delivery, nothing sent. A store
// refusing the completion's delivery insert does not lose it: the outbox sweep stores it, sent exactly once.
// The sender itself (timeouts, redirects, give-up, restart, rotation): test/webhooks; PostgreSQL: test/scale/webhooks-pg.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type JobBody, type WebhookConfig } from '@inkprep/http';
import { readmeVerifier, startReceiver, type Receiver } from '../webhooks/receiver.js';
import { form, get, startTestServer, tinyPng, until, type TestServer } from './harness.js';

const WEBHOOKS: WebhookConfig = { ...defaultConfig().webhooks, allowHosts: ['127.0.0.1'], firstDelayMs: 100, maxDelayMs: 400, timeoutMs: 5000, pollMs: 200 };

let receiver: Receiver;
let t: TestServer;
let strict: TestServer;
beforeAll(async () => {
  receiver = await startReceiver({ '/flaky': [500, 503] });
  t = await startTestServer({ config: { webhooks: WEBHOOKS } });
  // the operator's default: no allow list; hooks.example.test resolves (for this server) to 127.0.0.1
  strict = await startTestServer({ config: { webhooks: { ...WEBHOOKS, allowHosts: [] } }, webhookResolver: async (h) => (h === 'hooks.example.test' ? [{ address: '127.0.0.1', family: 4 }] : []) });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await strict?.close();
  await receiver?.close();
});

async function submit(s: TestServer, callbackUrl: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(s.url + '/api/v1/scan', { method: 'POST', body: form(await tinyPng(), { callback_url: callbackUrl }), headers: { 'x-api-key': s.key, Prefer: 'respond-async' } });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

type WithWebhooks = JobBody & { webhooks: { id: string; url: string; state: string; next_attempt_at: string | null; attempts: { at: string; status_code: number | null; error: string | null; duration_ms: number }[] }[] };

/** The job once its webhook deliveries are no longer pending. */
async function settled(s: TestServer, id: string): Promise<WithWebhooks> {
  let last: WithWebhooks | null = null;
  await until(async () => {
    last = (await get(s, `/api/v1/jobs/${id}`)).json as unknown as WithWebhooks;
    return last.webhooks.length > 0 && last.webhooks.every((w) => w.state !== 'pending');
  }, 60_000, `the webhook of job ${id}`);
  return last!;
}

describe('job webhooks', () => {
  it('each completion arrives once, signed, with the job body; the README snippet verifies it with the account\'s secret', async () => {
    const verify = await readmeVerifier();
    const url = `http://127.0.0.1:${receiver.port}/done`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await submit(t, url);
      expect(a.status).toBe(202);
      ids.push(a.json.id as string);
    }
    const secret = (await t.store.webhooks.secrets(t.account.id, Date.now(), () => 'unused')).current;
    for (const id of ids) {
      const job = await settled(t, id);
      expect(job.status).toBe('succeeded');
      expect(job.webhooks).toHaveLength(1);
      const w = job.webhooks[0]!;
      expect(w).toMatchObject({ url, state: 'delivered', next_attempt_at: null, attempts: [{ status_code: 200, error: null }] });
      const got = receiver.byId(w.id);
      expect(got).toHaveLength(1);
      const { webhooks: _, ...body } = job;
      expect(JSON.parse(got[0]!.body)).toEqual(body);
      expect(verify(got[0]!.body, String(got[0]!.headers['inkprep-signature']), secret)).toBe(true);
    }
    expect(new Set(ids).size).toBe(3);
  });

  it('a receiver that fails twice gets it on the third try; the job shows three attempts', async () => {
    const a = await submit(t, `http://127.0.0.1:${receiver.port}/flaky`);
    expect(a.status).toBe(202);
    const job = await settled(t, a.json.id as string);
    expect(job.webhooks[0]!.state).toBe('delivered');
    expect(job.webhooks[0]!.attempts.map((x) => x.status_code)).toEqual([500, 503, 200]);
    expect(receiver.byId(job.webhooks[0]!.id).map((r) => r.headers['inkprep-webhook-attempt'])).toEqual(['1', '2', '3']);
  });

  it('the delivery store refuses the completion\'s enqueue (twice): the outbox sweep stores it, and the receiver gets it exactly once', async () => {
    const s = await startTestServer({ config: { webhooks: WEBHOOKS } });
    try {
      // The raw store under the server's wrappers (they look a method up once, at its first call: none yet).
      const enqueue = s.store.webhooks.enqueue.bind(s.store.webhooks);
      let refused = 0;
      s.store.webhooks.enqueue = async (d) => {
        if (refused < 2) {
          refused++;
          throw new Error('delivery insert refused (test)');
        }
        return enqueue(d);
      };
      const url = `http://127.0.0.1:${receiver.port}/outbox`;
      const a = await submit(s, url);
      expect(a.status).toBe(202);
      const job = await settled(s, a.json.id as string);
      expect(refused).toBe(2);
      expect(job.status).toBe('succeeded');
      expect(job.webhooks).toHaveLength(1);
      expect(job.webhooks[0]).toMatchObject({ url, state: 'delivered', attempts: [{ status_code: 200 }] });
      const { webhooks: _, ...body } = job;
      // a few more sweeps: nothing is stored or sent again
      await new Promise((r) => setTimeout(r, 4 * WEBHOOKS.pollMs));
      const got = receiver.received.filter((r) => r.path === '/outbox');
      expect(got).toHaveLength(1);
      expect(JSON.parse(got[0]!.body)).toEqual(body);
      expect((await get(s, `/api/v1/jobs/${body.id}`)).json!.webhooks).toHaveLength(1);
      expect(s.logs.some((l) => l.msg === 'webhook delivery stored by the outbox sweep (its enqueue at completion was lost)' && l.job === body.id)).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('without the allow list: 127.0.0.1 is 400 at submission (no job); a name resolving to a private address is refused at delivery', async () => {
    for (const u of [`http://127.0.0.1:${receiver.port}/x`, `https://127.0.0.1:${receiver.port}/x`, 'https://localhost/x', 'http://hooks.example.com/x']) {
      const r = await submit(strict, u);
      expect(r.status, u).toBe(400);
      expect(r.json).toMatchObject({ code: 'invalid_callback_url', field: 'callback_url' });
    }
    const a = await submit(strict, `https://hooks.example.test:${receiver.port}/sneaky`);
    expect(a.status).toBe(202);
    const job = await settled(strict, a.json.id as string);
    expect(job.webhooks[0]).toMatchObject({ state: 'failed', attempts: [{ status_code: null, error: expect.stringMatching(/^address_not_allowed: .*127\.0\.0\.1/) }] });
    expect(receiver.received.filter((r) => r.path === '/sneaky')).toHaveLength(0);
  });
});
