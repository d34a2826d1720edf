import type { z } from 'zod';
import { HttpError, type FieldError } from '../errors/http-error.ts';
import type { RequestContext } from './context.ts';
import type { Route } from './route.ts';
import { NO_PARAMS } from './router.ts';

function pointer(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * Every zod issue as a field error. An unknown-keys issue names its object; it is split
 * into one error per key so each points at the offending field.
 */
export function fieldErrors(
  issues: ReadonlyArray<z.core.$ZodIssue>,
  toPath: (p: ReadonlyArray<PropertyKey>) => string,
): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: toPath([...issue.path, key]), message: 'unknown field' });
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // Report the branch that got furthest instead of a bare "invalid input".
      const best = issue.errors.reduce((a, b) => (b.length < a.length ? b : a));
      out.push(...fieldErrors(best, toPath));
    } else {
      out.push({ path: toPath(issue.path), message: issue.message });
    }
  }
  return out;
}

/** Parses a JSON value against a schema; 400 listing every violation as a JSON Pointer. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new HttpError('validation_failed', { errors: fieldErrors(r.error.issues, pointer) });
}

const dotted = (prefix: string) => (p: ReadonlyArray<PropertyKey>) => `${prefix}.${p.map(String).join('.')}`;
const PATH = dotted('path');
const QUERY = dotted('query');

/** Parses `value` with `schema`, adding each violation to `errors` under `toPath`. */
function check(
  schema: z.ZodType,
  value: unknown,
  toPath: (p: ReadonlyArray<PropertyKey>) => string,
  errors: FieldError[],
): unknown {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  errors.push(...fieldErrors(r.error.issues, toPath));
  return undefined;
}

/** The query string as an object; a parameter given twice is refused rather than one value kept. */
function queryObject(searchParams: URLSearchParams, errors: FieldError[]): Record<string, string> {
  const obj: Record<string, string> = {};
  for (const [k, v] of searchParams) {
    if (k in obj) errors.push({ path: `query.${k}`, message: 'given more than once' });
    obj[k] = v;
  }
  return obj;
}

export interface ValidRequest {
  params: unknown;
  query: unknown;
  body: unknown;
}

/**
 * A request checked against its route's declaration, before the handler runs: path
 * parameters, query and JSON body. Every violation of all three is listed in one 400
 * (`path.<name>`, `query.<name>`, or a JSON Pointer into the body). Relay routes check their
 * own bodies (see `RouteAuth`).
 */
export function validateRequest(route: Route, ctx: RequestContext): ValidRequest {
  const errors: FieldError[] = [];
  // A route without path parameters (the router's NO_PARAMS) has nothing to check there.
  const params = ctx.params === NO_PARAMS ? NO_PARAMS : check(route.params, ctx.params, PATH, errors);
  const query = route.query ? check(route.query, queryObject(ctx.searchParams, errors), QUERY, errors) : undefined;
  let body: unknown;
  if (route.body && route.auth.kind !== 'relay') {
    // An empty body is `undefined` to a schema that allows it (an optional body), else JSON.
    const absent = ctx.rawBody.length === 0 && route.body.safeParse(undefined).success;
    body = absent ? undefined : check(route.body, ctx.json(), pointer, errors);
  }
  if (errors.length) throw new HttpError('validation_failed', { errors });
  return { params, query, body };
}

export { pointer as jsonPointer };
