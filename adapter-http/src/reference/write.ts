// `npm run docs:options`: write the generated reference pages: docs/reference/options.md from the ops' option
// tables (options-doc.ts), docs/reference/configuration.md from the table of environment variables
// (configuration-doc.ts) and docs/reference/cli.md from the CLI's help texts (cli-doc.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../cli/commands/index.js';
import { CONFIG_VARIABLES } from '../config.js';
import { ROUTES } from '../routes/index.js';
import { cliReference } from './cli-doc.js';
import { configurationReference } from './configuration-doc.js';
import { optionsReference } from './options-doc.js';

const pages: readonly [string, string][] = [
  ['options.md', optionsReference(ROUTES, COMMANDS)],
  ['configuration.md', configurationReference(CONFIG_VARIABLES)],
  ['cli.md', cliReference(COMMANDS)],
];
for (const [name, text] of pages) {
  const out = fileURLToPath(new URL(`../../../docs/reference/${name}`, import.meta.url));
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(`wrote ${out}`);
}
