// POST /api/v1/mockup/batch over real HTTP: ten colours give ten hosted images equal to ten single POST /mockup
// calls, in item order with the 2.9 facts; every item is validated at the boundary (400 naming items[i].field);
// metering counts one use per image (reserved whole, 429 naming needed/remaining, released when the batch
// fails; with an Idempotency-Key all of them confirmed in the answer's transaction); over the synchronous
// size, 413 batch_too_large; a storage failure gives short-lived links.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWN_STYLES } from '@inkprep/engine';
import { monthBounds } from '../../adapter-http/src/store/types.js';
import { LocalDiskStorage, setHosting, TemporaryHolder, type ResultStorage } from '../../adapter-http/src/storage/index.js';
import { form, get, post, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
let dataDir: string;
let design: Uint8Array;
const COLORS = OWN_STYLES.find((s) => s.key === 'own:classic-tee')!.colors.map((c) => c.id);

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-mockup-batch-'));
  t = await startTestServer({ config: { dataDir } });
  design = new Uint8Array(await sharp({ create: { width: 1200, height: 900, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: { create: { width: 800, height: 600, channels: 4, background: { r: 230, g: 30, b: 30, alpha: 1 } } }, left: 200, top: 150 }])
    .png().toBuffer());
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

type Item = { index: number; garment: { key: string; color: { id: string } }; placement: string; view: string; print: Record<string, unknown>; warnings: { code: string }[]; image: { url: string; width: number; height: number; content_type: string; hosted_by: string; url_expires: boolean; url_expires_at?: string } };

async function pixels(bytes: Uint8Array): Promise<Buffer> {
  return sharp(bytes).raw().toBuffer();
}

describe('POST /api/v1/mockup/batch', () => {
  it('ten colours answer with ten hosted images in item order, each equal to the single POST /mockup', async () => {
    expect(COLORS.length).toBe(10);
    const items = COLORS.map((color) => ({ color }));
    const res = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '600', items: JSON.stringify(items) }));
    expect(res.status).toBe(200);
    const body = res.json as { count: number; images: Item[] };
    expect(body.count).toBe(10);
    expect(body.images.map((i) => i.index)).toEqual([...COLORS.keys()]);
    expect(body.images.map((i) => i.garment.color.id)).toEqual(COLORS);
    for (const [k, img] of body.images.entries()) {
      expect(img).toMatchObject({ garment: { key: 'own:classic-tee' }, placement: 'full-front', view: 'front', image: { content_type: 'image/png', hosted_by: 'service', url_expires: false } });
      expect(img.image.url).toMatch(/^\/api\/v1\/upscale\/results\/[A-Za-z0-9_-]+\.png$/);
      const got = await get(t, img.image.url, null);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('image/png');
      const single = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', color: COLORS[k]!, output_size: '600', response: 'json' }));
      expect(single.status).toBe(200);
      const s = single.json as Item & { image: { base64: string } };
      // The same print numbers and warnings as the single call's 2.9 JSON...
      expect(img.print).toEqual(s.print);
      expect(img.warnings).toEqual(s.warnings);
      expect([img.image.width, img.image.height]).toEqual([s.image.width, s.image.height]);
      // ...and the same picture, pixel for pixel.
      const a = await pixels(got.bytes), b = await pixels(Buffer.from(s.image.base64, 'base64'));
      expect(a.equals(b)).toBe(true);
    }
  }, 600_000);

  it('items take their own style, placement, view, size and inches; shared fields are their defaults', async () => {
    const items = [
      { style: 'own:hoodie', color: 'black', placement: 'left-chest' },
      { color: 'white', placement: 'full-back', view: 'back', print_width_in: 10, top_in: 4 },
      { color: 'navy', size: 'S', offset_x_in: 1.5, placement: 'center-chest' },
    ];
    const res = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '500', format: 'jpeg', fabric: 'false', items: JSON.stringify(items) }));
    expect(res.status).toBe(200);
    const imgs = (res.json as { images: Item[] }).images;
    expect(imgs.map((i) => [i.garment.key, i.garment.color.id, i.placement, i.view])).toEqual([
      ['own:hoodie', 'black', 'left-chest', 'front'], ['own:classic-tee', 'white', 'full-back', 'back'], ['own:classic-tee', 'navy', 'center-chest', 'front'],
    ]);
    expect(imgs[1]!.print).toMatchObject({ width_in: 10, top_in: 4 });
    expect(imgs[2]!.print).toMatchObject({ offset_x_in: 1.5 });
    expect((imgs[2]!.print.description as string)).toContain('on size S');
    for (const i of imgs) expect(i.image.content_type).toBe('image/jpeg');
    const meta = await sharp((await get(t, imgs[0]!.image.url, null)).bytes).metadata();
    expect(meta.format).toBe('jpeg');
    expect(Math.max(meta.width!, meta.height!)).toBe(500);
  }, 300_000);

  it('validates every item at the boundary: 400 naming the item and field, nothing counted', async () => {
    const { account, key } = await t.newAccount('batch-validation');
    await t.store.updateAccount(account.id, { dailyLimit: 5 });
    const cases: [Record<string, string>, string][] = [
      [{ style: 'own:classic-tee', items: JSON.stringify([{ color: 'black' }, { color: 'nope' }]) }, 'items[1].color'],
      [{ style: 'own:classic-tee', items: JSON.stringify([{ placement: 'full-front', view: 'back' }]) }, 'items[0].view'],
      [{ style: 'own:classic-tee', items: JSON.stringify([{ color: 'black' }, { colour: 'white' }]) }, 'items[1].colour'],
      [{ style: 'own:classic-tee', items: JSON.stringify([{}, {}, { print_width_in: 'wide' }]) }, 'items[2].print_width_in'],
      [{ items: JSON.stringify([{ style: 'own:classic-tee' }, { color: 'black' }]) }, 'items[1].style'],
      [{ style: 'own:nope', items: JSON.stringify([{ color: 'black' }]) }, 'items[0].style'],
      [{ style: 'own:classic-tee', items: '[]' }, 'items'],
      [{ style: 'own:classic-tee', items: 'not json' }, 'items'],
      [{ style: 'own:classic-tee', items: JSON.stringify(Array.from({ length: 51 }, () => ({}))) }, 'items'],
      [{ style: 'own:classic-tee' }, 'items'],
      [{ style: 'own:classic-tee', output_size: '99', items: JSON.stringify([{}]) }, 'output_size'],
    ];
    for (const [fields, field] of cases) {
      const res = await post(t, '/api/v1/mockup/batch', form(design, fields), key);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_option', field });
    }
    // None of them counted: all five uses are still there.
    const ok = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '400', items: JSON.stringify([{}]) }), key);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('4');
  }, 300_000);

  it('counts one use per image: reserved whole at admission, 429 naming needed and remaining, released on failure', async () => {
    const { account, key } = await t.newAccount('batch-metering');
    await t.store.updateAccount(account.id, { dailyLimit: 12 });
    const four = JSON.stringify(COLORS.slice(0, 4).map((color) => ({ color })));
    const a = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '400', items: four }), key);
    expect(a.status).toBe(200);
    expect(a.headers.get('x-ratelimit-limit')).toBe('12');
    expect(a.headers.get('x-ratelimit-remaining')).toBe('8');
    // Ten do not fit in the eight left: refused whole, naming what it needs and what is left.
    const ten = JSON.stringify(COLORS.map((color) => ({ color })));
    const b = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '400', items: ten }), key);
    expect(b.status).toBe(429);
    expect(b.json).toMatchObject({ code: 'daily_limit_exceeded', limit: 12, needed: 10, remaining: 8, used: 4 });
    expect(b.json!.error).toContain('needs 10 uses and 8 are left');
    // The refused batch held nothing: a single mockup sees seven left after it.
    const c = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', output_size: '400' }), key);
    expect(c.status).toBe(200);
    expect(c.headers.get('x-ratelimit-remaining')).toBe('7');
    // A batch that fails after admission (over the synchronous size) releases every use it reserved.
    const big = JSON.stringify(COLORS.slice(0, 3).map((color) => ({ color })));
    const d = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '4000', items: big }), key);
    expect(d.status).toBe(413);
    const e = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '400', items: JSON.stringify([{}, {}, {}, {}, {}, {}, {}]) }), key);
    expect(e.status).toBe(200);
    expect(e.headers.get('x-ratelimit-remaining')).toBe('0');
  }, 300_000);

  it('with an Idempotency-Key, a retry replays the answer without counting its uses again', async () => {
    const { account, key } = await t.newAccount('batch-idempotent');
    await t.store.updateAccount(account.id, { dailyLimit: 10 });
    const send = () => fetch(t.url + '/api/v1/mockup/batch', {
      method: 'POST', headers: { 'x-api-key': key, 'Idempotency-Key': 'batch-retry-1' },
      body: form(design, { style: 'own:classic-tee', output_size: '400', items: JSON.stringify([{ color: 'red' }, { color: 'navy' }, { color: 'sand' }]) }),
    });
    const a = await send();
    expect(a.status).toBe(200);
    expect(a.headers.get('x-ratelimit-remaining')).toBe('7');
    const first = await a.json() as { images: Item[] };
    const b = await send();
    expect(b.status).toBe(200);
    expect((await b.json() as { images: Item[] }).images.map((i) => i.image.url)).toEqual(first.images.map((i) => i.image.url));
    const c = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '400', items: JSON.stringify([{}]) }), key);
    expect(c.headers.get('x-ratelimit-remaining')).toBe('6');
  }, 300_000);

  it('with an Idempotency-Key, all uses of a batch are confirmed in the transaction of its answer (none left to a later step)', async () => {
    const { account, key } = await t.newAccount('batch-idempotent-all');
    // Any confirmation outside the answer's transaction fails (as if the process died right after it committed).
    const confirm = t.store.confirm.bind(t.store);
    t.store.confirm = async () => { throw new Error('confirm outside the answer transaction'); };
    try {
      const res = await fetch(t.url + '/api/v1/mockup/batch', {
        method: 'POST', headers: { 'x-api-key': key, 'Idempotency-Key': 'batch-all-uses-1' },
        body: form(design, { style: 'own:classic-tee', output_size: '400', items: JSON.stringify([{ color: 'red' }, { color: 'navy' }, { color: 'sand' }, { color: 'black' }]) }),
      });
      expect(res.status).toBe(200);
    } finally {
      t.store.confirm = confirm;
    }
    // Whatever is still pending is what a sweep would release after a crash: only confirmed uses remain.
    await t.store.releaseOwnPending(new Set(), Number.MAX_SAFE_INTEGER);
    const now = t.clock.now();
    expect((await t.store.usage(account.id, now, monthBounds(now).monthStart)).perEndpoint['mockup-batch']).toBe(4);
  }, 300_000);

  it('over the synchronous size: 413 batch_too_large with the numbers', async () => {
    const items = JSON.stringify(Array.from({ length: 11 }, () => ({})));
    const res = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', items }));
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ code: 'batch_too_large', max_output_pixels: 40_000_000, output_pixels: 44_000_000, items: 11 });
    // Fifty small ones fit.
    const small = JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ color: COLORS[i % COLORS.length] })));
    const ok = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '400', format: 'jpeg', items: small }));
    expect(ok.status).toBe(200);
    expect((ok.json as { count: number }).count).toBe(50);
  }, 600_000);

  it('Prefer: respond-async runs the batch as a job: 202, then the same JSON as its result, its uses counted; a job may be larger', async () => {
    const { account, key } = await t.newAccount('batch-job');
    await t.store.updateAccount(account.id, { dailyLimit: 30 });
    const send = (fields: Record<string, string>) => fetch(t.url + '/api/v1/mockup/batch', {
      method: 'POST', headers: { 'x-api-key': key, Prefer: 'respond-async, wait=120' }, body: form(design, { style: 'own:classic-tee', ...fields }),
    });
    const a = await send({ output_size: '400', items: JSON.stringify([{ color: 'black' }, { color: 'maroon' }]) });
    expect(a.status).toBe(202);
    const body = await a.json() as { status: string; result: { status: number; body: { count: number; images: Item[] } } };
    expect(body.status).toBe('succeeded');
    expect(body.result.body.count).toBe(2);
    expect(body.result.body.images.map((i) => i.garment.color.id)).toEqual(['black', 'maroon']);
    expect((await get(t, body.result.body.images[1]!.image.url, null)).status).toBe(200);
    // Eleven at 2000 px are over the synchronous size but within a job's.
    const big = await send({ items: JSON.stringify(Array.from({ length: 11 }, () => ({}))), fabric: 'false', format: 'jpeg' });
    expect(big.status).toBe(202);
    let done = await big.json() as { id: string; status: string; result: { body: { count: number } } };
    // (wait=120 may end before a busy machine renders eleven 2000 px mockups: then poll the job)
    for (let i = 0; i < 600 && !['succeeded', 'failed', 'canceled'].includes(done.status); i++) {
      await new Promise((r) => setTimeout(r, 1000));
      done = (await get(t, `/api/v1/jobs/${done.id}`, key)).json as typeof done;
    }
    expect(done.status).toBe('succeeded');
    expect(done.result.body.count).toBe(11);
    const c = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '400', items: JSON.stringify([{}]) }), key);
    expect(c.headers.get('x-ratelimit-remaining')).toBe(String(30 - 2 - 11 - 1));
  }, 900_000);

  it('a failing result storage gives short-lived links that serve the images', async () => {
    const failing: ResultStorage = { kind: 'local-disk', put: async () => { throw new Error('disk full'); }, get: async () => null } as unknown as ResultStorage;
    setHosting(dataDir, { storage: failing, holder: new TemporaryHolder() });
    try {
      const res = await post(t, '/api/v1/mockup/batch', form(design, { style: 'own:classic-tee', output_size: '400', items: JSON.stringify([{ color: 'red' }, { color: 'sand' }]) }));
      expect(res.status).toBe(200);
      for (const img of (res.json as { images: Item[] }).images) {
        expect(img.image).toMatchObject({ hosted_by: 'provider', url_expires: true });
        expect(Date.parse(img.image.url_expires_at!)).toBeGreaterThan(Date.now());
        expect(img.image.url).toMatch(/^\/api\/v1\/upscale\/held\//);
        const got = await get(t, img.image.url, null);
        expect(got.status).toBe(200);
        expect((await sharp(got.bytes).metadata()).format).toBe('png');
      }
    } finally {
      setHosting(dataDir, { storage: new LocalDiskStorage({ dir: path.join(dataDir, 'results') }), holder: new TemporaryHolder() });
    }
  }, 300_000);
});
