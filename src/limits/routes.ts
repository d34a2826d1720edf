import { z } from 'zod';
import type { Config } from '../../config/env.ts';
import { HttpError } from '../errors/http-error.ts';
import { route, type Route } from '../http/route.ts';
import { updateSiteLimits, type SiteLimitsRow } from './repo.ts';
import { siteLimits } from './site-limits.ts';

/** null: follow the server default; 0: no limit for this site. */
const PerMinute = z.number().int().min(0).max(1_000_000_000).nullable();

const SiteLimitsSchema = z.strictObject({
  ingestRecordsPerMinute: PerMinute.describe('records per minute the site may ingest, over all resources'),
  credentialRequestsPerMinute: PerMinute.describe('requests per minute each credential of the site may make'),
});

const SiteLimitsAnswer = z.object({
  ingestRecordsPerMinute: PerMinute,
  credentialRequestsPerMinute: PerMinute,
  effective: z
    .object({ ingestRecordsPerMinute: z.number().int(), credentialRequestsPerMinute: z.number().int() })
    .describe('what applies now; 0 = no limit'),
});

function present(row: SiteLimitsRow, config: Config): z.infer<typeof SiteLimitsAnswer> {
  return {
    ingestRecordsPerMinute: row.ingest_records_per_min,
    credentialRequestsPerMinute: row.credential_requests_per_min,
    effective: {
      ingestRecordsPerMinute: row.ingest_records_per_min ?? config.INGEST_QUOTA_RECORDS_PER_MIN,
      credentialRequestsPerMinute: row.credential_requests_per_min ?? config.RATE_LIMIT_CREDENTIAL_PER_MIN,
    },
  };
}

export const limitRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/limits',
    auth: { kind: 'business', scopes: [], adminOnly: true },
    response: SiteLimitsAnswer,
    docs: { summary: "The site's rate limits (platform admin only)", tags: ['sites'] },
    handler: async ({ params }, app) => ({ body: present(await siteLimits(app, params.siteId), app.config) }),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/sites/:siteId/limits',
    auth: { kind: 'business', scopes: [], adminOnly: true },
    body: SiteLimitsSchema,
    response: SiteLimitsAnswer,
    docs: { summary: "Set the site's rate limits (platform admin only)", tags: ['sites'] },
    handler: async ({ params, body, log }, app) => {
      const row = await updateSiteLimits(app.db, params.siteId, {
        ingestRecordsPerMin: body.ingestRecordsPerMinute,
        credentialRequestsPerMin: body.credentialRequestsPerMinute,
      });
      if (!row) throw new HttpError('site_forbidden');
      log.info({ limits: body }, 'site limits set');
      return { body: present(row, app.config) };
    },
  }),
];
