// Real `inkprep serve` / `inkprep cluster` child processes on one PostgreSQL database, for the scale
// tests: start one (optionally inside a network namespace, as if on another host), call it over HTTP,
// stop it by PID. Also the images the vectorize line tests convert.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

export const MAIN = fileURLToPath(new URL('../../adapter-http/dist/cli/main.js', import.meta.url));

export interface Proc {
  child: ChildProcess;
  /** http://address:port of the API. */
  base: string;
  dataDir: string;
  /** stderr so far (the JSON logs go to stdout, ignored). */
  stderr(): string;
}

export interface StartOptions {
  dbUrl: string;
  bootstrapKey: string;
  env?: Record<string, string>;
  /** Command prefix, e.g. ['ip', 'netns', 'exec', 'ns1'] (it execs, so the PID is the server's). */
  wrap?: string[];
  /** Address the test reaches the server on (default 127.0.0.1). */
  address?: string;
  /** `serve` (default) or `cluster` (then PORT must be fixed). */
  command?: 'serve' | 'cluster';
}

/** Start `inkprep serve` and resolve once it listens. */
export function startProc(opts: StartOptions): Promise<Proc> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-node-'));
  const wrap = opts.wrap ?? [];
  const argv = [...wrap, process.execPath, MAIN, opts.command ?? 'serve'];
  const child = spawn(argv[0]!, argv.slice(1), {
    env: {
      ...process.env, PORT: '0', HOST: opts.address ? '0.0.0.0' : '127.0.0.1', DATABASE_URL: opts.dbUrl, INKPREP_DATA_DIR: dataDir,
      INKPREP_BOOTSTRAP_KEY: opts.bootstrapKey, INKPREP_THREADS: '1', INKPREP_LOG_LEVEL: 'warn', ...opts.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${opts.command ?? 'serve'} did not start: ${err}`)), 60_000);
    const pattern = opts.command === 'cluster' ? /cluster: \d+ processes on port (\d+)/ : /listening on http:\/\/[^:/\s]+:(\d+)\/api\/v1/;
    const onData = (): void => {
      const m = pattern.exec(err);
      if (!m) return;
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      resolve({ child, base: `http://${opts.address ?? '127.0.0.1'}:${m[1]}`, dataDir, stderr: () => err });
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${opts.command ?? 'serve'} exited ${code}: ${err}`));
    });
  });
}

/** SIGTERM (or `signal`) the process by PID and wait for it to exit; removes its data folder. */
export async function stopProc(p: Proc, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) {
    await new Promise<void>((resolve) => {
      p.child.once('exit', () => resolve());
      p.child.kill(signal);
    });
  }
  rmSync(p.dataDir, { recursive: true, force: true });
}

/** A TCP port nobody listens on right now (for `inkprep cluster`, which needs a fixed PORT). */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** A PNG of `n` coloured discs on white, `size` px square: deterministic; traced cost grows with n and size. */
export async function discsPng(size: number, n: number): Promise<Blob> {
  let seed = 7;
  const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const palette = ['#e6194b', '#3cb44b', '#ffe119', '#4363d8', '#f58231', '#911eb4', '#46f0f0', '#f032e6', '#bcf60c', '#008080', '#9a6324', '#800000'];
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><rect width="100%" height="100%" fill="#fff"/>`;
  for (let i = 0; i < n; i++) svg += `<circle cx="${Math.floor(rnd() * size)}" cy="${Math.floor(rnd() * size)}" r="${Math.floor(4 + rnd() * size / 40)}" fill="${palette[i % palette.length]}"/>`;
  const buf = await sharp(Buffer.from(svg + '</svg>')).png().toBuffer();
  return new Blob([new Uint8Array(buf)], { type: 'image/png' });
}

/** POST an image as multipart `image` plus fields. */
export function postImage(base: string, route: string, key: string, image: Blob, fields: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  const f = new FormData();
  f.append('image', image, 'art.png');
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return fetch(`${base}${route}`, { method: 'POST', body: f, headers: { 'x-api-key': key }, signal });
}
