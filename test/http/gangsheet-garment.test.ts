// POST /api/v1/gangsheet's white layer on a catalog garment (`style` + `color`) over real HTTP, as POST
// /underbase takes it: an own style's colour and a supplier style's (a local S&S stub behind the catalog) give
// the same white plate, pixel for pixel, as the equivalent hex `garment_color`, the manifest names the catalog
// colour; and every garment mistake (unknown colour or style, hex and style both, a colour without a style) is
// the same 400 body as /underbase answers for the same fields. As a job (`Prefer: respond-async`) the supplier
// style is resolved when the job runs: its manifest names it, an unknown colour fails the job with that 400.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWN_STYLES } from '@inkprep/engine';
import { readStoredZip } from '@inkprep/engine/internals';
import { Catalog, SsActivewearConnector } from '../../adapter-http/src/catalog/index.js';
import { useCatalog } from '../../adapter-http/src/routes/garment-style.js';
import { form, get, post, startTestServer, until, type TestServer } from './harness.js';
import { SS_RED, startSsStub, type SsStub } from './ss-stub.js';

const NAVY = OWN_STYLES.find((s) => s.id === 'classic-tee')!.colors.find((c) => c.id === 'navy')!.hex;

let stub: SsStub;
let t: TestServer;
let designs: Uint8Array[];

/** 200 x 200 px: an outer ring in `ring` (knocked out on a shirt of that colour) around a blue disc. */
async function ringed(ring: string): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><circle cx="100" cy="100" r="95" fill="${ring}"/><circle cx="100" cy="100" r="55" fill="#2a8cff"/></svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

function sheetForm(fields: Record<string, string>): FormData {
  // plates of separate requests are compared pixel for pixel, so their layouts must agree: a long wall-clock cap
  // keeps a busy machine's clock out of it (this small order ends its search on its own, as with the default)
  const f = form(null, { items: JSON.stringify([{ design: 0, quantity: 3, width_in: 2 }, { design: 1, quantity: 2, width_in: 2 }]), sheet_width_in: '11', underbase: 'true', time_budget_ms: '60000', ...fields });
  designs.forEach((d, i) => f.append('design', new Blob([d]), `design-${i}.png`));
  return f;
}

/** The white plate PNG of a format=png sheet (the zip's second entry), decoded to grey pixels. */
async function whitePlate(fields: Record<string, string>): Promise<Buffer> {
  const res = await post(t, '/api/v1/gangsheet', sheetForm({ ...fields, format: 'png' }));
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const [, white] = readStoredZip(res.bytes);
  return sharp(white!.data).extractChannel(0).raw().toBuffer();
}

const inked = (plate: Buffer) => plate.reduce((n, v) => n + (v > 0 ? 1 : 0), 0);

/** The 400 body without the per-request id, to compare two endpoints' answers. */
function errorOf(res: { status: number; json: Record<string, unknown> | null }): Record<string, unknown> {
  expect(res.status, JSON.stringify(res.json)).toBe(400);
  const { request_id: _, ...rest } = res.json!;
  return rest;
}

beforeAll(async () => {
  designs = [await ringed(NAVY), await ringed(SS_RED)];
  stub = await startSsStub();
  useCatalog(new Catalog({ connectors: [new SsActivewearConnector({ baseUrl: stub.baseUrl, account: '1', apiKey: 'k', imageBase: 'http://127.0.0.1:1/', timeoutMs: 30_000, ttlMs: 60_000 })], deadlineMs: 35_000 }));
  t = await startTestServer();
}, 60_000);

afterAll(async () => {
  useCatalog(null);
  await t?.close();
  await stub?.close();
});

describe('POST /api/v1/gangsheet white layer on a catalog garment', () => {
  it('an own style\'s colour makes the same white plate as its hex, and the manifest names it', async () => {
    const byStyle = await whitePlate({ style: 'own:classic-tee', color: 'Navy' });
    const byHex = await whitePlate({ garment_color: NAVY });
    const bare = await whitePlate({});
    expect(byStyle.equals(byHex)).toBe(true);
    // the navy rings (3 of the 5 copies) are knocked out on the navy shirt: far less white than on no garment
    expect(inked(byStyle)).toBeLessThan(inked(bare) * 0.8);
    const m = await post(t, '/api/v1/gangsheet', sheetForm({ style: 'own:classic-tee', color: 'Navy', format: 'json' }));
    expect(m.status).toBe(200);
    expect(m.json!.white).toMatchObject({ garment_color: NAVY, garment_source: 'own:classic-tee:navy', knockout: 'garment' });
    const hex = await post(t, '/api/v1/gangsheet', sheetForm({ garment_color: NAVY, format: 'json' }));
    expect(hex.json!.white).toMatchObject({ garment_color: NAVY, garment_source: null });
  }, 120_000);

  it('a supplier style\'s colour comes from the catalog: the same white plate as its hex', async () => {
    const byStyle = await whitePlate({ style: 'ss:39', color: 'red' });
    const byHex = await whitePlate({ garment_color: SS_RED });
    expect(byStyle.equals(byHex)).toBe(true);
    expect(inked(byStyle)).toBeLessThan(inked(await whitePlate({})) * 0.8);
    const m = await post(t, '/api/v1/gangsheet', sheetForm({ style: 'ss:39', color: 'red', format: 'json' }));
    expect(m.json!.white).toMatchObject({ garment_color: SS_RED, garment_source: 'ss:39:red', knockout: 'garment' });
  }, 120_000);

  it('garment mistakes are the same 400 as on /underbase', async () => {
    for (const [fields, field] of [
      [{ style: 'own:classic-tee', color: 'ultraviolet' }, 'color'],
      [{ style: 'ss:39', color: 'ultraviolet' }, 'color'],
      [{ style: 'own:tuxedo' }, 'style'],
      [{ style: 'ss:77' }, 'style'],
      [{ style: 'xx:1' }, 'style'],
      [{ style: 'own:classic-tee', garment_color: '#000000' }, 'garment_color'],
      [{ color: 'navy' }, 'color'],
    ] as const) {
      const sheet = errorOf(await post(t, '/api/v1/gangsheet', sheetForm(fields)));
      const underbase = errorOf(await post(t, '/api/v1/underbase', form(designs[0]!, fields)));
      expect(sheet, JSON.stringify(fields)).toEqual(underbase);
      expect(sheet).toMatchObject({ code: 'invalid_option', field });
    }
    // checked with the white layer off too, as the other white options are
    expect(errorOf(await post(t, '/api/v1/gangsheet', sheetForm({ underbase: 'false', style: 'own:classic-tee', color: 'ultraviolet' })))).toMatchObject({ field: 'color' });
  }, 120_000);

  it('as a job: the supplier style resolves when the job runs; an unknown colour fails it with the same 400', async () => {
    const run = async (fields: Record<string, string>) => {
      const res = await fetch(t.url + '/api/v1/gangsheet', { method: 'POST', body: sheetForm({ ...fields, format: 'json' }), headers: { 'x-api-key': t.key, Prefer: 'respond-async' } });
      expect(res.status).toBe(202);
      const id = ((await res.json()) as { id: string }).id;
      let job: Record<string, unknown> = {};
      await until(async () => {
        job = (await get(t, `/api/v1/jobs/${id}`)).json!;
        return ['succeeded', 'failed', 'canceled'].includes(job.status as string);
      }, 120_000, 'the gang sheet job to end');
      return job as { status: string; result?: { body: { white: Record<string, unknown> } }; error?: { status: number; body: Record<string, unknown> } };
    };
    const ok = await run({ style: 'ss:39', color: 'red' });
    expect(ok.status).toBe('succeeded');
    expect(ok.result!.body.white).toMatchObject({ garment_color: SS_RED, garment_source: 'ss:39:red' });
    const bad = await run({ style: 'ss:39', color: 'ultraviolet' });
    expect(bad.status).toBe('failed');
    expect(bad.error).toMatchObject({ status: 400, body: { code: 'invalid_option', field: 'color' } });
  }, 240_000);
});
