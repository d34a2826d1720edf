import type { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import type { Scope } from '../auth/scopes.ts';
import type { HandlerResult, Method, RequestContext } from './context.ts';

/**
 * Who may call a route.
 * - `public`: anybody (health checks, login).
 * - `relay`: the relay authenticates its own API keys.
 * - `business`: a session or a scoped credential; `scopes` are all required, `sessionOnly`
 *   refuses credentials whatever their scopes (they can never manage sites or credentials);
 *   `adminOnly` (implies `sessionOnly`) admits only the platform admin's session.
 *   A `:siteId` in the path is checked to be a UUID the caller may act on.
 */
export type RouteAuth =
  | { kind: 'public' }
  | { kind: 'relay' }
  | { kind: 'business'; scopes: readonly Scope[]; sessionOnly?: boolean; adminOnly?: boolean };

export interface Route {
  method: Method;
  /** Path pattern with `:name` segments, e.g. `/api/v1/sites/:siteId/credentials`. */
  path: string;
  auth: RouteAuth;
  handler: (ctx: RequestContext, app: AppContext) => Promise<HandlerResult>;
  /** What GET /api/v1/openapi.json says of the route; the schemas are the ones that validate. */
  docs?: RouteDocs;
}

export interface RouteDocs {
  summary: string;
  description?: string;
  tags?: readonly string[];
  /** The zod schema the handler parses the JSON body with. */
  body?: z.ZodType;
  /** The zod schema the handler parses the query string with. */
  query?: z.ZodType;
  /** Shape of the 200 answer, when it is worth describing. */
  response?: z.ZodType;
  /** Extra statuses the route can answer with, beyond those implied by its auth. */
  errors?: readonly number[];
}

/** A route whose handler is a pure function of the request, typed once here. */
export function route(r: Route): Route {
  return r;
}
