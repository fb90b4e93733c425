// docs/reference/cli.md, generated from the CLI's own help: `inkprep --help` and each verb's usage text (the
// one `inkprep <verb> --help` prints; a file verb's option lines come from its op's option table). `npm run
// docs:options` writes it; test/repo/cli-reference.test.ts fails when the committed file differs and checks
// that each verb's --help, run as a process, is on the page.
import type { Command } from '../cli/command.js';
import { helpText } from '../cli/main.js';
import { cliFields } from '../cli/option-flags.js';

/** The whole reference page. */
export function cliReference(commands: readonly Command[]): string {
  const out: string[] = [
    '# CLI reference',
    '',
    '<!-- Generated from the CLI\'s help texts (adapter-http/src/cli) by `npm run docs:options`; do not edit. -->',
    '',
    'Every verb of `inkprep` with every flag, as its `--help` prints it. How the verbs chain, what goes to stdout and',
    'stderr, and the exit codes: the [CLI guide](../guides/cli.md). The options of the file verbs are the op\'s',
    'fields ([options reference](options.md)); the error codes with their exit codes: [error codes](errors.md);',
    'the environment variables `serve` and the other verbs read: [configuration](configuration.md).',
    '',
    '## `inkprep --help`',
    '',
    '```text',
    helpText(commands),
    '```',
    '',
  ];
  for (const c of commands) {
    out.push(`## \`inkprep ${c.name}\``, '', `${c.summary[0]!.toUpperCase()}${c.summary.slice(1)}.`, '');
    if (c.op && cliFields(c.op).length > 0) out.push(`Its options are the fields of the \`${c.op}\` op: [options of ${c.op}](options.md#${c.op.toLowerCase()}).`, '');
    out.push('```text', c.usage, '```', '');
  }
  return out.join('\n');
}
