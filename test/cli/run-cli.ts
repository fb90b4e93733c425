// Runs the `inkprep` workspace bin as a child process for the CLI tests: with text output, with bytes on
// stdin/stdout, and under a pseudo-terminal (util-linux `script`) to see what a terminal user sees.
import { execFile, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'node_modules/.bin/inkprep');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `inkprep ...args` (through `npx --no-install` when viaNpx), with extra environment variables. */
export function runCli(args: string[], env: Record<string, string> = {}, viaNpx = false): Promise<CliResult> {
  const [cmd, argv] = viaNpx ? ['npx', ['--no-install', 'inkprep', ...args]] : [process.execPath, [BIN, ...args]];
  return new Promise((resolve) => {
    execFile(cmd, argv, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export interface CliBytesResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Run `inkprep ...args` with `stdin` piped in (closed empty when omitted); stdout comes back as bytes. */
export function runCliBytes(args: string[], o: { stdin?: Uint8Array; env?: Record<string, string> } = {}): Promise<CliBytesResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...o.env } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.on('error', () => {}); // the CLI may exit before reading (usage errors)
    child.stdin.end(o.stdin ? Buffer.from(o.stdin) : undefined);
  });
}

/** Why `script` cannot run here, or null when it can. */
export function terminalUnavailable(): string | null {
  const r = spawnSync('script', ['-qefc', 'true', '/dev/null'], { stdio: 'ignore' });
  if (r.error) return `util-linux script is not installed (${r.error.message})`;
  return r.status === 0 ? null : `script -qefc true exited ${r.status}`;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Run `inkprep ...args` with stdin, stdout and stderr on a pseudo-terminal; `output` is what it showed. */
export function runCliInTerminal(args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const command = [process.execPath, BIN, ...args].map(shellQuote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', COLUMNS: '200', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => out.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output: Buffer.concat(out).toString('utf8') }));
  });
}
