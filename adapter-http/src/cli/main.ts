// `inkprep` CLI entry: dispatches to a verb from commands/index.ts.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from './command.js';
import { EXIT, printError } from './command.js';
import { nearestFlag } from './known-flags.js';
import { cliVersion } from './version.js';

// Operator verbs load only what they need (the admin CLI starts without the engine's image stack).
const LIGHT: Record<string, () => Promise<Command>> = {
  admin: async () => (await import('./commands/admin.js')).adminCommand,
};

/** What `inkprep --help` prints (docs/reference/cli.md quotes it). */
export function helpText(COMMANDS: readonly Command[]): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'usage: inkprep <command> [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `inkprep <command> --help` for the options of a command. Option names match the API fields',
    '(e.g. --print-width-inches or --print_width_inches).',
    'A file argument or -o may be - for stdin / stdout. Errors are one JSON line on stderr: { error, code, ... }.',
    'While a file verb runs, stderr shows its progress (stage and percent): one line redrawn on a terminal, else a',
    'plain line every 10 s (INKPREP_PROGRESS_SECONDS) and, with --progress, at each stage; --quiet hides it.',
    'Unknown options are refused (exit 2, with the nearest known one). The -o extension picks the output format',
    'where the verb writes several (vectorize, mockup); one naming a format the verb cannot write is refused.',
    'exit codes: 0 ok, 1 processing failed, 2 bad usage or option, 3 input missing/unreadable/unsupported/too large,',
    '4 output path not writable (missing folder, no permission). inkprep --version prints the version.',
  ].join('\n');
}

/** Run the CLI with argv (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === '--version' || verb === '-v' || verb === 'version') {
    process.stdout.write(cliVersion() + '\n');
    return EXIT.ok;
  }
  const light = verb ? LIGHT[verb] : undefined;
  if (light) return (await light()).run(rest);
  const { COMMANDS } = await import('./commands/index.js');
  if (!verb || verb === '--help' || verb === '-h' || verb === 'help') {
    process.stdout.write(helpText(COMMANDS) + '\n');
    return verb ? EXIT.ok : EXIT.usage;
  }
  const cmd = COMMANDS.find((c) => c.name === verb);
  if (!cmd) {
    const names = COMMANDS.map((c) => c.name);
    const near = nearestFlag(verb, names);
    return printError('usage', `unknown command ${JSON.stringify(verb)}; ${near ? `did you mean ${near}? ` : ''}inkprep --help lists them`, { commands: names.join(' '), ...(near ? { suggestion: near } : {}) });
  }
  return cmd.run(rest);
}

// Run directly (`node adapter-http/dist/cli/main.js serve`, as `npm start` does); bin/inkprep.js imports instead.
if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  process.exitCode = await main(process.argv.slice(2));
}
