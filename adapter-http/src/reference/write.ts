// `npm run docs:options`: write docs/reference/options.md from the ops' option tables (options-doc.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../cli/commands/index.js';
import { ROUTES } from '../routes/index.js';
import { optionsReference } from './options-doc.js';

const out = fileURLToPath(new URL('../../../docs/reference/options.md', import.meta.url));
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, optionsReference(ROUTES, COMMANDS));
console.log(`wrote ${out}`);
