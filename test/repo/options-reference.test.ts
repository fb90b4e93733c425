// Options declared once (issue 28): every op's fields in the API document (docs/openapi.json), in
// `inkprep <verb> --help` and in docs/reference/options.md are the fields of its option table in the engine,
// offered where the table says; and the committed reference page is exactly what the tables generate.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPS, type Field } from '@inkprep/engine/internals';
import type { OpName } from '@inkprep/engine';
import { ROUTES } from '@inkprep/http';
import { COMMANDS } from '../../adapter-http/src/cli/commands/index.js';
import { optionsReference } from '../../adapter-http/src/reference/options-doc.js';
import { ROOT, runCli } from '../cli/run-cli.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const REFERENCE = path.join(ROOT, 'docs/reference/options.md');
const openapi = JSON.parse(readFileSync(path.join(ROOT, 'docs/openapi.json'), 'utf8')) as Json;
const reference = readFileSync(REFERENCE, 'utf8');

/** Flags a verb has besides its op's options (output and reporting), by verb. */
const VERB_FLAGS: Readonly<Record<string, readonly string[]>> = { vectorize: ['--json', '--quiet', '--progress'], upscale: ['--quiet', '--progress'], gangsheet: ['--design'] };

const ops = (Object.keys(OPS) as OpName[]).filter((op) => OPS[op].fields !== undefined);
const table = (op: OpName): readonly Field[] => OPS[op].fields!;
const on = (op: OpName, s: 'http' | 'cli') => table(op).filter((f) => f.surfaces.includes(s)).map((f) => f.wire).sort();
const flag = (wire: string) => `--${wire.replace(/_/g, '-')}`;

/** The form fields of the op's POST in the committed API document. */
function documentFields(op: OpName): string[] {
  const route = ROUTES.find((r) => r.meta?.op === op);
  if (!route) return [];
  const props = openapi.paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method].requestBody.content['multipart/form-data'].schema.properties as Json;
  // callback_url is a job's field (Prefer: respond-async), not an option of the op
  return Object.keys(props).filter((k) => k !== (route.meta?.repeatedFile?.name ?? 'image') && k !== 'callback_url').sort();
}

/** The flags listed (at the start of an indented line) by `inkprep <verb> --help`, verb-only flags left out. */
async function helpFlags(verb: string): Promise<string[]> {
  const r = await runCli([verb, '--help']);
  expect(r.code).toBe(0);
  const flags = [...r.stdout.matchAll(/^ +(--[a-z0-9-]+)/gm)].map((m) => m[1]!);
  return flags.filter((f) => !(VERB_FLAGS[verb] ?? []).includes(f)).sort();
}

/** The rows of the op's section in the reference page: field, and its HTTP and CLI columns. */
function referenceRows(op: OpName): { wire: string; http: boolean; cli: string }[] {
  const section = reference.split(/^## /m).find((s) => s.startsWith(`${op}\n`)) ?? '';
  return [...section.matchAll(/^\| `([a-z0-9_]+)` \|(.*)$/gm)].map((m) => {
    const cells = m[2]!.split(/(?<!\\)\|/).map((c) => c.trim());
    return { wire: m[1]!, http: cells[3] === 'yes', cli: cells[4]!.replace(/`/g, '') };
  });
}

describe('options declared once', () => {
  it('docs/reference/options.md is what the option tables generate (npm run docs:options)', () => {
    expect(reference).toBe(optionsReference(ROUTES, COMMANDS));
  });

  it.each(ops)('%s: the API document, --help and the reference list the fields of its table', async (op) => {
    expect(documentFields(op)).toEqual(on(op, 'http'));
    const command = COMMANDS.find((c) => c.op === op);
    if (command) expect(await helpFlags(command.name)).toEqual(on(op, 'cli').map(flag).sort());
    const rows = referenceRows(op);
    expect(rows.map((r) => r.wire)).toEqual(table(op).map((f) => f.wire));
    expect(rows.filter((r) => r.http).map((r) => r.wire).sort()).toEqual(on(op, 'http'));
    expect(rows.filter((r) => r.cli).map((r) => r.cli).sort()).toEqual(on(op, 'cli').map(flag).sort());
  });

  it('vectorize: the same fields in docs/openapi.json, `inkprep vectorize --help` and the reference page', async () => {
    const fromTable = table('vectorize').map((f) => f.wire).sort();
    expect(fromTable.length).toBeGreaterThan(0);
    expect(documentFields('vectorize')).toEqual(fromTable);
    expect((await helpFlags('vectorize')).map((f) => f.slice(2).replace(/-/g, '_')).sort()).toEqual(fromTable);
    expect(referenceRows('vectorize').map((r) => r.wire).sort()).toEqual(fromTable);
  });
});
