/**
 * Shapes of the API's answers as the console reads them. Routes do not declare their response
 * schemas yet, so schema.d.ts types every 200 as `object`; delete this file (and use the
 * generated types) once the routes declare `docs.response`.
 */
export type ReviewStatus = 'pending_review' | 'approved' | 'rejected';
export type Money = Record<string, number>;

export interface Account {
  id: string;
  email: string;
  name: string | null;
  admin: boolean;
  createdAt: string;
  disabledAt: string | null;
}

export interface Site {
  id: string;
  name: string;
  websiteUrl: string;
  description: string;
  category: string;
  publicMetrics: boolean;
  reviewStatus: ReviewStatus;
  createdAt: string;
  updatedAt: string;
  ownerEmail?: string;
}

export interface Credential {
  id: string;
  name: string;
  kind: 'read' | 'ingest';
  scopes: string[];
  createdAt: string;
  expiresAt: string;
  prefix: string;
  revokedAt: string | null;
  requestsPerMinute: number | null;
  secret?: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: { path: string; message: string }[];
  request_id?: string;
}

export interface Receipt {
  batch_id: string;
  resource: string;
  status: 'queued' | 'completed' | 'rejected';
  received: number;
  applied: number;
  unchanged: number;
  digest: string;
  received_at: string;
  completed_at: string | null;
  problem?: Problem;
}

export interface RecordPage {
  data: Record<string, unknown>[];
  pagination: { limit: number; offset: number; total: number; next_offset: number | null };
  freshness: { as_of: string; last_ingested_at: string | null };
}

export interface FamilyCoverage {
  records: number;
  first_occurred_at: string | null;
  last_occurred_at: string | null;
  days_with_data: number;
  days_in_window: number;
}

export interface Coverage {
  window: { from: string; to: string; tz: string; days: number };
  families: Record<string, FamilyCoverage>;
  metrics: Record<string, { source: 'raw' | 'summaries' | 'mixed' | 'none'; raw_days: number; summary_days: number }>;
  summaries: { used: number; unused: number };
}

export interface Freshness {
  as_of: string;
  lag_seconds: number;
  pending_hours: number;
  last_received_at: string | null;
}

export interface View<D> {
  data: D;
  coverage: Coverage;
  currencies: string[];
  freshness: Freshness;
}

export interface Overview {
  visits: number;
  visitors: number;
  registrations: number;
  activations: number;
  active_users: number;
  paid_orders: number;
  receipts: Money;
  refunds: Money;
  net_revenue: Money;
  costs: Money;
  mrr: Money;
  uptime: { ratio: number | null; healthy: number; degraded: number; down: number; unknown: number };
}

export interface Bucket {
  start: string;
  end: string;
  label: string;
  observed: boolean;
  visits: number;
  registrations: number;
  activations: number;
  paid_orders: number;
  receipts: Money;
  net_revenue: Money;
}

export interface Timeseries {
  interval: 'day' | 'week' | 'month';
  buckets: Bucket[];
}

export interface SourceRow {
  channel: string;
  campaign_id?: string;
  name?: string;
  visits: number;
  registrations: number;
  activations: number;
  paid_orders: number;
  revenue: Money;
  spend: Money;
  cac: Money;
  roas: Record<string, number | null>;
}

export interface Acquisition {
  channels: SourceRow[];
  campaigns: SourceRow[];
}

export interface Finance {
  receipts: Money;
  refunds: Money;
  net_revenue: Money;
  costs: { total: Money; by_category: Record<string, Money> };
  expenses: { total: Money; by_scope: Record<string, Money> };
  margin: Money;
  mrr: Money;
  arr: Money;
  subscriptions: { active: number; new: number; churned: number };
}

export interface Funnel {
  steps: { step: string; users: number; conversion_from_previous: number | null }[];
  overall_conversion: number | null;
}

export interface Retention {
  cohorts: {
    label: string;
    start: string;
    end: string;
    users: number;
    weeks: { offset: number; active_users: number; share: number | null }[];
  }[];
}
