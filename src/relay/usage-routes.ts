import type { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { resolveWindow } from '../analytics/window.ts';
import { route, type Route } from '../http/route.ts';
import { UsageAnswerSchema, UsageQuerySchema, usageReport } from './usage-report.ts';

const own = { kind: 'business', scopes: [], sessionOnly: true } as const;
const admin = { kind: 'business', scopes: [], sessionOnly: true, adminOnly: true } as const;
const description =
  'Per local day (in `tz`), key and model, and per day over all of them: calls, errors, tokens of each kind, cost per currency (calls to unpriced models counted apart), p50/p95 time to first byte and duration. The window takes the analytics views’ `from`, `to` and `tz`.';

/** The report for `accountId`'s keys (null: every key). */
function report(q: z.infer<typeof UsageQuerySchema>, app: AppContext, accountId: string | null) {
  return usageReport(app.db, resolveWindow(q, app.config.RADAR_TZ, Date.now()), accountId, q);
}

/** Usage and spend of relay keys: an account sees its own keys, the platform admin every key. */
export const relayUsageRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/me/relay-usage',
    auth: own,
    query: UsageQuerySchema,
    response: UsageAnswerSchema,
    docs: { summary: "Usage and spend of the caller's relay keys", description, tags: ['relay keys'] },
    handler: async ({ query, principal }, app) => ({ body: await report(query, app, principal.accountId) }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/relay/usage',
    auth: admin,
    query: UsageQuerySchema,
    response: UsageAnswerSchema,
    docs: { summary: 'Usage and spend of every relay key (platform admin only)', description, tags: ['relay admin'] },
    handler: async ({ query }, app) => ({ body: await report(query, app, null) }),
  }),
];
