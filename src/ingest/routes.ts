import { z } from 'zod';
import { ingestScope, RESOURCES } from '../auth/scopes.ts';
import { HttpError } from '../errors/http-error.ts';
import { route, type Route } from '../http/route.ts';
import { presentReceipt, ReceiptSchema } from './receipt.ts';
import { findBatch, recentBatches } from './repo.ts';
import { BATCH_SCHEMAS, Identifier } from './schemas.ts';
import { ingestBatch } from './service.ts';

const ReceiptQuerySchema = z.strictObject({ resource: z.enum(RESOURCES) });
const BatchesQuerySchema = z.strictObject({ limit: z.coerce.number().int().min(1).max(200).default(50) });

export const ingestRoutes: Route[] = [
  ...RESOURCES.map((resource) =>
    route({
      method: 'POST',
      path: `/api/v1/sites/:siteId/ingest/${resource}`,
      auth: { kind: 'business', scopes: [ingestScope(resource)] },
      body: BATCH_SCHEMAS[resource],
      response: ReceiptSchema,
      docs: {
        summary: `Ingest a batch of ${resource} (idempotent by batch_id)`,
        description:
          '200 with the completed receipt (also for an identical retry, with `replay: true`); 202 with `Location` for `Prefer: respond-async` or when INGEST_SYNC_WAIT_MS runs out.',
        tags: ['ingest'],
        errors: [409, 422],
      },
      handler: (ctx, app) => ingestBatch(ctx, app, resource),
    }),
  ),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/ingest/batches',
    auth: { kind: 'business', scopes: ['ingest:receipt:read'] },
    query: BatchesQuerySchema,
    response: z.object({ data: z.array(ReceiptSchema) }),
    docs: {
      summary:
        "The site's most recent batches of every family, newest first, as receipts (a rejected one with its problem and every record's reason)",
      tags: ['ingest'],
    },
    handler: async ({ params, query: { limit } }, app) => {
      const rows = await recentBatches(app.db, params.siteId, limit);
      return { body: { data: rows.map((r) => presentReceipt(r, false)) } };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/ingest/receipts/:batchId',
    auth: { kind: 'business', scopes: ['ingest:receipt:read'] },
    params: z.object({ batchId: Identifier }),
    query: ReceiptQuerySchema,
    response: ReceiptSchema,
    docs: { summary: 'The receipt of a batch', tags: ['ingest'], errors: [404] },
    handler: async ({ params: { siteId, batchId }, query: { resource } }, app) => {
      const row = await findBatch(app.db, { siteId, resource, batchId });
      if (!row) throw new HttpError('not_found', { detail: `no ${resource} batch ${batchId} on this site` });
      return { body: presentReceipt(row, false) };
    },
  }),
];
