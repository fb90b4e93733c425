// A local webhook receiver for the tests: an http server on 127.0.0.1 that records every request (headers and
// raw body) and answers from a script (a status per request in turn, then 200), or hangs, or redirects.
// Also the README's verification snippet, cut out of README.md and loaded as a module, so the tests verify
// real deliveries with the very code users copy.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver does with the n-th request: a status, `hang` (never answers), or `big` (200 with 1 MB). */
export type Answer = number | 'hang' | 'big';

export interface Receiver {
  port: number;
  received: Received[];
  /** Requests with this Inkprep-Webhook-Id. */
  byId(id: string): Received[];
  close(): Promise<void>;
}

/** Start a receiver answering the requests to each path with `script[path]` in turn (then 200). */
export async function startReceiver(script: Record<string, Answer[]> = {}): Promise<Receiver> {
  const received: Received[] = [];
  const seen = new Map<string, number>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const p = req.url ?? '/';
      received.push({ path: p, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const n = seen.get(p) ?? 0;
      seen.set(p, n + 1);
      const a = script[p]?.[n] ?? 200;
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      if (a === 'big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(Buffer.alloc(1024 * 1024, 'x'));
        return;
      }
      res.writeHead(a, a >= 300 && a < 400 ? { location: 'http://127.0.0.1:1/elsewhere' } : {});
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    byId: (id) => received.filter((r) => r.headers['inkprep-webhook-id'] === id),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

type Verify = (rawBody: string | Buffer, header: string, secret: string, toleranceSeconds?: number) => boolean;

/** The ```js block after "Inkprep-Signature" in README.md, as a module: its verifyInkprep. */
export async function readmeVerifier(): Promise<Verify> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const m = /Inkprep-Signature[\s\S]*?```js\n([\s\S]*?)```/.exec(readme);
  if (!m) throw new Error('README.md has no ```js verification snippet after Inkprep-Signature');
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'inkprep-readme-')), 'verify.mjs');
  writeFileSync(file, m[1]!);
  const mod = (await import(pathToFileURL(file).href)) as { verifyInkprep?: Verify };
  if (typeof mod.verifyInkprep !== 'function') throw new Error('the README snippet does not export verifyInkprep');
  return mod.verifyInkprep;
}
