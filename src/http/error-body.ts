import type { HttpError } from '../errors/http-error.ts';

/** Which error dialect a path speaks: the relay mimics OpenAI, everything else is RFC 9457. */
export type Surface = 'api' | 'relay';

export function surfaceOf(path: string): Surface {
  return path === '/v1' || path.startsWith('/v1/') ? 'relay' : 'api';
}

export interface RenderedError {
  contentType: string;
  body: string;
}

export function renderError(err: HttpError, surface: Surface, requestId: string): RenderedError {
  if (surface === 'relay') {
    // OpenAI's types; a used-up budget is its own type there, as `insufficient_quota`.
    const type =
      err.code === 'insufficient_quota'
        ? 'insufficient_quota'
        : err.status >= 500
          ? 'server_error'
          : err.status === 429
            ? 'rate_limit_error'
            : 'invalid_request_error';
    return {
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({ error: { message: err.message, type, param: err.param, code: err.code } }),
    };
  }
  return {
    contentType: 'application/problem+json; charset=utf-8',
    body: JSON.stringify({
      type: `urn:radar:error:${err.code}`,
      title: err.title,
      status: err.status,
      detail: err.message,
      code: err.code,
      ...(err.errors ? { errors: err.errors } : {}),
      request_id: requestId,
    }),
  };
}
