// Real `inkprep serve` child processes for the HTTP benches (scale, metering): start on a port and wait
// for "listening", stop with SIGTERM, throwaway PostgreSQL databases, a tiny multipart scan body, and
// autocannon (loaded through require: it ships no ESM entry).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import pg from 'pg';
import { REPO_ROOT } from './harness.js';

export interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
export type Cannon = (opts: { url: string; method: string; headers: Record<string, string>; body?: Buffer; connections: number; pipelining: number; duration: number }) => Promise<CannonResult>;
export const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;

const MAIN = path.join(REPO_ROOT, 'adapter-http/dist/cli/main.js');
/** Server of the throwaway bench databases (same variable as the tests). */
export const ADMIN_URL = process.env.INKPREP_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Start `inkprep serve` on `port` (1 engine thread, errors-only log, bootstrap key `key`); resolves once listening. */
export function serve(port: number, key: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', INKPREP_THREADS: '1', INKPREP_WARM_BLANKS: '0', INKPREP_LOG_LEVEL: 'error', INKPREP_BOOTSTRAP_KEY: key, INKPREP_FETCH_MODEL: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('listening on')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

export async function stop(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGTERM');
  })));
}

/** null when the PostgreSQL server answers, else why not. */
export async function pgReady(): Promise<string | null> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A throwaway database: its URL and a function that drops it. */
export async function benchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `inkprep_bench_${randomBytes(5).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(ADMIN_URL);
  u.pathname = '/' + name;
  return { url: u.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A multipart body with a 32x32 PNG as `image` (the smallest metered POST: /api/v1/scan). */
export async function scanBody(): Promise<{ body: Buffer; type: string }> {
  const png = await sharp({ create: { width: 32, height: 32, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } }).png().toBuffer();
  const b = 'inkprepscale';
  return {
    type: `multipart/form-data; boundary=${b}`,
    body: Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${b}--\r\n`),
    ]),
  };
}
