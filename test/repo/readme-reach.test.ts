// Two clicks from the README (issue 29): a newcomer who opens README.md reaches install, the library example,
// the vectorize options, deploying on PostgreSQL, the metrics and the error codes by following at most two
// relative links (a link to `page.md#anchor` lands on that heading; one to `page.md` on the page's top).
// The crawl reads README.md's links (click 1) and the links of every markdown page they land on (click 2).
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, linksOf, problem, ROOT } from './markdown-links.js';

/** A place in the docs: a page (relative to the root) and a heading anchor, '' for the page's top. */
interface Place { page: string; anchor: string }

const TARGETS: readonly (Place & { what: string })[] = [
  { what: 'install', page: 'docs/guides/getting-started.md', anchor: 'install' },
  { what: 'the library example', page: 'docs/guides/embedding-the-engine.md', anchor: 'using-the-engine-from-node' },
  { what: 'the vectorize options', page: 'docs/reference/options.md', anchor: 'vectorize' },
  { what: 'deploying on PostgreSQL', page: 'docs/guides/deploying.md', anchor: 'scaling-out-postgresql-and-several-processes' },
  { what: 'the metrics', page: 'docs/guides/operating.md', anchor: 'logs-metrics-shutdown' },
  { what: 'an error code', page: 'docs/reference/errors.md', anchor: '' },
];

const key = (p: Place) => `${p.page}#${p.anchor}`;

/** Where a relative link of `from` lands, or null (external, broken, or not a markdown page). */
function landing(from: string, target: string): Place | null {
  const l = { file: from, line: 0, target };
  if (problem(l) !== null) return null;
  const [rawPath, rawAnchor = ''] = target.split('#', 2) as [string, string?];
  const dest = rawPath === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(rawPath));
  if (!existsSync(dest) || statSync(dest).isDirectory() || !dest.endsWith('.md')) return null;
  return { page: path.relative(ROOT, dest).split(path.sep).join('/'), anchor: decodeURIComponent(rawAnchor).toLowerCase() };
}

/** Every place reachable from `start` in at most `clicks` links, with the route that reaches it first. */
function crawl(start: string, clicks: number): Map<string, string[]> {
  const reached = new Map<string, string[]>([[key({ page: start, anchor: '' }), [start]]]);
  let frontier: { page: string; route: string[] }[] = [{ page: start, route: [start] }];
  for (let depth = 1; depth <= clicks; depth++) {
    const next: { page: string; route: string[] }[] = [];
    for (const { page, route } of frontier) {
      for (const link of linksOf(path.join(ROOT, page))) {
        const to = landing(path.join(ROOT, page), link.target);
        if (!to || reached.has(key(to))) continue;
        const r = [...route, `${to.page}${to.anchor ? `#${to.anchor}` : ''}`];
        reached.set(key(to), r);
        // The page is open now, whichever heading the link landed on: its links are the next click.
        if (!next.some((n) => n.page === to.page) && !frontier.some((f) => f.page === to.page)) next.push({ page: to.page, route: r });
      }
    }
    frontier = next;
  }
  return reached;
}

describe('README.md, two clicks deep', () => {
  const reached = crawl('README.md', 2);

  it.each(TARGETS)('reaches $what ($page#$anchor)', (t) => {
    if (t.anchor) expect(anchorsOf(path.join(ROOT, t.page)), `no heading #${t.anchor} in ${t.page}`).toContain(t.anchor);
    const route = reached.get(key(t));
    console.log(`${t.what}: ${route ? route.join(' -> ') : 'not reached'}`);
    expect(route, `${t.what} is not within two clicks of README.md`).toBeDefined();
    expect(route!.length - 1).toBeLessThanOrEqual(2);
  });

  it('the error-code page lists the codes', () => {
    expect(readFileSync(path.join(ROOT, 'docs/reference/errors.md'), 'utf8')).toMatch(/^\| `invalid_option` \|/m);
  });

  it('the crawl counts clicks (one click reaches less than two, none only the README)', () => {
    const one = crawl('README.md', 1);
    expect(one.has('docs/README.md#')).toBe(true);
    expect([...one.keys()].every((k) => reached.has(k))).toBe(true);
    expect(reached.size).toBeGreaterThan(one.size);
    expect(crawl('README.md', 0).size).toBe(1);
  });
});
