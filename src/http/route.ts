import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import type { Principal, SessionPrincipal } from '../auth/principal.ts';
import type { Scope } from '../auth/scopes.ts';
import { isUuid } from '../shared/ids.ts';
import type { HandlerResult, JsonResult, Method, RequestContext } from './context.ts';

/**
 * Who may call a route.
 * - `public`: anybody (health checks, login).
 * - `relay`: the relay authenticates its own API keys, and checks its own bodies after the key
 *   (answering in OpenAI's error shape), so the server validates nothing of a relay request.
 * - `business`: a session or a scoped credential; `scopes` are all required, `sessionOnly`
 *   refuses credentials whatever their scopes (they can never manage sites or credentials);
 *   `adminOnly` (implies `sessionOnly`) admits only the platform admin's session.
 *   A `:siteId` in the path is checked to be a UUID the caller may act on.
 */
export type RouteAuth =
  | { kind: 'public' }
  | { kind: 'relay' }
  | { kind: 'business'; scopes: readonly Scope[]; sessionOnly?: boolean; adminOnly?: boolean };

/** The caller a handler sees: a session on session-only routes, anybody on business ones. */
export type PrincipalOf<A extends RouteAuth> = A extends { sessionOnly: true } | { adminOnly: true }
  ? SessionPrincipal
  : A extends { kind: 'business' }
    ? Principal
    : null;

/** The `:name` segments of a path pattern, as a union of names. */
type ParamNames<P extends string> = P extends `${string}:${infer N}/${infer Rest}`
  ? N | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer N}`
    ? N
    : never;

type Schema = z.ZodType;

/** What a handler is given: the request, validated and typed by its route's declaration. */
export interface RouteRequest<Params, Query, Body, Caller> extends Omit<RequestContext, 'params' | 'principal'> {
  readonly params: Params;
  readonly query: Query;
  readonly body: Body;
  readonly principal: Caller;
}

/** A JSON answer whose body has the route's declared response shape. */
export interface TypedResult<R> extends JsonResult {
  body: R;
}

/**
 * A route's contract, declared once (as fastify's `schema`): the server validates `params`,
 * `query` and `body` before the handler runs (400 `validation_failed` listing every
 * violation), the handler gets them typed, and GET /api/v1/openapi.json is built from the same
 * declaration, `response` included. With RESPONSE_CONTRACT_CHECK (set by the test helpers)
 * every JSON answer is checked against `response` too, so the document cannot drift.
 */
export interface RouteSpec<
  Path extends string,
  A extends RouteAuth,
  P extends z.ZodObject | undefined,
  Q extends Schema,
  B extends Schema,
  R extends Schema | undefined,
> {
  method: Method;
  /** Path pattern with `:name` segments, e.g. `/api/v1/sites/:siteId/credentials`. */
  path: Path;
  auth: A;
  /**
   * Path parameters beyond plain strings, e.g. `{ accountId: Uuid }`; errors point at
   * `path.<name>`. Undeclared ones are strings; `siteId` is always a lower-cased UUID.
   */
  params?: P;
  /** The query string's schema; a parameter given twice is refused. Errors: `query.<name>`. */
  query?: Q;
  /** The JSON body's schema; a schema that accepts `undefined` makes the body optional. */
  body?: B;
  /** The JSON answer (200, or the status the handler sets). Omitted only when the handler writes to `ctx.reply` itself. */
  response?: R;
  docs: RouteDocs;
  handler: (
    req: RouteRequest<
      { readonly [K in ParamNames<Path>]: string } & (P extends z.ZodObject ? z.output<P> : unknown),
      z.output<Q>,
      A extends { kind: 'relay' } ? undefined : z.output<B>,
      PrincipalOf<A>
    >,
    app: AppContext,
  ) => Promise<R extends Schema ? TypedResult<z.input<R>> : void>;
}

export interface RouteDocs {
  summary: string;
  description?: string;
  tags?: readonly string[];
  /** Statuses the route can answer with beyond those its declaration implies (auth, input). */
  errors?: readonly number[];
}

/** A declared route as the router, server and OpenAPI document see it. */
export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly auth: RouteAuth;
  /** Every path parameter's schema (see `RouteSpec.params`). */
  readonly params: z.ZodObject;
  readonly query?: Schema;
  readonly body?: Schema;
  readonly response?: Schema;
  readonly docs: RouteDocs;
  /** Erased: `route()` checked the handler against its declaration, the server feeds it validated input. */
  // biome-ignore lint/suspicious/noExplicitAny: the one erased signature every typed handler is stored as
  readonly handler: (req: RouteRequest<any, any, any, any>, app: AppContext) => Promise<HandlerResult>;
}

/** `:siteId`, wherever it appears: the UUID of a site, in the case the database stores. */
export const SiteId = z
  .string()
  .refine(isUuid, 'must be a UUID')
  .transform((s) => s.toLowerCase())
  .meta({ format: 'uuid' });

/** A path parameter that names a row by UUID (400 `path.<name>` otherwise). */
export const Uuid = z.string().refine(isUuid, 'must be a UUID').meta({ format: 'uuid' });

/** Declares a route; see `RouteSpec`. */
export function route<
  const Path extends string,
  const A extends RouteAuth,
  // Undeclared parts are typed as nothing: no extra params, `query` and `body` undefined.
  P extends z.ZodObject | undefined = undefined,
  Q extends Schema = z.ZodUndefined,
  B extends Schema = z.ZodUndefined,
  R extends Schema | undefined = undefined,
>(spec: RouteSpec<Path, A, P, Q, B, R>): Route {
  const names = [...spec.path.matchAll(/:(\w+)/g)].map(([, name]) => name!);
  const declared = spec.params?.shape ?? {};
  const stray = Object.keys(declared).filter((n) => !names.includes(n));
  if (stray.length) throw new Error(`${spec.method} ${spec.path} declares params it has no segment for: ${stray}`);
  const params = z.strictObject(
    Object.fromEntries(names.map((n) => [n, declared[n] ?? (n === 'siteId' ? SiteId : z.string())])),
  );
  return { ...spec, params, handler: spec.handler as Route['handler'] };
}
