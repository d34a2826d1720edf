import type { AppContext } from '../app-context.ts';
import { resolveWindow } from '../analytics/window.ts';
import type { RequestContext } from '../http/context.ts';
import { route, type Route } from '../http/route.ts';
import { parseQuery } from '../http/validate.ts';
import { UsageAnswerSchema, UsageQuerySchema, usageReport } from './usage-report.ts';

const own = { kind: 'business', scopes: [], sessionOnly: true } as const;
const admin = { kind: 'business', scopes: [], sessionOnly: true, adminOnly: true } as const;
const description =
  'Per local day (in `tz`), key and model, and per day over all of them: calls, errors, tokens of each kind, cost per currency (calls to unpriced models counted apart), p50/p95 time to first byte and duration. The window takes the analytics views’ `from`, `to` and `tz`.';

/** The report for `accountId`'s keys (null: every key). */
function report(ctx: RequestContext, app: AppContext, accountId: string | null) {
  const q = parseQuery(UsageQuerySchema, ctx);
  return usageReport(app.db, resolveWindow(q, app.config.RADAR_TZ, Date.now()), accountId, q);
}

/** Usage and spend of relay keys: an account sees its own keys, the platform admin every key. */
export const relayUsageRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/me/relay-usage',
    auth: own,
    docs: {
      summary: "Usage and spend of the caller's relay keys",
      description,
      tags: ['relay keys'],
      query: UsageQuerySchema,
      response: UsageAnswerSchema,
    },
    handler: async (ctx, app) => ({ body: await report(ctx, app, ctx.principal!.accountId) }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/relay/usage',
    auth: admin,
    docs: {
      summary: 'Usage and spend of every relay key (platform admin only)',
      description,
      tags: ['relay admin'],
      query: UsageQuerySchema,
      response: UsageAnswerSchema,
    },
    handler: async (ctx, app) => ({ body: await report(ctx, app, null) }),
  }),
];
