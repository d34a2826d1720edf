import { HttpError } from '../errors/http-error.ts';
import { isUuid } from '../shared/ids.ts';
import type { RequestContext } from './context.ts';

/** A `:name` path parameter that must be a UUID, or 400 naming it. */
export function uuidParam(ctx: RequestContext, name: string): string {
  const value = ctx.params[name];
  if (value === undefined || !isUuid(value))
    throw new HttpError('validation_failed', { errors: [{ path: `path.${name}`, message: 'must be a UUID' }] });
  return value;
}
