// The extending guide names real files (issue 29): every repository path in backticks in
// docs/guides/extending.md exists, apart from the files its walk-through has the reader create (which must
// not exist, or the example would collide with a real op and mislead).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const GUIDE = path.join(ROOT, 'docs/guides/extending.md');

/** The walk-through's example op `palette`: the files "Adding an op, end to end" creates. */
const CREATED_BY_THE_WALKTHROUGH = new Set([
  'engine/src/palette/',
  'engine/src/ops/palette.ts',
  'adapter-http/src/routes/palette.ts',
  'adapter-http/src/cli/commands/palette.ts',
]);

/** Top-level entries of the repository: a backticked path must start with one of them to count as a repo path. */
const TOP = new Set(readdirSync(ROOT).filter((n) => n !== 'node_modules' && n !== '.git'));

/** Backticked spans that are repository paths (`engine/src/ops/scan.ts`, `bench/suites/`); placeholders (`<name>`) are not. */
export function repoPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  return [...new Set(spans.filter((s) => s.includes('/') && !/[<>*|{}]/.test(s) && TOP.has(s.split('/')[0]!)))];
}

describe('docs/guides/extending.md', () => {
  const text = readFileSync(GUIDE, 'utf8');
  const paths = repoPaths(text);

  it('names files that exist', () => {
    console.log(`extending.md: ${paths.length} repository paths, ${CREATED_BY_THE_WALKTHROUGH.size} of them the walk-through's new files`);
    expect(paths.length).toBeGreaterThan(40);
    const missing = paths.filter((p) => !CREATED_BY_THE_WALKTHROUGH.has(p) && !existsSync(path.join(ROOT, p)));
    expect(missing).toEqual([]);
  });

  it("the walk-through's new files are named in it and do not exist yet", () => {
    for (const p of CREATED_BY_THE_WALKTHROUGH) {
      expect(paths, p).toContain(p);
      expect(existsSync(path.join(ROOT, p)), p).toBe(false);
    }
  });

  it('walks through every step of adding an op', () => {
    const section = text.split(/^## /m).find((s) => s.startsWith('Adding an op, end to end')) ?? '';
    for (const file of ['engine/src/ops/registry.ts', 'engine/src/index.ts', 'adapter-http/src/routes/index.ts', 'adapter-http/src/cli/commands/index.ts', 'adapter-http/src/errors/registry.ts', 'adapter-http/src/openapi/operations.ts', 'adapter-http/src/reference/options-doc.ts', 'scripts/engine-api-reference.ts']) {
      expect(section, file).toContain(`\`${file}\``);
    }
  });

  it('finds repository paths and skips the rest (the checks above can fail)', () => {
    expect(repoPaths('`engine/src/no-such.ts` `bench/suites/<name>.ts` `@inkprep/http` `ops/s` `/test/...` `image/png`')).toEqual(['engine/src/no-such.ts']);
  });
});
