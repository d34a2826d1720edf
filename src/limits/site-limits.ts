import type { AppContext } from '../app-context.ts';
import type { Principal } from '../auth/principal.ts';
import { HttpError } from '../errors/http-error.ts';
import { findSiteLimits, type SiteLimitsRow } from './repo.ts';

/** The limits set on a site; 403 `site_forbidden` when there is no such site. */
export async function siteLimits(app: AppContext, siteId: string): Promise<SiteLimitsRow> {
  const row = await findSiteLimits(app.db, siteId);
  if (!row) throw new HttpError('site_forbidden');
  return row;
}

/** Records per minute `siteId` may ingest: its own setting, else the server default. */
export async function ingestQuotaOf(app: AppContext, siteId: string, principal: Principal): Promise<number> {
  // A credential's lookup already brought its site's limits; a session's request asks once.
  const own =
    principal.kind === 'credential'
      ? principal.limits.ingestRecordsPerMin
      : (await siteLimits(app, siteId)).ingest_records_per_min;
  return own ?? app.config.INGEST_QUOTA_RECORDS_PER_MIN;
}
