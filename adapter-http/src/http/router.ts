// Request routing shared by every transport: exact paths first, then patterns whose `:name` segments
// match one non-empty path segment (e.g. `/api/v1/upscale/results/:key`), as uWS routes them. A path that
// matches with another method gives the allowed methods (for 405 + Allow).
// Generic over the route type: routing needs only a method and a path, and the route definitions
// (routes/define.ts) sit above the exchange machinery of http/.

/** What the router needs of a route. */
export interface Routable {
  /** Lower-case HTTP method. */
  method: string;
  path: string;
}

export type RouteMatch<R extends Routable> = { route: R } | { allowed: string[] } | null;

interface Pattern<R extends Routable> {
  segments: string[];
  byMethod: Map<string, R>;
}

export class Router<R extends Routable> {
  private readonly exact = new Map<string, Map<string, R>>();
  private readonly patterns: Pattern<R>[] = [];

  constructor(routes: readonly R[]) {
    for (const r of routes) {
      if (r.path.includes('/:')) {
        let p = this.patterns.find((x) => x.segments.join('/') === r.path);
        if (!p) {
          p = { segments: r.path.split('/'), byMethod: new Map() };
          this.patterns.push(p);
        }
        if (!p.byMethod.has(r.method)) p.byMethod.set(r.method, r);
      } else {
        const m = this.exact.get(r.path) ?? new Map<string, R>();
        if (!m.has(r.method)) m.set(r.method, r);
        this.exact.set(r.path, m);
      }
    }
  }

  /** The route for `method` (lower-case) and `path`, or the methods the path allows, or null (no such path). */
  match(method: string, path: string): RouteMatch<R> {
    let byMethod = this.exact.get(path);
    if (!byMethod && this.patterns.length > 0) {
      const parts = path.split('/');
      byMethod = this.patterns.find((p) => fits(p.segments, parts))?.byMethod;
    }
    if (!byMethod) return null;
    const route = byMethod.get(method);
    return route ? { route } : { allowed: [...byMethod.keys()].map((m) => m.toUpperCase()) };
  }
}

function fits(pattern: string[], parts: string[]): boolean {
  if (pattern.length !== parts.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    const seg = pattern[i]!;
    if (seg.startsWith(':') ? parts[i] === '' : seg !== parts[i]) return false;
  }
  return true;
}
