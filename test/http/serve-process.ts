// `inkprep serve` as a child process for the transport tests: a separate process (so the client and the
// server do not share an event loop and socket timing is real), its JSON log lines, and a clean stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../adapter-http/dist/cli/main.js', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT` */
  base: string;
  port: number;
  dataDir: string;
  /** stdout so far (JSON log lines). */
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Start `inkprep serve` (PORT 0 unless given) with a fresh data dir; resolves once it listens. */
export function startServe(env: Record<string, string> = {}): Promise<ServeProcess> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-serve-'));
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', INKPREP_DATA_DIR: dataDir, INKPREP_THREADS: '1', INKPREP_WARM_BLANKS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on http:\/\/[^:/\s]+:(\d+)\/api\/v1/.exec(err);
      if (m) {
        clearTimeout(timer);
        const port = Number(m[1]);
        resolve({
          child, port, base: `http://127.0.0.1:${port}`, dataDir, stdout: () => out, stderr: () => err,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
            rmSync(dataDir, { recursive: true, force: true });
          },
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
      reject(new Error(`serve exited ${code}: ${err}`));
    });
  });
}

/** Run `inkprep serve` expecting it to fail: exit code, stderr, stdout. */
export function serveFails(env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-serve-'));
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: { ...process.env, HOST: '127.0.0.1', INKPREP_DATA_DIR: dataDir, INKPREP_THREADS: '1', INKPREP_WARM_BLANKS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, stderr: err, stdout: out });
    });
  });
}

/** The transport this test run expects (`INKPREP_HTTP` from the vitest project). */
export function expectedTransport(): 'uws' | 'node' | 'auto' {
  const v = (process.env.INKPREP_HTTP ?? '').trim();
  return v === 'uws' || v === 'node' ? v : 'auto';
}
