// Runs the `inkprep` workspace bin as a child process for the CLI tests (exit code, stdout, stderr).
import { execFile } from 'node:child_process';
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
