// Markdown links as GitHub renders them, for the docs tests (docs-links, readme-reach): the prose lines of a page
// (fenced code left out), its headings' anchors by GitHub's slug rules, and its relative links.
// Offline and fast: plain file reads, no markdown library.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The lines outside fenced code blocks, with inline code spans blanked (a link inside code is not a link)
 * unless `keepCode` (a heading's code spans are part of its slug: `### \`createEngine\`` is #createengine).
 */
export function proseLines(text: string, keepCode = false): { line: number; text: string }[] {
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
export function anchorsOf(file: string): Set<string> {
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

export interface Link { file: string; line: number; target: string }

export function linksOf(file: string): Link[] {
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
export function problem(l: Link): string | null {
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

