import type { z } from 'zod';
import { HttpError, type FieldError } from '../errors/http-error.ts';
import type { RequestContext } from './context.ts';

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

export function parseBody<S extends z.ZodType>(schema: S, ctx: RequestContext): z.output<S> {
  return parseWith(schema, ctx.json());
}

/**
 * Parses the query string. A parameter given twice is refused rather than silently taking
 * one of the values; errors point at `query.<name>`.
 */
export function parseQuery<S extends z.ZodType>(schema: S, ctx: RequestContext): z.output<S> {
  const obj: Record<string, string> = {};
  const errors: FieldError[] = [];
  for (const [k, v] of ctx.query) {
    if (k in obj) errors.push({ path: `query.${k}`, message: 'given more than once' });
    obj[k] = v;
  }
  const r = schema.safeParse(obj);
  if (!r.success) errors.push(...fieldErrors(r.error.issues, (p) => `query.${p.map(String).join('.')}`));
  if (errors.length) throw new HttpError('validation_failed', { errors });
  return (r as { data: z.output<S> }).data;
}

export { pointer as jsonPointer };
