// Several server processes as one service, over real HTTP: two `inkprep serve` processes with their own
// data folders share one PostgreSQL database (DATABASE_URL). A key works on both, a suspension through
// the admin CLI applies to both at once, an upscale result written by one is served by the other, and
// two processes racing for the last unit of a fair-use cap admit exactly one request.
// The shared vectorize line across processes is tested in vectorize-line.test.ts.
// Skipped, with the reason printed, when no PostgreSQL server answers.
import { execFile } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, pgUnavailableReason } from './pg.js';
import { MAIN, postImage as post, startProc, stopProc, type Proc } from './procs.js';

const pgReason = await pgUnavailableReason();
if (pgReason) console.warn(`[cluster] skipped: ${pgReason}`);

const BOOT_KEY = 'ink_live_' + 'C1uster'.repeat(5) + 'Key01';
let db: { url: string; drop: () => Promise<void> } | null = null;
const procs: Proc[] = [];

async function startServe(): Promise<Proc> {
  const p = await startProc({ dbUrl: db!.url, bootstrapKey: BOOT_KEY });
  procs.push(p);
  return p;
}

/** The admin CLI, run without blocking the event loop (a blocked loop lets the servers' idle timers close pooled keep-alive sockets unseen, and the next fetch fails on them). */
function admin(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [MAIN, 'admin', ...args, '--json'], { env: { ...process.env, DATABASE_URL: db!.url }, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`admin ${args.join(' ')} failed: ${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

async function status(p: Proc, key: string): Promise<number> {
  return (await fetch(`${p.base}/api/v1/vectorize`, { headers: { 'x-api-key': key } })).status;
}

async function png(width: number, height: number): Promise<Blob> {
  const buf = await sharp({ create: { width, height, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 1 } } })
    .composite([{ input: { create: { width: width >> 1, height: height >> 1, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } }, left: width >> 2, top: height >> 2 }])
    .png().toBuffer();
  return new Blob([new Uint8Array(buf)], { type: 'image/png' });
}

function postImage(p: Proc, route: string, key: string, image: Blob, fields: Record<string, string> = {}): Promise<Response> {
  return post(p.base, route, key, image, fields);
}

describe.skipIf(pgReason !== null)('two server processes on one PostgreSQL store', () => {
  let a: Proc;
  let b: Proc;
  let accountId = '';

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await startServe();
    b = await startServe();
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => stopProc(p)));
    await db?.drop();
  });

  it('the key bootstrapped by the first process works on the second; a key made by the admin CLI works on both', async () => {
    expect(await status(a, BOOT_KEY)).toBe(200);
    expect(await status(b, BOOT_KEY)).toBe(200);
    const acct = await admin(['account', 'create', '--name', 'Shop', '--plan', 'business']);
    accountId = acct.id as string;
    const key = (await admin(['key', 'create', accountId])).key as string;
    expect(await status(a, key)).toBe(200);
    expect(await status(b, key)).toBe(200);
    expect(await status(b, key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'))).toBe(401);
  });

  it('a suspension through the admin CLI applies to both processes at once, and reactivation revives the key', async () => {
    const key = (await admin(['key', 'create', accountId])).key as string;
    expect([await status(a, key), await status(b, key)]).toEqual([200, 200]);
    await admin(['account', 'set', accountId, '--status', 'suspended']);
    expect([await status(a, key), await status(b, key)]).toEqual([403, 403]);
    await admin(['account', 'set', accountId, '--status', 'lapsed']);
    expect([await status(a, key), await status(b, key)]).toEqual([402, 402]);
    await admin(['account', 'set', accountId, '--status', 'active']);
    expect([await status(a, key), await status(b, key)]).toEqual([200, 200]);
  });

  it('an upscale result written by one process is served by the other', async () => {
    const res = await postImage(a, '/api/v1/upscale', BOOT_KEY, await png(48, 32), { scale: '2' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { output_url: string; output_hosted_by: string; output_url_expires: boolean };
    expect(body).toMatchObject({ output_hosted_by: 'service', output_url_expires: false });
    const fromB = await fetch(`${b.base}${body.output_url}`);
    expect(fromB.status).toBe(200);
    expect(fromB.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(Buffer.from(await fromB.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([96, 64]);
  });

  it('two processes racing for the last unit of a fair-use cap admit exactly one request', async () => {
    const acct = await admin(['account', 'create', '--name', 'Racer', '--plan', 'business']);
    const key = (await admin(['key', 'create', acct.id as string])).key as string;
    await admin(['account', 'set', acct.id as string, '--remove-bg-cap', '1']);
    const image = await png(24, 24);
    const burst = [a, b, a, b, a, b, a, b, a, b].map((p) => postImage(p, '/api/v1/remove-bg', key, image));
    const statuses = (await Promise.all(burst)).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    const usage = await admin(['usage', acct.id as string]);
    expect(JSON.stringify(usage)).toContain('remove_bg');
  });
});
