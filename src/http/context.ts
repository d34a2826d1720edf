import type { Logger } from '../log.ts';
import type { Reply } from './reply.ts';
import type { Principal } from '../auth/principal.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Everything a handler may know about one request; captured before the first await. */
export interface RequestContext {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  /** The raw query string; a route's declared `query` is what handlers read. */
  readonly searchParams: URLSearchParams;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly params: Readonly<Record<string, string>>;
  /** The raw body, read with the size cap; empty for bodiless methods. */
  readonly rawBody: Buffer;
  /** The body parsed as JSON (400 invalid_json when it is not). */
  json(): unknown;
  /** Carries the request id; after authentication also the site, account and credential ids. */
  log: Logger;
  readonly reply: Reply;
  /** Set by authentication on business routes. */
  principal: Principal | null;
  /** Headers added to whatever answer this request gets, errors included (e.g. RateLimit-*). */
  readonly responseHeaders: Record<string, string>;
}

/** What a handler returns: a JSON answer, or nothing when it wrote to `ctx.reply` itself. */
export interface JsonResult {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
}
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that answered through `reply` itself returns nothing
export type HandlerResult = JsonResult | void;
