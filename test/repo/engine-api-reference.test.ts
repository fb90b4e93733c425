// The engine's API reference (issue 29): docs/reference/engine-api.md is exactly what
// scripts/engine-api-reference.ts generates from the TSDoc of engine/src (npm run docs:engine), every export of
// `@inkprep/engine` is on it with a doc comment, and each sits in one of the page's groups.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as face from '@inkprep/engine';
import { engineApiReference, PAGE } from '../../scripts/engine-api-reference.js';

describe('docs/reference/engine-api.md', () => {
  // One compiler program over engine/src: a few seconds alone, much longer on a busy machine.
  const ref = engineApiReference();

  it('is what the TSDoc generates (regenerate: npm run docs:engine)', () => {
    expect(readFileSync(PAGE, 'utf8')).toBe(ref.page);
  });

  it('is the same in every checkout (no absolute path on it)', () => {
    expect(ref.page).not.toContain(path.resolve(import.meta.dirname, '../..'));
    expect(ref.page).not.toMatch(/import\("/);
  });

  it('every public export has a doc comment and a group', () => {
    expect(ref.undocumented).toEqual([]);
    expect(ref.ungrouped).toEqual([]);
  });

  it('lists every export of the package, and every runtime name of the public face', () => {
    const names = ref.entries.map((e) => e.name);
    const runtime = ref.entries.filter((e) => e.runtime).map((e) => e.name).sort();
    console.log(`engine-api.md: ${names.length} exports (${runtime.length} runtime)`);
    expect(new Set(names).size).toBe(names.length);
    // What the page calls values at run time are exactly the module's runtime names.
    expect(runtime).toEqual(Object.keys(face).sort());
    for (const name of names) expect(ref.page, name).toContain(`### \`${name}\``);
    // The pinned face (test/repo/engine-package.test.ts): 80 names today; fewer would mean the reader lost some.
    expect(names.length).toBeGreaterThanOrEqual(80);
  });

  it('names an export without a doc comment, and one from a file no group lists (the checks above can fail)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-api-ref-'));
    try {
      const entry = path.join(dir, 'index.ts');
      writeFileSync(entry, '/** Documented. */\nexport const documented = 1;\nexport function bare(): number {\n  return 2;\n}\n');
      const probe = engineApiReference(entry);
      expect(probe.entries.map((e) => e.name).sort()).toEqual(['bare', 'documented']);
      expect(probe.undocumented).toEqual(['bare']);
      expect(probe.ungrouped).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
