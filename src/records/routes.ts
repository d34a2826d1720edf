import { RESOURCES, type Resource, type Scope } from '../auth/scopes.ts';
import { route, type Route } from '../http/route.ts';
import { z } from 'zod';
import { RECORD_SCHEMAS } from '../ingest/schemas.ts';
import { pageSchema } from '../shared/pagination.ts';
import { listRecords } from './repo.ts';
import { MAX_OFFSET, RecordListQuerySchema } from './schemas.ts';

/** The scope that reads each collection (CONTRACT §2). */
export const READ_SCOPE: Record<Resource, Scope> = {
  customers: 'customers:read',
  events: 'events:read',
  campaigns: 'events:read',
  summaries: 'events:read',
  orders: 'finance:read',
  payments: 'finance:read',
  refunds: 'finance:read',
  subscriptions: 'finance:read',
  costs: 'finance:read',
  expenses: 'finance:read',
  observations: 'monitoring:read',
};

/**
 * GET /sites/{siteId}/<collection> (spec 4.3, CONTRACT §4): each item is the latest revision
 * exactly as ingested (timestamps in UTC) plus `received_at`. `next_offset` is null on the last
 * page and also past the offset limit, where `total` still tells how many records match.
 */
export const recordRoutes: Route[] = RESOURCES.map((resource) =>
  route({
    method: 'GET',
    path: `/api/v1/sites/:siteId/${resource}`,
    auth: { kind: 'business', scopes: [READ_SCOPE[resource]] },
    query: RecordListQuerySchema,
    response: pageSchema(RECORD_SCHEMAS[resource].extend({ received_at: z.iso.datetime() })).extend({
      freshness: z.object({ as_of: z.iso.datetime(), last_ingested_at: z.iso.datetime().nullable() }),
    }),
    docs: {
      summary: `List ${resource}: the latest revision of each record, ordered by occurred_at then id`,
      tags: ['records'],
    },
    handler: async ({ params, query }, app) => {
      const page = await listRecords(app.db, resource, params.siteId, query);
      const next = query.offset + page.rows.length;
      return {
        body: {
          data: page.rows.map((r) => ({ ...r.record, received_at: r.received_at.toISOString() })),
          pagination: {
            limit: query.limit,
            offset: query.offset,
            total: page.total,
            next_offset: page.rows.length > 0 && next < page.total && next <= MAX_OFFSET ? next : null,
          },
          freshness: {
            as_of: page.asOf.toISOString(),
            last_ingested_at: page.lastIngestedAt ? page.lastIngestedAt.toISOString() : null,
          },
        },
      };
    },
  }),
);
