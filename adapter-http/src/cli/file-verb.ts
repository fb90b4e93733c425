// The common shape of the file-in verbs (info, scan, fix, vectorize, remove-bg, upscale, mockup):
// parse flags, answer --help, check the positional input and -o, reject unknown options, read the input,
// run the body with an in-thread engine, map any error to an exit code, and always close the engine.
import { readFile } from 'node:fs/promises';
import { createEngine, type Engine, type EngineOptions } from '@inkprep/engine';
import { opOptions, parseArgs } from './args.js';
import { EXIT, UsageError, progressDone, reportError } from './command.js';

export interface FileVerbSpec {
  usage: string;
  /** Name of the output file in the "missing -o" message (e.g. `out.png`); omit when the verb writes to stdout. */
  output?: string;
  /** API fields accepted as flags; null passes every flag to the op (which validates and names the field). */
  fields: readonly string[] | null;
  /** Engine options (always in-thread); false when the verb calls pure functions itself. */
  engine?: Omit<EngineOptions, 'threads'> | false;
  /** Print errors as JSON on stderr; default true (vectorize only with --json). */
  jsonErrors?: (flags: Record<string, string | true>) => boolean;
}

export interface FileVerbCall {
  /** The input file's bytes. */
  input: Uint8Array;
  /** The -o path (always set when the spec names an output). */
  output: string;
  /** API fields from the flags, as text. */
  options: Record<string, string>;
  flags: Record<string, string | true>;
  /** In-thread engine (throws if the spec disabled it). */
  engine: Engine;
}

/** Run a file-in verb; resolves to the exit code. */
export async function runFileVerb(argv: string[], spec: FileVerbSpec, body: (call: FileVerbCall) => Promise<void>): Promise<number> {
  const { positionals, flags } = parseArgs(argv);
  if (flags.help) {
    process.stdout.write(spec.usage + '\n');
    return EXIT.ok;
  }
  const engine = spec.engine === false ? null : createEngine({ ...spec.engine, threads: 0 });
  try {
    if (positionals.length !== 1) throw new UsageError(spec.usage);
    if (spec.output && typeof flags.output !== 'string') throw new UsageError(`missing -o <${spec.output}>\n\n${spec.usage}`);
    const options = opOptions(flags);
    if (spec.fields) {
      for (const k of Object.keys(options)) if (!spec.fields.includes(k)) throw new UsageError(`unknown option --${k.replace(/_/g, '-')}\n\n${spec.usage}`);
    }
    const bytes = await readFile(positionals[0]!);
    await body({
      input: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      output: typeof flags.output === 'string' ? flags.output : '',
      options,
      flags,
      get engine(): Engine {
        if (!engine) throw new Error('this verb runs without an engine');
        return engine;
      },
    });
    return EXIT.ok;
  } catch (err) {
    progressDone();
    return reportError(err, spec.jsonErrors ? spec.jsonErrors(flags) : true);
  } finally {
    await engine?.close();
  }
}
