// One error registry (adapter-http/src/errors/registry.ts): every code emitted anywhere in src is in it, the
// engine's codes are all mapped there and carry no host status, and the error-code table (docs/reference/errors.md) lists every
// registry code with its HTTP status and CLI exit code.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENGINE_ERRORS, InkprepError } from '@inkprep/engine';
import { ERROR_CODES, ERROR_REGISTRY, EXIT, exitCodeFor, type AnyErrorCode } from '@inkprep/http';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC_DIRS = ['engine/src', 'adapter-http/src'];

// Files whose `code` literals are warning or scan-issue vocabularies (a 200 reply's `warnings`/`issues`), not
// error codes. Error constructors in them are still checked.
const WARNING_VOCABULARIES = new Set(['engine/src/mockup/warnings.ts', 'engine/src/scan/report.ts', 'engine/src/halftone/screen.ts', 'engine/src/underbase/report.ts', 'engine/src/gangsheet/layout.ts']);

/**
 * Error codes a source text emits, by the patterns the code base uses: the error constructors and printers
 * (`new InkprepError('x'`, `new ServiceError('x'`, `printError('x'`, `errorJson('x'`) and, outside the warning vocabularies, any
 * `code` given a literal (`{ error, code: 'x' }` bodies, `{ code: 'x', message, details }` wire errors,
 * `readonly code = 'x'` on an error class, `this.code = 'x'`). `err.code ? ... : 'x'` is not a code.
 */
function emittedCodes(text: string, warningVocabulary: boolean): string[] {
  const found: string[] = [];
  const q = `['"\`]([a-z][a-z0-9_]*)['"\`]`;
  for (const m of text.matchAll(new RegExp(`\\b(?:InkprepError|ServiceError|printError|errorJson)\\(\\s*${q}`, 'g'))) found.push(m[1]!);
  if (!warningVocabulary) {
    for (const m of text.matchAll(new RegExp(`(?<![\\w.])(?:this\\.)?code\\s*(?::\\s*[A-Za-z]+\\s*)?[:=]\\s*${q}`, 'g'))) found.push(m[1]!);
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** code -> the files that emit it. */
function codesInSrc(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of SRC_DIRS.flatMap(sourceFiles)) {
    for (const code of emittedCodes(readFileSync(path.join(ROOT, file), 'utf8'), WARNING_VOCABULARIES.has(file))) {
      out.set(code, [...(out.get(code) ?? []), file]);
    }
  }
  return out;
}

describe('error registry', () => {
  it('the scanner sees each pattern the code base uses, and not warnings or a ternary', () => {
    const sample = [
      "throw new InkprepError('made_up_a', 'x');",
      "throw new ServiceError('made_up_i', 'x');",
      "return printError('made_up_b', err.message);",
      "ex.send(errorJson('made_up_c', 'x'));",
      "ex.send(json({ error: 'x', code: 'made_up_d' }, 404));",
      "return { code: 'made_up_e', message: 'x', details: {} };",
      "  readonly code: CliErrorCode = 'made_up_f';",
      "      this.code = 'made_up_g';",
      "return err instanceof InkprepError ? err.code : 'error';",
    ].join('\n');
    expect(emittedCodes(sample, false).sort()).toEqual(['made_up_a', 'made_up_b', 'made_up_c', 'made_up_d', 'made_up_e', 'made_up_f', 'made_up_g', 'made_up_i']);
    expect(emittedCodes("return { code: 'low_dpi', message: 'x' };\nthrow new InkprepError('made_up_h');", true)).toEqual(['made_up_h']);
  });

  it('every code emitted in engine/src and adapter-http/src is in the registry', () => {
    const codes = codesInSrc();
    // The scan reaches the CLI, the adapter's own bodies and the engine (else it would pass vacuously).
    for (const c of ['usage', 'output_unwritable', 'port_in_use', 'not_found', 'method_not_allowed', 'internal_error', 'image_too_large', 'not_separable', 'aborted']) {
      expect(codes.has(c), `scan finds ${c}`).toBe(true);
    }
    const missing = [...codes].filter(([c]) => !Object.hasOwn(ERROR_REGISTRY, c)).map(([c, files]) => `${c} (${[...new Set(files)].join(', ')})`);
    expect(missing, 'codes emitted in src but missing from adapter-http/src/errors/registry.ts').toEqual([]);
  });

  it('the engine raises only its own codes, all mapped by the registry with the engine\'s message, and carries no status', () => {
    const codes = codesInSrc();
    const engineOnly = [...codes].filter(([, files]) => files.some((f) => f.startsWith('engine/src/'))).map(([c]) => c);
    expect(engineOnly.filter((c) => !Object.hasOwn(ENGINE_ERRORS, c)), 'codes emitted in engine/src that are not engine codes').toEqual([]);
    for (const [code, message] of Object.entries(ENGINE_ERRORS)) expect(ERROR_REGISTRY[code as keyof typeof ENGINE_ERRORS].message).toBe(message);
    const err = new InkprepError('image_too_large');
    expect(Object.keys(err)).not.toContain('status');
    expect(Object.keys(err)).not.toContain('exit');
  });

  it('CLI-only codes have no HTTP status and stay out of the HTTP registry (the spec codes)', () => {
    for (const c of ['usage', 'output_unwritable', 'port_in_use'] as const) {
      expect(ERROR_REGISTRY[c].status).toBeNull();
      expect(Object.hasOwn(ERROR_CODES, c)).toBe(false);
    }
    for (const [c, d] of Object.entries(ERROR_REGISTRY)) expect(Object.hasOwn(ERROR_CODES, c), c).toBe(d.status !== null);
  });

  it('exit codes by cause', () => {
    const exit = (c: AnyErrorCode): number => exitCodeFor(c);
    expect([exit('usage'), exit('invalid_option')]).toEqual([EXIT.usage, EXIT.usage]);
    expect(['missing_image', 'image_unreadable', 'unsupported_format', 'image_too_large', 'body_too_large'].map((c) => exit(c as AnyErrorCode))).toEqual(Array(5).fill(EXIT.input));
    expect(exit('output_unwritable')).toBe(EXIT.output);
    expect([exit('port_in_use'), exit('processing_failed'), exit('internal_error'), exit('supplier_unavailable')]).toEqual(Array(4).fill(EXIT.failed));
  });

  const readme = readFileSync(path.join(ROOT, 'docs/reference/errors.md'), 'utf8');
  const block = readme.split('<!-- error-codes:start -->')[1]?.split('<!-- error-codes:end -->')[0] ?? '';
  // | `code` | HTTP (or — for CLI-only) | CLI exit | meaning |
  const rows = [...block.matchAll(/^\| `([a-z_]+)` \| (\d{3}|—) \| (\d) \|/gm)].map((m) => [m[1], m[2] === '—' ? null : Number(m[2]), Number(m[3])] as const);

  it('docs/reference/errors.md lists every registry code with its status and exit code', () => {
    expect(rows.length).toBeGreaterThan(0);
    for (const [code, def] of Object.entries(ERROR_REGISTRY)) {
      expect(rows.find((r) => r[0] === code), `docs/reference/errors.md row for ${code}`).toEqual([code, def.status, def.exit]);
    }
  });
  it('docs/reference/errors.md lists no code the registry lacks', () => {
    for (const [code] of rows) expect(Object.keys(ERROR_REGISTRY)).toContain(code);
  });
});
