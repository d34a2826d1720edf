import { randomUUID } from 'node:crypto';
import uWS from 'uWebSockets.js';
import type { AppContext } from '../app-context.ts';
import { authenticate } from '../auth/authenticate.ts';
import { authorize } from '../auth/authorize.ts';
import type { Logger } from '../log.ts';
import { isConnectivityError } from '../errors/connectivity.ts';
import { HttpError, unavailable } from '../errors/http-error.ts';
import { BODY_LIMIT_BYTES, RequestBody } from './body.ts';
import { encodeBody } from './compression.ts';
import type { ConsoleFiles } from './console-files.ts';
import type { JsonResult, RequestContext } from './context.ts';
import { renderError, surfaceOf } from './error-body.ts';
import { mergeHeaders } from './headers.ts';
import { parseJsonBody } from './json-body.ts';
import { notFound } from './not-found.ts';
import { Reply } from './reply.ts';
import type { Route } from './route.ts';
import { Router } from './router.ts';
import { fieldErrors, jsonPointer, validateRequest, type ValidRequest } from './validate.ts';

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const NO_BODY = Promise.resolve(Buffer.alloc(0));
const REQUEST_ID = /^[\w.:-]{1,128}$/;
/**
 * Total size of request header names and values we accept (README "Request headers"). Twice
 * nginx's 8 KiB per line, so a console's cookies and long bearer tokens fit with room; below
 * what uWS itself parses from one read (~100 KiB on loopback), so an oversize gets 431.
 */
export const HEADER_LIMIT_BYTES = 32 * 1024;

export interface ServerOptions {
  host: string;
  port: number;
  /** Time a client has to deliver its whole body. @defaultValue 30000 */
  bodyTimeoutMs?: number;
  /** The web console, answering GETs of paths outside /api and /v1 that no route serves. */
  console?: ConsoleFiles;
}

export interface RunningServer {
  readonly port: number;
  readonly router: Router;
  /** Requests started and not yet answered. */
  inflight(): number;
  /** Stops accepting, then waits (up to `timeoutMs`) for in-flight requests to finish. */
  close(timeoutMs: number): Promise<{ unfinished: number }>;
}

/** The front door: one uWS listener serving the business API, the relay and health checks. */
export function startServer(app: AppContext, routes: readonly Route[], opts: ServerOptions): Promise<RunningServer> {
  const router = new Router(routes);
  const uws = uWS.App();
  let inflight = 0;
  let idle: (() => void) | null = null;
  let listenSocket: uWS.us_listen_socket | null = null;
  let closing = false;

  uws.any('/*', (res, req) => {
    // Everything uWS's request object holds must be read now: it is gone after the first await.
    const reply = new Reply(res);
    const method = req.getMethod().toUpperCase();
    const path = req.getUrl();
    const searchParams = new URLSearchParams(req.getQuery() ?? '');
    const headers: Record<string, string> = {};
    let headerBytes = 0;
    req.forEach((k, v) => {
      headers[k] = v;
      headerBytes += k.length + v.length + 4;
    });
    const declared = headers['content-length'] ? Number(headers['content-length']) : null;
    const body = WITH_BODY.has(method)
      ? new RequestBody(res, {
          limit: BODY_LIMIT_BYTES,
          declaredLength: Number.isFinite(declared) ? declared : null,
          timeoutMs: opts.bodyTimeoutMs ?? 30_000,
          signal: reply.signal,
        })
      : null;
    body?.whole.catch(() => undefined); // awaited (and its error answered) in handle()
    // Closing the listen socket stops new connections only: a keep-alive client can still send
    // on one it has, after the last in-flight request ended and the pools behind were closed.
    const refusal = closing
      ? new HttpError('service_unavailable', {
          detail: 'the server is shutting down; retry shortly',
          headers: { 'retry-after': '1' },
        })
      : headerBytes > HEADER_LIMIT_BYTES
        ? new HttpError('headers_too_large', { detail: `request headers exceed ${HEADER_LIMIT_BYTES} bytes` })
        : null;
    if (refusal) {
      const rendered = renderError(refusal, surfaceOf(path), randomUUID());
      reply.sendAndClose(
        refusal.status,
        mergeHeaders({ 'content-type': rendered.contentType }, refusal.headers),
        rendered.body,
        body,
      );
      return;
    }
    const given = headers['x-request-id'];
    const id = given && REQUEST_ID.test(given) ? given : randomUUID();
    inflight++;
    void handle({ id, method, path, searchParams, headers, reply }, body).finally(() => {
      inflight--;
      if (inflight === 0) idle?.();
    });
  });

  async function handle(
    base: Pick<RequestContext, 'id' | 'method' | 'path' | 'searchParams' | 'headers' | 'reply'>,
    body: RequestBody | null,
  ): Promise<void> {
    const started = performance.now();
    const surface = surfaceOf(base.path);
    // The request's logger (a child carrying its id) is built when a line is to be written:
    // above LOG_LEVEL info most requests write none, and building it was ~2% of a relay call.
    let log: Logger | null = null;
    const logger = (): Logger => (log ??= app.log.child({ reqId: base.id }));
    // The moment the request counts as in flight (graceful shutdown waits for it), for debugging
    // hung requests and for tests that signal a server while a body is still arriving.
    if (app.log.isLevelEnabled('debug')) logger().debug({ method: base.method, path: base.path }, 'request received');
    const { reply } = base;
    const responseHeaders: Record<string, string> = {};
    // Metrics are labelled by route pattern, never by raw path, to keep label sets bounded.
    let routeLabel = 'unmatched';
    try {
      const match = router.match(base.method, base.path);
      if (match.kind === 'found') routeLabel = match.route.path;
      if (match.kind === 'none') {
        const page =
          base.method === 'GET' && surface === 'api' && !base.path.startsWith('/api/')
            ? opts.console?.answer(base.path, base.headers['accept-encoding'])
            : null;
        if (!page) throw notFound(base.method, base.path, surface);
        routeLabel = 'console';
        reply.send(page.status, mergeHeaders(page.headers, { 'x-request-id': base.id }), page.body);
        return;
      }
      if (match.kind === 'wrong_method') {
        throw new HttpError('method_not_allowed', {
          detail: `${base.method} is not served on ${base.path}`,
          headers: { allow: match.allowed.join(', ') },
        });
      }
      const rawBody = await (body?.whole ?? NO_BODY);
      let parsed: { value: unknown } | null = null;
      // Spelled out, not `...base`: the copy of a spread outlives the young generation and
      // takes everything the context points at with it (measured: ~2 KB per request).
      const ctx: RequestContext & ValidRequest = {
        id: base.id,
        method: base.method,
        path: base.path,
        searchParams: base.searchParams,
        headers: base.headers,
        reply,
        params: match.params,
        rawBody,
        get log() {
          return logger();
        },
        set log(child) {
          log = child;
        },
        principal: null,
        responseHeaders,
        query: undefined,
        body: undefined,
        json() {
          parsed ??= { value: parseJsonBody(rawBody, base.headers['content-type']) };
          return parsed.value;
        },
      };
      const { auth } = match.route;
      if (auth.kind === 'business') {
        ctx.principal = await authenticate(ctx, app);
        const p = ctx.principal;
        ctx.log = ctx.log.child(
          p.kind === 'credential'
            ? { siteId: p.siteId, credentialId: p.credentialId }
            : { accountId: p.accountId, ...(ctx.params.siteId ? { siteId: ctx.params.siteId } : {}) },
        );
        if (ctx.principal.kind === 'credential') {
          Object.assign(
            responseHeaders,
            await app.limiter.enforce(
              `credential:${ctx.principal.credentialId}`,
              { perMinute: ctx.principal.limits.credentialRequestsPerMin ?? app.config.RATE_LIMIT_CREDENTIAL_PER_MIN },
              'this credential',
            ),
          );
        }
        await authorize(ctx.principal, auth, ctx, app);
      }
      // After authorization, as the handlers' own checks were: a caller who may not call the
      // route learns nothing from its schema.
      Object.assign(ctx, validateRequest(match.route, ctx));
      const result = await match.route.handler(ctx, app);
      if (result) {
        if (app.config.RESPONSE_CONTRACT_CHECK) checkResponse(match.route, result, logger());
        const encoded = await encodeBody(JSON.stringify(result.body), base.headers['accept-encoding']);
        const headers = mergeHeaders(
          { 'content-type': 'application/json; charset=utf-8', 'x-request-id': base.id },
          responseHeaders,
          result.headers,
          encoded.headers,
        );
        reply.send(result.status ?? 200, headers, encoded.body);
      } else if (reply.open && !reply.started) {
        throw new Error(`handler of ${match.route.method} ${match.route.path} returned no answer`);
      }
    } catch (caught) {
      const err = toHttpError(caught);
      if (err.status >= 500) logger().error({ err: caught }, 'request failed');
      if (reply.started) {
        // Mid-stream there is no way to send a status any more; cut the connection so the
        // client sees a broken answer instead of a silently truncated one.
        reply.abort();
      } else {
        const rendered = renderError(err, surface, base.id);
        const headers = mergeHeaders(
          { 'content-type': rendered.contentType, 'x-request-id': base.id },
          responseHeaders,
          err.headers,
        );
        // An answer given before the whole body arrived: the rest is still on the wire, except
        // from a client that stalled (408), which is not sending anything to wait for.
        if (body && !body.received)
          reply.sendAndClose(err.status, headers, rendered.body, err.code === 'request_timeout' ? null : body);
        else reply.send(err.status, headers, rendered.body);
      }
    } finally {
      const status = reply.aborted && !reply.finished ? 499 : reply.status;
      app.metrics.httpRequests.inc({ route: routeLabel, method: base.method, status });
      app.metrics.httpDuration.observe(
        { route: routeLabel, method: base.method },
        (performance.now() - started) / 1000,
      );
      if (app.log.isLevelEnabled('info'))
        logger().info(
          { method: base.method, path: base.path, status, ms: Math.round(performance.now() - started) },
          'request',
        );
    }
  }

  return new Promise((resolve, reject) => {
    uws.listen(opts.host, opts.port, (socket) => {
      if (!socket) {
        reject(new Error(`cannot listen on ${opts.host}:${opts.port}`));
        return;
      }
      listenSocket = socket;
      resolve({
        port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket),
        router,
        inflight: () => inflight,
        async close(timeoutMs) {
          closing = true;
          if (listenSocket) uWS.us_listen_socket_close(listenSocket);
          listenSocket = null;
          if (inflight > 0) {
            await new Promise<void>((done) => {
              const timer = setTimeout(done, timeoutMs);
              idle = () => {
                clearTimeout(timer);
                done();
              };
            });
          }
          return { unfinished: inflight };
        },
      });
    });
  });
}

/**
 * RESPONSE_CONTRACT_CHECK (tests): the JSON a client would receive must match the route's
 * declared `response`; a route answering JSON without declaring one fails too. Loud on purpose:
 * a 500 and an error line, so no test passes over a drifted contract.
 */
function checkResponse(route: Route, result: JsonResult, log: Logger): void {
  const sent: unknown = JSON.parse(JSON.stringify(result.body));
  const r = route.response?.safeParse(sent);
  if (r?.success) return;
  const errors = r
    ? fieldErrors(r.error.issues, jsonPointer)
    : [{ path: '', message: 'the route declares no response' }];
  log.error({ route: `${route.method} ${route.path}`, errors }, 'answer violates the declared response');
  throw new HttpError('response_contract_violation', {
    detail: `${route.method} ${route.path} answered ${result.status ?? 200} with a body its declared response refuses`,
    errors,
  });
}

function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (isConnectivityError(err)) return unavailable('PostgreSQL or Redis', err);
  return new HttpError('internal_error', { detail: 'unexpected error; it has been logged', cause: err });
}
