// Request routing shared by every transport: exact paths first, then patterns whose `:name` segments
// match one non-empty path segment (e.g. `/api/v1/upscale/results/:key`), as uWS routes them. A path that
// matches with another method gives the allowed methods (for 405 + Allow).
import type { RouteDef } from '../routes/define.js';

export type RouteMatch = { route: RouteDef } | { allowed: string[] } | null;

interface Pattern {
  segments: string[];
  byMethod: Map<string, RouteDef>;
}

export class Router {
  private readonly exact = new Map<string, Map<string, RouteDef>>();
  private readonly patterns: Pattern[] = [];

  constructor(routes: readonly RouteDef[]) {
    for (const r of routes) {
      if (r.path.includes('/:')) {
        let p = this.patterns.find((x) => x.segments.join('/') === r.path);
        if (!p) {
          p = { segments: r.path.split('/'), byMethod: new Map() };
          this.patterns.push(p);
        }
        if (!p.byMethod.has(r.method)) p.byMethod.set(r.method, r);
      } else {
        const m = this.exact.get(r.path) ?? new Map<string, RouteDef>();
        if (!m.has(r.method)) m.set(r.method, r);
        this.exact.set(r.path, m);
      }
    }
  }

  /** The route for `method` (lower-case) and `path`, or the methods the path allows, or null (no such path). */
  match(method: string, path: string): RouteMatch {
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
