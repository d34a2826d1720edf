import { ERROR_CATALOG, type ErrorCode } from './catalog.ts';

/** One violation inside a request: `path` is a JSON Pointer into the body, or `query.<name>`. */
export interface FieldError {
  path: string;
  message: string;
}

export interface HttpErrorOptions {
  detail?: string;
  errors?: readonly FieldError[];
  headers?: Record<string, string>;
  /** Overrides the catalog status, for upstream errors passed on as they came. */
  status?: number;
  /** OpenAI error `param`, for relay errors about one field. */
  param?: string | null;
  cause?: unknown;
}

/** An error that becomes an HTTP answer: problem+json on /api, OpenAI's body on /v1. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly errors?: readonly FieldError[];
  readonly headers: Record<string, string>;
  readonly param: string | null;

  constructor(code: ErrorCode, options: HttpErrorOptions = {}) {
    const entry = ERROR_CATALOG[code];
    super(options.detail ?? entry.title, { cause: options.cause });
    this.code = code;
    this.status = options.status ?? entry.status;
    this.title = entry.title;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.param = options.param ?? null;
  }
}

/** 503 with Retry-After: the answer whenever PostgreSQL or Redis cannot be reached. */
export function unavailable(what: string, cause?: unknown): HttpError {
  return new HttpError('service_unavailable', {
    detail: `${what} is unreachable; retry shortly`,
    headers: { 'retry-after': '5' },
    cause,
  });
}
