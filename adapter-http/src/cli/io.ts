// Where file verbs read and write: a path, or `-` for stdin / stdout. Input problems become the engine's
// input codes (exit 3), output path problems OutputError (exit 4), checked before any work starts.
import { constants } from 'node:fs';
import { access, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InkprepError } from '@inkprep/engine';
import { OutputError, UsageError } from './command.js';

/** The path that means stdin (as input) or stdout (as -o). */
export const STDIO = '-';

/** An option given as `@file` (`--items @order.json`) becomes that file's text; a file that cannot be read is a usage error. */
export async function readAtFile(options: Record<string, string>, field: string, usage?: string): Promise<void> {
  const value = options[field];
  if (!value?.startsWith('@')) return;
  const file = value.slice(1);
  options[field] = new TextDecoder().decode(await readFile(file).catch(() => {
    throw new UsageError(`cannot read the ${field} file ${file}`, usage);
  }));
}

/** Read the whole input: the file at `file`, or stdin for `-`. */
export async function readInput(file: string, usage?: string): Promise<Uint8Array> {
  if (file === STDIO) {
    if (process.stdin.isTTY) throw new UsageError('input "-" reads the image from stdin, which is a terminal: pipe or redirect a file into it', usage);
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    if (bytes.length === 0) throw new InkprepError('missing_image', 'No image on stdin (it was empty)', { path: STDIO });
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  try {
    const bytes = await readFile(file);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new InkprepError('missing_image', `Input file not found: ${file}`, { path: file });
    if (e.code === 'EISDIR') throw new InkprepError('image_unreadable', `Input is a folder, not an image file: ${file}`, { path: file });
    throw new InkprepError('image_unreadable', `Cannot read the input file ${file}: ${e.code ?? e.message}`, { path: file });
  }
}

/**
 * Fail early (before a long run) when `-o` cannot be written: its folder is missing or not writable, or the
 * path is a folder. `-` (stdout) refuses a terminal for binary output.
 */
export async function checkOutput(file: string, binary: boolean, usage?: string): Promise<void> {
  if (file === STDIO) {
    if (binary && process.stdout.isTTY) throw new UsageError('-o - writes the image to stdout, which is a terminal: redirect or pipe it', usage);
    return;
  }
  const dir = path.dirname(path.resolve(file));
  const dirStat = await stat(dir).catch(() => null);
  if (!dirStat) throw new OutputError(`Output folder does not exist: ${dir}`, file);
  if (!dirStat.isDirectory()) throw new OutputError(`Output folder is not a folder: ${dir}`, file);
  if ((await stat(file).catch(() => null))?.isDirectory()) throw new OutputError(`Output path is a folder: ${file}`, file);
  try {
    await access(dir, constants.W_OK);
  } catch {
    throw new OutputError(`Output folder is not writable: ${dir}`, file);
  }
}

/** Write the output bytes to `file` or, for `-`, to stdout (through the original stdout writer). */
export async function writeOutput(file: string, bytes: Uint8Array | string): Promise<void> {
  if (file === STDIO) {
    await new Promise<void>((resolve, reject) => {
      rawStdoutWrite(bytes, (err) => (err ? reject(new OutputError(`Cannot write to stdout: ${err.message}`, STDIO, { cause: err })) : resolve()));
    });
    return;
  }
  try {
    await writeFile(file, bytes);
  } catch (err) {
    throw new OutputError(`Cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, file, { cause: err });
  }
}

let rawStdoutWrite: (chunk: Uint8Array | string, cb: (err?: Error | null) => void) => void = (chunk, cb) => {
  process.stdout.write(chunk, cb);
};

/**
 * While the output goes to stdout, everything else that would be written there (a library's console.log,
 * a summary) goes to stderr instead, so stdout carries nothing but the output bytes.
 */
export function reserveStdout(): void {
  const original = process.stdout.write.bind(process.stdout) as (chunk: Uint8Array | string, cb?: (err?: Error | null) => void) => boolean;
  rawStdoutWrite = (chunk, cb) => {
    original(chunk, cb);
  };
  // A reader that leaves early (`| head`) gives EPIPE: reported through the write callback (exit 4), not as
  // an unhandled stream error.
  process.stdout.on('error', () => {});
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
}
