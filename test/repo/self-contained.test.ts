// A plain clone must test and bench with nothing beside it: no source, test, bench or golden file may read
// a path outside the repository (the old sibling "shared" folder, absolute /work paths), and the corpus and the
// contract they rely on are committed here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROOTS = ['engine/src', 'adapter-http/src', 'test', 'bench', 'golden'];
const OUTSIDE = /(\.\.\/shared\b|\/work\/(shared|main)\b)/;

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) yield* sources(p);
    else if (/\.(ts|js|mjs|json)$/.test(name)) yield p;
  }
}

describe('repository is self-contained', () => {
  it('no code, test, bench or golden file refers to a path outside the repository', () => {
    const offenders: string[] = [];
    for (const root of ROOTS) {
      for (const file of sources(path.join(REPO, root))) {
        if (file === fileURLToPath(import.meta.url)) continue;
        readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
          if (OUTSIDE.test(line)) offenders.push(`${path.relative(REPO, file)}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the open corpus (40 SVGs with manifest and licences) and the API contract are committed', () => {
    const manifest = JSON.parse(readFileSync(path.join(REPO, 'corpus/open/manifest.json'), 'utf8')) as { items: { file: string; license: string }[] };
    expect(manifest.items.length).toBe(40);
    for (const it of manifest.items) {
      expect(existsSync(path.join(REPO, 'corpus/open', it.file)), it.file).toBe(true);
      expect(it.license, it.file).toBeTruthy();
    }
    expect(existsSync(path.join(REPO, 'docs/artwork-api-v1.md'))).toBe(true);
  });
});
