import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import type { REVIEW_STATUSES, SiteCategory } from './schemas.ts';

const q = {
  insert: sqlFile('sites/insert.sql'),
  findById: sqlFile('sites/find-by-id.sql'),
  listByAccount: sqlFile('sites/list-by-account.sql'),
  listAll: sqlFile('sites/list-all.sql'),
  update: sqlFile('sites/update.sql'),
  review: sqlFile('sites/review.sql'),
  listByStatus: sqlFile('sites/list-by-status.sql'),
};

export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export interface SiteRow {
  id: string;
  account_id: string;
  name: string;
  website_url: string;
  description: string;
  category: SiteCategory;
  public_metrics: boolean;
  review_status: ReviewStatus;
  reviewed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface SiteFields {
  name: string;
  websiteUrl: string;
  description: string;
  category: SiteCategory;
  publicMetrics: boolean;
}

export function insertSite(db: Db, accountId: string, f: SiteFields): Promise<SiteRow> {
  return db.one<SiteRow>(q.insert, { accountId, ...f });
}

export function findSite(db: Db, id: string): Promise<SiteRow | null> {
  return db.oneOrNone<SiteRow>(q.findById, { id });
}

export function listSitesOfAccount(db: Db, accountId: string): Promise<SiteRow[]> {
  return db.any<SiteRow>(q.listByAccount, { accountId });
}

export function listAllSites(db: Db): Promise<SiteRow[]> {
  return db.any<SiteRow>(q.listAll);
}

export function listSitesByStatus(db: Db, status: ReviewStatus): Promise<Array<SiteRow & { owner_email: string }>> {
  return db.any(q.listByStatus, { status });
}

export function updateSite(db: Db, id: string, f: Partial<SiteFields>): Promise<SiteRow> {
  return db.one<SiteRow>(q.update, {
    id,
    name: f.name ?? null,
    websiteUrl: f.websiteUrl ?? null,
    description: f.description ?? null,
    category: f.category ?? null,
    publicMetrics: f.publicMetrics ?? null,
  });
}

export function reviewSite(db: Db, id: string, decision: 'approved' | 'rejected'): Promise<SiteRow | null> {
  return db.oneOrNone<SiteRow>(q.review, { id, decision });
}
