import pTimeout from 'p-timeout';
import { z } from 'zod';
import { ANALYTICS_VIEWS } from '../analytics/routes.ts';
import { resolveWindow } from '../analytics/window.ts';
import type { AppContext } from '../app-context.ts';
import type { Principal } from '../auth/principal.ts';
import type { Scope } from '../auth/scopes.ts';
import { HttpError, unavailable } from '../errors/http-error.ts';
import { route, Uuid, type Route } from '../http/route.ts';
import { queryInteger } from '../shared/query-integer.ts';
import { enqueue, JOBS } from '../queues/catalog.ts';
import { READ_SCOPE } from '../records/routes.ts';
import { streamExport } from './download.ts';
import { failExport, findExport, insertExport, recentExports } from './repo.ts';
import { ExportAnswer, ExportRequestSchema, presentExport, type ExportRequest } from './schemas.ts';

const ListQuerySchema = z.strictObject({ limit: queryInteger(1, 100, 20) });

/** How long creating an export may wait for Redis before answering 503. */
const ENQUEUE_TIMEOUT_MS = 2000;

/** The scopes that read what an export holds: the same as its GET. */
export function dataScopes(request: ExportRequest): readonly Scope[] {
  if (request.kind === 'records') return [READ_SCOPE[request.resource]];
  return ANALYTICS_VIEWS.find((v) => v.name === request.view)?.scopes ?? ['analytics:read'];
}

/** A credential may download only what it could read through the API. */
function assertMayRead(principal: Principal, request: ExportRequest): void {
  if (principal.kind !== 'credential') return;
  const missing = dataScopes(request).filter((s) => !principal.scopes.has(s));
  if (missing.length)
    throw new HttpError('insufficient_scope', {
      detail: `credential lacks scope ${missing.join(', ')} for this export`,
    });
}

const ExportParams = z.object({ exportId: Uuid });

async function exportOf(params: { siteId: string; exportId: string }, app: AppContext) {
  const row = await findExport(app.db, params.siteId, params.exportId.toLowerCase());
  if (!row) throw new HttpError('not_found', { detail: 'no such export on this site' });
  return row;
}

export const exportRoutes: Route[] = [
  route({
    method: 'POST',
    path: '/api/v1/sites/:siteId/exports',
    auth: { kind: 'business', scopes: ['exports:create'] },
    body: ExportRequestSchema,
    response: ExportAnswer,
    docs: {
      summary: 'Start an export of a record family or an analytics view into a CSV or NDJSON file',
      description:
        'Answers the export, `queued`; a worker makes the file. The window parameters are those of the reads: `from`/`to` on occurred_at for records (default all), `from`/`to`/`tz`/`interval` as for GET analytics/<view> (the default window ends when the export is asked for). Poll GET …/exports/{exportId}; download from its `downloadUrl`, kept EXPORT_TTL_HOURS (default 24).',
      tags: ['exports'],
      errors: [503],
    },
    handler: async (ctx, app) => {
      const request = ctx.body;
      if (request.kind === 'analytics') {
        // A window the view would refuse is refused now, not by the worker later.
        resolveWindow(request, app.config.RADAR_TZ, Date.now());
      }
      const row = await insertExport(app.db, ctx.params.siteId, request);
      try {
        if (app.redis.status !== 'ready') throw new Error('Redis is not connected');
        await pTimeout(enqueue(app.queues, JOBS.exportRun, { export_id: row.id }), {
          milliseconds: ENQUEUE_TIMEOUT_MS,
        });
      } catch (err) {
        // Nobody will make it: say so on the export, and let the client ask again.
        await failExport(app.db, row.id, { code: 'service_unavailable', detail: 'the job queue was unreachable' });
        throw unavailable('Redis', err);
      }
      ctx.log.info({ exportId: row.id, request }, 'export queued');
      return { body: presentExport(row) };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/exports',
    auth: { kind: 'business', scopes: ['exports:read'] },
    query: ListQuerySchema,
    response: z.strictObject({ data: z.array(ExportAnswer) }),
    docs: { summary: "The site's most recent exports, newest first", tags: ['exports'] },
    handler: async ({ params, query }, app) => {
      const rows = await recentExports(app.db, params.siteId, query.limit);
      return { body: { data: rows.map(presentExport) } };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/exports/:exportId',
    auth: { kind: 'business', scopes: ['exports:read'] },
    params: ExportParams,
    response: ExportAnswer,
    docs: {
      summary: 'An export: its state (queued, running, completed, failed, expired), progress and download URL',
      tags: ['exports'],
      errors: [404],
    },
    handler: async ({ params }, app) => ({ body: presentExport(await exportOf(params, app)) }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/exports/:exportId/download',
    auth: { kind: 'business', scopes: ['exports:read'] },
    params: ExportParams,
    docs: {
      summary: "An export's file (text/csv or application/x-ndjson), streamed",
      description:
        'A credential also needs the scope that reads the exported data. 409 while the file is being made or when the export failed; 410 once it expired.',
      tags: ['exports'],
      errors: [404, 409, 410],
    },
    handler: async (ctx, app) => {
      const row = await exportOf(ctx.params, app);
      assertMayRead(ctx.principal, row.request);
      if (row.status === 'expired')
        throw new HttpError('export_expired', { detail: `the file was deleted at ${row.expires_at?.toISOString()}` });
      if (row.status !== 'completed')
        throw new HttpError('export_not_ready', { detail: `the export is ${row.status}` });
      await streamExport(ctx, app, row);
    },
  }),
];
