// The common shape of the file-in verbs (info, scan, fix, vectorize, remove-bg, upscale, mockup): in the
// engine verbs' frame (engine-verb.ts: --help, unknown options, errors, the engine's start and close), check
// the input and -o (`-` = stdin / stdout) and the -o extension against the format written, read the input,
// and run the body with the in-thread engine and a progress line.
import type { CallOptions, Engine, EngineOptions } from '@inkprep/engine';
import { progressIntervalMsFromEnv } from '../config.js';
import { opOptions } from './args.js';
import { UsageError } from './command.js';
import { runEngineVerb } from './engine-verb.js';
import { STDIO, checkOutput, readInput, reserveStdout, writeOutput } from './io.js';
import { chooseOutputFormat, type OutputFormats } from './output-format.js';
import { clearProgress } from './progress.js';

export interface FileVerbSpec {
  /** The verb's name (progress line). */
  verb: string;
  usage: string;
  /** Name of the output file in the "missing -o" message (e.g. `out.png`); omit when the verb writes no file. */
  output?: string;
  /** The output is binary (PNG/JPEG): `-o -` refuses a terminal. A function decides from the format written (vectorize: PDF). */
  binary?: boolean | ((format: string) => boolean);
  /** The formats the verb writes (verbs with an output): checked against the -o extension, which picks one. */
  formats?: OutputFormats;
  /** API fields accepted as flags (besides -o, --help, --json, --quiet, --progress); any other flag is a usage error. */
  fields: readonly string[];
  /** Engine options (always in-thread). */
  engine?: Omit<EngineOptions, 'threads'>;
}

export interface FileVerbCall {
  /** The input's bytes (file or stdin). */
  input: Uint8Array;
  /** The -o path, `-` for stdout (always set when the spec names an output). */
  output: string;
  /** API fields from the flags, as text. */
  options: Record<string, string>;
  flags: Record<string, string | true>;
  /** In-thread engine. */
  engine: Engine;
  /** Per-call engine options: the progress listener (unless --quiet). */
  call: CallOptions;
  /** Write the output bytes to -o (file or stdout). */
  write(bytes: Uint8Array | string): Promise<void>;
  /** Print the JSON summary: on stdout, or on stderr when stdout carries the output. */
  report(summary: unknown, pretty?: boolean): void;
  /** A warning as one JSON line on stderr (`{ warning, code }`), unless --quiet. */
  warn(code: string, message: string): void;
  /** A line for people on stderr (what was written, and how it differs from what was asked), unless --quiet. */
  say(line: string): void;
}

/** Run a file-in verb; resolves to the exit code. */
export async function runFileVerb(argv: string[], spec: FileVerbSpec, body: (call: FileVerbCall) => Promise<void>): Promise<number> {
  return runEngineVerb(argv, spec, async ({ positionals, flags, usage, startEngine }) => {
    if (positionals.length === 0) throw new UsageError('missing the input file (a path, or - for stdin)', usage);
    if (positionals.length > 1) throw new UsageError(`one input file expected, got ${positionals.length}: ${positionals.join(' ')}`, usage);
    if (spec.output && typeof flags.output !== 'string') throw new UsageError(`missing -o <${spec.output}> (a path, or - for stdout)`, usage);
    if (!spec.output && flags.output !== undefined) throw new UsageError(`${spec.verb} prints JSON on stdout and takes no -o`, usage);
    const options = opOptions(flags);
    const output = typeof flags.output === 'string' ? flags.output : '';
    const toStdout = output === STDIO;
    const quiet = flags.quiet === true;
    // read before the input: a bad INKPREP_PROGRESS_SECONDS is named before any input or output problem
    const intervalMs = progressIntervalMsFromEnv();
    let format = '';
    if (spec.output && spec.formats) {
      const field = spec.formats.field;
      format = chooseOutputFormat(spec.verb, output, field ? options[field] : undefined, spec.formats, usage);
      if (field) options[field] = format;
    }
    const input = await readInput(positionals[0]!, usage);
    const binary = typeof spec.binary === 'function' ? spec.binary(format) : (spec.binary ?? false);
    if (spec.output) await checkOutput(output, binary, usage);
    if (toStdout) reserveStdout();
    const { engine, call } = startEngine({ engine: spec.engine, intervalMs });
    await body({
      input,
      output,
      options,
      flags,
      engine,
      call,
      write: (bytes) => {
        clearProgress();
        return writeOutput(output, bytes);
      },
      report: (summary, pretty = false) => {
        clearProgress();
        const text = JSON.stringify(summary, null, pretty && !toStdout ? 2 : undefined) + '\n';
        // stdout is reserved for the output bytes when -o -: the summary goes to stderr instead.
        process.stdout.write(text);
      },
      warn: (code, message) => {
        clearProgress();
        if (!quiet) process.stderr.write(JSON.stringify({ warning: message, code }) + '\n');
      },
      say: (line) => {
        clearProgress();
        if (!quiet) process.stderr.write(line + '\n');
      },
    });
  });
}
