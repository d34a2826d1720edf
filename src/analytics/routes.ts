import type { z } from 'zod';
import type { Scope } from '../auth/scopes.ts';
import type { SharedSnapshots } from './snapshot.ts';
import { route, type Route } from '../http/route.ts';
import {
  AcquisitionAnswer,
  FinanceAnswer,
  FunnelAnswer,
  OverviewAnswer,
  RetentionAnswer,
  TimeseriesAnswer,
  UnitEconomicsAnswer,
} from './answers.ts';
import {
  AnalyticsQuerySchema,
  TimeseriesQuerySchema,
  UnitEconomicsQuerySchema,
  type AnalyticsQuery,
  type ViewName,
} from './schemas.ts';
import { acquisition, economics, finance, funnel, overview, retention, timeseries, type ViewAnswer } from './views.ts';
import { resolveWindow, type Window } from './window.ts';

type AnyAnswer = z.ZodType<ViewAnswer<unknown>, ViewAnswer<unknown>>;

/** One analytics view: its query, answer, scopes and how it is computed; served by a route and by exports. */
export interface View<
  S extends z.ZodType<AnalyticsQuery> = z.ZodType<AnalyticsQuery>,
  A extends z.ZodType = AnyAnswer,
> {
  name: ViewName;
  summary: string;
  scopes: Scope[];
  schema: S;
  answer: A;
  run(snapshots: SharedSnapshots, siteId: string, w: Window, query: z.output<S>, now: number): Promise<z.input<A>>;
}

/**
 * GET /sites/{siteId}/analytics/<view> (spec 4.5, CONTRACT §5): `{data, coverage, currencies,
 * freshness}` over the window `from`..`to`, cut into days of `tz`.
 */
function viewRoute(v: View): Route {
  return route({
    method: 'GET',
    path: `/api/v1/sites/:siteId/analytics/${v.name}`,
    auth: { kind: 'business', scopes: v.scopes },
    query: v.schema,
    response: v.answer,
    docs: {
      summary: v.summary,
      description:
        'Answers {data, coverage, currencies, freshness}. `from`/`to`: a local date in `tz` or any instant with a zone, `to` exclusive, at most 366 days; default the last 30 local days up to now. Money is a map currency → minor units, never converted.',
      tags: ['analytics'],
    },
    handler: async ({ params, query }, app) => {
      const now = Date.now();
      // Asked for now, a window without `to` ends when the view's snapshot is taken (window.ts).
      const w = { ...resolveWindow(query, app.config.RADAR_TZ, now), live: query.to === undefined };
      return { body: await v.run(app.snapshots, params.siteId, w, query, now) };
    },
  });
}

const READ: Scope[] = ['analytics:read'];

/** Keeps each view's `run` typed by its own schemas, then lists it beside the others. */
function view<S extends z.ZodType<AnalyticsQuery>, A extends z.ZodType>(v: View<S, A>): View {
  return v as unknown as View;
}

export const ANALYTICS_VIEWS: readonly View[] = [
  view({
    name: 'overview',
    summary:
      'Visits, visitors, registrations, activations, active users, paid orders, money, MRR and uptime of a window',
    scopes: READ,
    schema: AnalyticsQuerySchema,
    answer: OverviewAnswer,
    run: (db, site, w, _q, now) => overview(db, site, w, now),
  }),
  view({
    name: 'acquisition',
    summary: 'Figures per channel and campaign, with spend, CAC and ROAS per currency',
    scopes: READ,
    schema: AnalyticsQuerySchema,
    answer: AcquisitionAnswer,
    run: (db, site, w) => acquisition(db, site, w),
  }),
  view({
    name: 'timeseries',
    summary: 'Figures per local day, week or month, zero-filled, unobserved periods marked',
    scopes: READ,
    schema: TimeseriesQuerySchema,
    answer: TimeseriesAnswer,
    run: (db, site, w, q) => timeseries(db, site, w, q.interval),
  }),
  view({
    name: 'finance',
    summary: 'Receipts, refunds, costs, expenses, margin, MRR/ARR and subscription changes per currency',
    scopes: [...READ, 'finance:read'],
    schema: AnalyticsQuerySchema,
    answer: FinanceAnswer,
    run: (db, site, w, _q, now) => finance(db, site, w, now),
  }),
  view({
    name: 'funnel',
    summary: 'Distinct users at each step from visit to paid order, with conversions',
    scopes: READ,
    schema: AnalyticsQuerySchema,
    answer: FunnelAnswer,
    run: (db, site, w) => funnel(db, site, w),
  }),
  view({
    name: 'retention',
    summary: 'Weekly registration cohorts and the share active in each later week',
    scopes: READ,
    schema: AnalyticsQuerySchema,
    answer: RetentionAnswer,
    run: (db, site, w) => retention(db, site, w),
  }),
  view({
    name: 'unit-economics',
    summary:
      'Per customer: net revenue, model spend through the relay, margin, calls and tokens; top spenders, lowest margins and the share losing money, per currency',
    scopes: [...READ, 'finance:read'],
    schema: UnitEconomicsQuerySchema,
    answer: UnitEconomicsAnswer,
    run: (db, site, w, q) => economics(db, site, w, q.limit),
  }),
];

export const analyticsRoutes: Route[] = ANALYTICS_VIEWS.map(viewRoute);
