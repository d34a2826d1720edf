import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';

const q = {
  siteFind: sqlFile('limits/site-find.sql'),
  siteUpdate: sqlFile('limits/site-update.sql'),
};

/** The limits set on a site; null follows the server default. */
export interface SiteLimitsRow {
  ingest_records_per_min: number | null;
  credential_requests_per_min: number | null;
}

export function findSiteLimits(db: Db, siteId: string): Promise<SiteLimitsRow | null> {
  return db.oneOrNone<SiteLimitsRow>(q.siteFind, { siteId });
}

export function updateSiteLimits(
  db: Db,
  siteId: string,
  limits: { ingestRecordsPerMin: number | null; credentialRequestsPerMin: number | null },
): Promise<SiteLimitsRow | null> {
  return db.oneOrNone<SiteLimitsRow>(q.siteUpdate, { siteId, ...limits });
}
