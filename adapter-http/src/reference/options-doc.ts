// docs/reference/options.md, generated from the ops' option tables (engine options/table.ts): one section
// per op with every field's wire name (HTTP form field, CLI flag), library name, values, default, where it is
// offered and its one-line doc. `npm run docs:options` writes it; test/repo/options-reference.test.ts fails
// when the committed file differs, so the docs cannot drift from the code.
import type { OpName } from '@inkprep/engine';
// Internal: the op registry holds each op's option table, which this page is written from.
import { OPS, type Field } from '@inkprep/engine/internals';
import type { Command } from '../cli/command.js';
import { flagOf } from '../cli/option-flags.js';
import type { RouteDef } from '../routes/define.js';

const OP_ORDER: readonly OpName[] = ['scan', 'fix', 'underbase', 'gangsheet', 'vectorize', 'removeBg', 'upscale', 'mockup', 'mockupBatch', 'info'];

const cell = (s: string) => s.replace(/\|/g, '\\|');
const code = (s: string) => `\`${cell(s)}\``;

function defaultOf(f: Field): string {
  if (f.spec.defaultVaries) return f.spec.default === undefined ? 'depends on other fields' : `${code(String(f.spec.default))} (depends on other fields)`;
  return f.spec.default === undefined ? '' : code(String(f.spec.default));
}

function row(f: Field): string {
  const http = f.surfaces.includes('http') ? 'yes' : '';
  const cli = f.surfaces.includes('cli') ? code(flagOf(f.wire)) : '';
  return `| ${code(f.wire)} | ${code(f.lib)} | ${code(f.text)} | ${defaultOf(f)} | ${http} | ${cli} | ${cell(f.doc)} |`;
}

/** The whole reference page. `routes` and `commands` say where each op is offered (HTTP path, CLI verb). */
export function optionsReference(routes: readonly RouteDef[], commands: readonly Command[]): string {
  const out: string[] = [
    '# Options of every op',
    '',
    '<!-- Generated from the option tables in engine/src (options/table.ts) by `npm run docs:options`; do not edit. -->',
    '',
    'Each op declares its options once, in one table in the engine; the resolver, the OpenAPI document',
    '(`docs/openapi.json`), the CLI flags and their `--help`, and this page are made from it.',
    '',
    '- **field**: the contract\'s name: the HTTP form field, and the CLI flag with `-` for `_`. Text forms',
    '  (`textOptions(...)`) use it too.',
    '- **library**: the name typed callers of `@inkprep/engine` use (`engine.fix(bytes, { fixHalftone: true })`);',
    '  the field name is accepted as well during a transition (CHANGELOG.md).',
    '- **values**: as text (`true|false`, a range `min-max`, or the words); typed callers pass numbers and booleans.',
    '- Any other value is `invalid_option` (HTTP 400, CLI exit 2) naming the field; a field sent empty or with',
    '  surrounding spaces is too.',
    '',
  ];
  for (const op of OP_ORDER) {
    const fields = OPS[op].fields;
    if (!fields) continue;
    const route = routes.find((r) => r.meta?.op === op);
    const command = commands.find((c) => c.op === op);
    const where = [
      route ? `HTTP \`${route.method.toUpperCase()} ${route.path}\`` : 'no HTTP endpoint',
      command ? `CLI \`inkprep ${command.name}\`` : 'no CLI verb',
      `library \`engine.${op}(input, options)\``,
    ];
    out.push(`## ${op}`, '', `${where.join(' · ')}.`, '');
    if (fields.length === 0) {
      out.push('No options.', '');
      continue;
    }
    out.push('| field | library | values | default | HTTP | CLI | what it does |', '|---|---|---|---|---|---|---|');
    for (const f of fields) out.push(row(f));
    out.push('');
  }
  return out.join('\n');
}
