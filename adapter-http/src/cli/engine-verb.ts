// The frame of the CLI verbs that run the engine (the file verbs, mockup-batch, gangsheet): argv parsed and
// --help answered, flags that are not the op's refused before anything else, the in-thread engine started
// only when the verb has checked its arguments (a usage error costs no engine start) with its progress line,
// any error printed as its one JSON line with its exit code, and the engine closed however the verb ends.
import { createEngine, type CallOptions, type Engine, type EngineOptions } from '@inkprep/engine';
import { engineConfigFromEnv, engineOptions, progressIntervalMsFromEnv } from '../config.js';
import { FILE_VERB_FLAGS, type ParsedArgs } from './args.js';
import { EXIT, parseOrHelp, reportError, synopsis } from './command.js';
import { rejectUnknownFlags } from './known-flags.js';
import { clearProgress, progressLine } from './progress.js';

export interface EngineVerbSpec {
  /** The verb's name (unknown-flag errors, progress line). */
  verb: string;
  /** Full usage text (--help); its first line is the synopsis shown in usage errors. */
  usage: string;
  /** API fields accepted as flags (besides -o, --help, --json, --quiet, --progress); any other flag is a usage error. */
  fields: readonly string[];
}

export interface StartEngineOptions {
  /** Engine options (always in-thread). */
  engine?: Omit<EngineOptions, 'threads'>;
  /** The progress interval when the verb read INKPREP_PROGRESS_SECONDS itself (earlier); else read here. */
  intervalMs?: number;
}

export interface EngineVerbCall extends ParsedArgs {
  /** The verb's synopsis, for its usage errors. */
  usage: string;
  /** Start the in-thread engine (closed when the verb ends) and the per-call options: the progress listener, unless --quiet. */
  startEngine(options?: StartEngineOptions): { engine: Engine; call: CallOptions };
}

/** Run an engine verb's `body` in the frame; resolves to the exit code. */
export async function runEngineVerb(argv: readonly string[], spec: EngineVerbSpec, body: (v: EngineVerbCall) => Promise<void>): Promise<number> {
  const parsed = parseOrHelp(argv, spec.usage);
  if (!parsed) return EXIT.ok;
  const usage = synopsis(spec.usage);
  const started: { engine?: Engine } = {};
  try {
    // first: a misspelt flag explains the errors it would otherwise cause (`--outptu x.png`: "missing -o")
    rejectUnknownFlags(parsed.flags, [...FILE_VERB_FLAGS, ...spec.fields], spec.verb, usage);
    await body({
      ...parsed,
      usage,
      startEngine: (options = {}) => {
        // The engine's paths and models come from the environment, read here like the service reads them.
        const engine = createEngine({ ...engineOptions(engineConfigFromEnv()), ...options.engine, threads: 0 });
        started.engine = engine;
        const intervalMs = options.intervalMs ?? progressIntervalMsFromEnv();
        const onProgress = progressLine(spec.verb, { quiet: parsed.flags.quiet === true, everyStage: parsed.flags.progress === true, intervalMs });
        return { engine, call: onProgress ? { onProgress } : {} };
      },
    });
    clearProgress();
    return EXIT.ok;
  } catch (err) {
    return reportError(err);
  } finally {
    await started.engine?.close();
  }
}
