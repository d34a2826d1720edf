import { HttpError } from '../errors/http-error.ts';
import type { Surface } from './error-body.ts';

/** 404 for a path no route serves; on the relay, with a hint for the usual base-URL mistakes. */
export function notFound(method: string, path: string, surface: Surface): HttpError {
  if (surface === 'api') return new HttpError('not_found', { detail: `no endpoint ${method} ${path}` });
  let hint = '';
  if (path.startsWith('/v1/v1')) {
    hint =
      ' The path repeats /v1: the client base URL already ends in /v1, so give the base URL without it or the endpoint without it.';
  } else if (/^\/v1\/.+\/(responses|chat\/completions|embeddings|models)$/.test(path)) {
    hint = ' The base URL must not already contain the endpoint name.';
  }
  return new HttpError('unknown_endpoint', { detail: `Unknown endpoint ${method} ${path}.${hint}` });
}
