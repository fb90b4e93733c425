// The CLI reference (issue 29): docs/reference/cli.md is what the CLI's help texts generate (npm run
// docs:options), and what `inkprep --help` and `inkprep <verb> --help` print, run as processes, is on it
// word for word: every verb and every flag a user can see is in the reference.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../adapter-http/src/cli/commands/index.js';
import { cliReference } from '../../adapter-http/src/reference/cli-doc.js';
import { ROOT, runCli } from '../cli/run-cli.js';

const PAGE = path.join(ROOT, 'docs/reference/cli.md');
const page = readFileSync(PAGE, 'utf8');

/** The text of the page's fenced block under `## heading`. */
function block(heading: string): string {
  const section = page.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  return /```text\n([\s\S]*?)\n```/.exec(section ?? '')?.[1] ?? '';
}

describe('docs/reference/cli.md', () => {
  it('is what the help texts generate (npm run docs:options)', () => {
    expect(page).toBe(cliReference(COMMANDS));
  });

  it('quotes `inkprep --help` as the CLI prints it', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(block('`inkprep --help`')).toBe(r.stdout.trimEnd());
    for (const c of COMMANDS) expect(r.stdout).toContain(`  ${c.name} `);
  });

  it.each(COMMANDS.map((c) => c.name))('quotes `inkprep %s --help` as the CLI prints it', async (verb) => {
    const r = await runCli([verb, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(block(`\`inkprep ${verb}\``)).toBe(r.stdout.trimEnd());
  });

  it('the CLI guide has a row for every verb', () => {
    const guide = readFileSync(path.join(ROOT, 'docs/guides/cli.md'), 'utf8');
    const missing = COMMANDS.filter((c) => !guide.includes(`| \`inkprep ${c.name}`)).map((c) => c.name);
    expect(missing, 'verbs without a row in the command table of docs/guides/cli.md').toEqual([]);
  });
});
