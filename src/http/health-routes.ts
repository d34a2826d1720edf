import pTimeout from 'p-timeout';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { hashSecret, sameDigest } from '../auth/secrets.ts';
import { HttpError } from '../errors/http-error.ts';
import { route, type Route } from './route.ts';

async function probe(app: AppContext): Promise<{ postgres: boolean; redis: boolean }> {
  const [pg, rd] = await Promise.allSettled([
    pTimeout(app.db.one('SELECT 1 AS ok'), { milliseconds: 2000 }),
    pTimeout(app.redis.ping(), { milliseconds: 2000 }),
  ]);
  return { postgres: pg.status === 'fulfilled', redis: rd.status === 'fulfilled' };
}

/** Prometheus scrape endpoint; behind a bearer token when METRICS_TOKEN is set. */
export const metricsRoute: Route = route({
  method: 'GET',
  path: '/metrics',
  auth: { kind: 'public' },
  docs: { summary: 'Prometheus metrics (Bearer METRICS_TOKEN when configured)', tags: ['service'], errors: [401] },
  handler: async (ctx, app) => {
    const token = app.config.METRICS_TOKEN;
    if (token !== undefined) {
      const given = /^Bearer (.+)$/.exec(ctx.headers.authorization ?? '')?.[1] ?? '';
      if (!sameDigest(hashSecret(given), hashSecret(token)))
        throw new HttpError('unauthenticated', {
          detail: 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"',
        });
    }
    const text = await app.metrics.registry.metrics();
    ctx.reply.send(200, { 'content-type': app.metrics.registry.contentType, 'x-request-id': ctx.id }, text);
  },
});

/** Liveness says the process answers; readiness says it can do real work. */
export function healthRoutes(isDraining: () => boolean): Route[] {
  return [
    route({
      method: 'GET',
      path: '/healthz',
      auth: { kind: 'public' },
      response: z.object({ status: z.literal('ok') }),
      docs: { summary: 'Liveness: the process answers', tags: ['service'] },
      handler: async () => ({ body: { status: 'ok' as const } }),
    }),
    route({
      method: 'GET',
      path: '/readyz',
      auth: { kind: 'public' },
      response: z.object({ status: z.literal('ready'), postgres: z.literal('ok'), redis: z.literal('ok') }),
      docs: { summary: 'Readiness: PostgreSQL and Redis reachable', tags: ['service'], errors: [503] },
      handler: async (_ctx, app) => {
        if (isDraining())
          throw new HttpError('service_unavailable', { detail: 'shutting down', headers: { 'retry-after': '5' } });
        const up = await probe(app);
        const down = Object.entries(up)
          .filter(([, ok]) => !ok)
          .map(([name]) => name);
        if (down.length) {
          throw new HttpError('service_unavailable', {
            detail: `${down.join(' and ')} unreachable`,
            errors: down.map((name) => ({ path: name, message: 'unreachable' })),
            headers: { 'retry-after': '5' },
          });
        }
        return { body: { status: 'ready', postgres: 'ok', redis: 'ok' } as const };
      },
    }),
    metricsRoute,
  ];
}
