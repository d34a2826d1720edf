import type { Route } from './route.ts';

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Readonly<Record<string, string>> }
  | { kind: 'wrong_method'; allowed: string[] }
  | { kind: 'none' };

interface Compiled {
  route: Route;
  segments: string[];
}

/**
 * Segment-by-segment matching over a few dozen routes. uWS has its own router, but it
 * cannot tell "wrong method" (405) from "no such path" (404), and both surfaces need that.
 */
export class Router {
  private readonly compiled: Compiled[];
  /** Routes without parameters by method and exact path: most requests (the relay's all) end here. */
  private readonly literal = new Map<string, Route>();

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.path.split('/').filter(Boolean) }));
    for (const r of routes) if (!r.path.includes('/:')) this.literal.set(`${r.method} ${r.path}`, r);
    const seen = new Set<string>();
    for (const r of routes) {
      const key = `${r.method} ${r.path}`;
      if (seen.has(key)) throw new Error(`route registered twice: ${key}`);
      seen.add(key);
    }
  }

  get routes(): readonly Route[] {
    return this.compiled.map((c) => c.route);
  }

  match(method: string, path: string): RouteMatch {
    // All literal segments: nothing can beat it, so the segment-by-segment search is skipped.
    const literal = this.literal.get(`${method} ${path}`);
    if (literal) return { kind: 'found', route: literal, params: NO_PARAMS };
    const parts = path.split('/').filter(Boolean);
    const allowed: string[] = [];
    let best: { route: Route; params: Record<string, string>; literals: number } | null = null;
    for (const { route, segments } of this.compiled) {
      const params = matchSegments(segments, parts);
      if (!params) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      // A literal segment beats a parameter: /sites/:siteId/ingest/receipts/:batchId must
      // win over a hypothetical /sites/:siteId/ingest/:resource/:x.
      const literals = segments.filter((s) => !s.startsWith(':')).length;
      if (!best || literals > best.literals) best = { route, params, literals };
    }
    if (best) return { kind: 'found', route: best.route, params: best.params };
    if (allowed.length) return { kind: 'wrong_method', allowed: [...new Set(allowed)] };
    return { kind: 'none' };
  }
}

/** The params of every route without `:name` segments (validation skips them). */
export const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

function matchSegments(pattern: readonly string[], parts: readonly string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(v);
      } catch {
        return null;
      }
    } else if (p !== v) {
      return null;
    }
  }
  return params;
}
