import type { z } from 'zod';
import type { Scope } from '../auth/scopes.ts';
import type { Db } from '../db/connection.ts';
import { route, type Route } from '../http/route.ts';
import { parseQuery } from '../http/validate.ts';
import { AnalyticsQuerySchema, TimeseriesQuerySchema, type AnalyticsQuery } from './schemas.ts';
import { acquisition, finance, funnel, overview, retention, timeseries, type ViewAnswer } from './views.ts';
import { resolveWindow, type Window } from './window.ts';

interface View<S extends z.ZodType<AnalyticsQuery>> {
  name: string;
  scopes: Scope[];
  schema: S;
  run(db: Db, siteId: string, w: Window, query: z.output<S>, now: number): Promise<ViewAnswer<unknown>>;
}

/**
 * GET /sites/{siteId}/analytics/<view> (spec 4.5, CONTRACT §5): `{data, coverage, currencies,
 * freshness}` over the window `from`..`to`, cut into days of `tz`.
 */
function viewRoute<S extends z.ZodType<AnalyticsQuery>>(v: View<S>): Route {
  return route({
    method: 'GET',
    path: `/api/v1/sites/:siteId/analytics/${v.name}`,
    auth: { kind: 'business', scopes: v.scopes },
    handler: async (ctx, app) => {
      const query = parseQuery(v.schema, ctx);
      const now = Date.now();
      const w = resolveWindow(query, app.config.RADAR_TZ, now);
      return { body: await v.run(app.db, ctx.params.siteId!.toLowerCase(), w, query, now) };
    },
  });
}

const READ: Scope[] = ['analytics:read'];

export const analyticsRoutes: Route[] = [
  viewRoute({ name: 'overview', scopes: READ, schema: AnalyticsQuerySchema, run: (db, site, w, _q, now) => overview(db, site, w, now) }),
  viewRoute({ name: 'acquisition', scopes: READ, schema: AnalyticsQuerySchema, run: (db, site, w) => acquisition(db, site, w) }),
  viewRoute({ name: 'timeseries', scopes: READ, schema: TimeseriesQuerySchema, run: (db, site, w, q) => timeseries(db, site, w, q.interval) }),
  viewRoute({ name: 'finance', scopes: [...READ, 'finance:read'], schema: AnalyticsQuerySchema, run: (db, site, w, _q, now) => finance(db, site, w, now) }),
  viewRoute({ name: 'funnel', scopes: READ, schema: AnalyticsQuerySchema, run: (db, site, w) => funnel(db, site, w) }),
  viewRoute({ name: 'retention', scopes: READ, schema: AnalyticsQuerySchema, run: (db, site, w) => retention(db, site, w) }),
];
