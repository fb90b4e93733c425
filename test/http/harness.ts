// Shared setup for the HTTP tests: a real server on an ephemeral port with an in-memory store,
// an injected clock, a one-thread engine, and a Business account with one key. The transport comes from
// INKPREP_HTTP (uws | node | auto, as for `inkprep serve`): CI runs this suite once per transport.
import sharp from 'sharp';
import { createEngine, type Engine } from '@inkprep/engine';
import {
  ROUTES, createApiKey, defaultConfig, openStore, parseTransportChoice, startServer,
  type Account, type InkprepServer, type LogLevel, type RouteDef, type ServerConfig, type ServerOptions, type Store,
} from '@inkprep/http';
import { expectingMismatch, recordSeen } from '../openapi-record.js';
import { checkResponse } from './openapi-check.js';

/** A settable clock (ms since the epoch). */
export class FakeClock {
  constructor(public t = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface TestServer {
  server: InkprepServer;
  store: Store;
  engine: Engine;
  clock: FakeClock;
  url: string;
  account: Account;
  key: string;
  /** Log lines the server wrote (parsed). */
  logs: Record<string, unknown>[];
  /** A new Business account with one key. */
  newAccount(name?: string): Promise<{ account: Account; key: string }>;
  close(): Promise<void>;
}

/**
 * The server side of the OpenAPI check: every reply of a test server, whatever client asked (fetch, node:http,
 * raw sockets, a browser), is checked against the document as it is sent; `close()` fails on a mismatch.
 */
function openApiObserver(mismatches: string[]): NonNullable<Parameters<typeof startServer>[0]['onReply']> {
  return ({ method, path, requestId, reply }) => {
    if (path.startsWith('/test/')) {
      recordSeen({ via: 'server', skipped: 'test-only route', path, status: reply.status });
      return;
    }
    const headers = new Headers(reply.headers);
    headers.set('content-type', reply.contentType);
    headers.set('x-request-id', requestId);
    headers.set('x-content-type-options', 'nosniff'); // added by both transports to every reply (checked by the clients)
    const isJson = reply.contentType.startsWith('application/json') && method !== 'head';
    const body = isJson ? (typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8')) : null;
    const r = checkResponse(method, path, reply.status, headers, body);
    recordSeen({ via: 'server', op: r.op, status: r.status, errors: r.errors, path, id: requestId });
    if (r.errors.length && !expectingMismatch()) mismatches.push(`${method.toUpperCase()} ${path} -> ${reply.status}: ${r.errors.join('; ')}`);
  };
}

export async function startTestServer(opts: { routes?: readonly RouteDef[]; config?: Partial<ServerConfig>; engine?: Engine; logLevel?: LogLevel; webhookResolver?: ServerOptions['webhookResolver'] } = {}): Promise<TestServer> {
  const mismatches: string[] = [];
  const clock = new FakeClock();
  const store = openStore({ dataDir: ':memory:' });
  const engine = opts.engine ?? createEngine({ threads: 1 });
  const logs: Record<string, unknown>[] = [];
  const { createLogger } = await import('@inkprep/http');
  const log = createLogger(opts.logLevel ?? 'info', (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
  const server = await startServer({
    config: defaultConfig({ dataDir: ':memory:', threads: 1, http: parseTransportChoice(process.env.INKPREP_HTTP), ...opts.config }),
    store, engine, clock: clock.now, log, routes: opts.routes ?? ROUTES, onReply: openApiObserver(mismatches),
    ...(opts.webhookResolver ? { webhookResolver: opts.webhookResolver } : {}),
  });
  const newAccount = async (name = 'test'): Promise<{ account: Account; key: string }> => {
    const account = await store.createAccount({ name, plan: 'business', now: clock.now() });
    const { secret } = await createApiKey(store, account.id, clock.now());
    return { account, key: secret };
  };
  const first = await newAccount();
  return {
    server, store, engine, clock, logs, url: `http://127.0.0.1:${server.port}`, account: first.account, key: first.key, newAccount,
    async close() {
      await server.close(5_000);
      if (!opts.engine) await engine.close();
      if (mismatches.length) throw new Error(`OpenAPI: ${mismatches.length} replies of this server do not match the document:\n${mismatches.slice(0, 10).join('\n')}`);
    },
  };
}

let tiny: Uint8Array | null = null;
/** A 32x32 PNG with a red square on transparency. */
export async function tinyPng(): Promise<Uint8Array> {
  if (!tiny) {
    const buf = await sharp({ create: { width: 32, height: 32, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: { create: { width: 16, height: 16, channels: 4, background: { r: 220, g: 20, b: 20, alpha: 1 } } }, left: 8, top: 8 }])
      .png().toBuffer();
    tiny = new Uint8Array(buf);
  }
  return tiny.slice();
}

/** A multipart form with an `image` file part (when given) and text fields. */
export function form(image: Uint8Array | null, fields: Record<string, string> = {}, filename = 'art.png'): FormData {
  const f = new FormData();
  if (image) f.append('image', new Blob([image]), filename);
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

/** POST a form with the key in x-api-key; returns status, parsed JSON (or null) and headers. */
export async function post(t: TestServer, path: string, body: FormData, key: string | null = t.key): Promise<{ status: number; json: Record<string, unknown> | null; headers: Headers; bytes: Uint8Array }> {
  const res = await fetch(t.url + path, { method: 'POST', body, headers: key ? { 'x-api-key': key } : {} });
  return read(res);
}

/** GET with the key in x-api-key. */
export async function get(t: TestServer, path: string, key: string | null = t.key, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> | null; headers: Headers; bytes: Uint8Array }> {
  const res = await fetch(t.url + path, { headers: key ? { 'x-api-key': key, ...headers } : headers });
  return read(res);
}

async function read(res: Response): Promise<{ status: number; json: Record<string, unknown> | null; headers: Headers; bytes: Uint8Array }> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  let json: Record<string, unknown> | null = null;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) json = JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
  return { status: res.status, json, headers: res.headers, bytes };
}

/**
 * Deadlines of the waits for an event (`until`): at least this long. A deadline only bounds a hang, it is not
 * what a test proves: on a busy 2-core machine a server start or a reply can take many times its idle time,
 * and a behaviour that is broken never comes, so it still fails (later). Tests that prove a time bound
 * measure it themselves.
 */
export const MIN_WAIT_MS = 60_000;

/** Wait until `cond` holds (polling every 5 ms), failing after max(`ms`, MIN_WAIT_MS) naming `what`. */
export async function until(cond: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + Math.max(ms, MIN_WAIT_MS);
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
