import type { AppContext } from '../app-context.ts';
import type { Scope } from '../auth/scopes.ts';
import type { HandlerResult, Method, RequestContext } from './context.ts';

/**
 * Who may call a route.
 * - `public`: anybody (health checks, login).
 * - `relay`: the relay authenticates its own API keys.
 * - `business`: a session or a scoped credential; `scopes` are all required, `sessionOnly`
 *   refuses credentials whatever their scopes (they can never manage sites or credentials).
 *   A `:siteId` in the path is checked to be a UUID the caller may act on.
 */
export type RouteAuth =
  | { kind: 'public' }
  | { kind: 'relay' }
  | { kind: 'business'; scopes: readonly Scope[]; sessionOnly?: boolean };

export interface Route {
  method: Method;
  /** Path pattern with `:name` segments, e.g. `/api/v1/sites/:siteId/credentials`. */
  path: string;
  auth: RouteAuth;
  handler: (ctx: RequestContext, app: AppContext) => Promise<HandlerResult>;
}

/** A route whose handler is a pure function of the request, typed once here. */
export function route(r: Route): Route {
  return r;
}
