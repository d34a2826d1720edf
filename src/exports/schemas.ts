import { z } from 'zod';
import { VIEW_NAMES, windowParams } from '../analytics/schemas.ts';
import { RESOURCES } from '../auth/scopes.ts';
import { checkRecordWindow, recordWindow } from '../records/schemas.ts';

/** The file's format: CSV (RFC 4180, header row, UTF-8) or newline-delimited JSON. */
export const ExportFormat = z.enum(['csv', 'ndjson']);
export type ExportFormat = z.output<typeof ExportFormat>;

/** A record family, with the window of its reads (`from` inclusive, `to` exclusive on occurred_at; default all). */
const RecordsExportSchema = z
  .strictObject({
    kind: z.literal('records'),
    resource: z.enum(RESOURCES),
    format: ExportFormat,
    ...recordWindow,
  })
  .superRefine(checkRecordWindow);

/** An analytics view, with its query's window, zone and (timeseries) interval. */
const AnalyticsExportSchema = z
  .strictObject({
    kind: z.literal('analytics'),
    view: z.enum(VIEW_NAMES),
    format: ExportFormat,
    ...windowParams,
    /** timeseries only. @defaultValue day */
    interval: z.enum(['day', 'week', 'month']).optional(),
  })
  .refine((q) => q.interval === undefined || q.view === 'timeseries', {
    path: ['interval'],
    message: 'only the timeseries view has an interval',
    // Checked even when other fields are wrong, so the 400 lists every violation at once.
    when: (payload) => typeof payload.value === 'object' && payload.value !== null,
  });

/** Body of POST /sites/{siteId}/exports. */
export const ExportRequestSchema = z.discriminatedUnion('kind', [RecordsExportSchema, AnalyticsExportSchema]);
export type ExportRequest = z.output<typeof ExportRequestSchema>;

export const EXPORT_STATUSES = ['queued', 'running', 'completed', 'failed', 'expired'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

const Instant = z.string().describe('UTC, ISO 8601 with Z');

/**
 * An export as the API answers it. `rowsTotal` is counted when the job starts (null while
 * queued), so `rowsDone / rowsTotal` is the progress; `downloadUrl` is set while the file exists.
 */
export const ExportAnswer = z.strictObject({
  id: z.uuid(),
  siteId: z.uuid(),
  request: ExportRequestSchema,
  status: z.enum(EXPORT_STATUSES),
  rowsDone: z.int(),
  rowsTotal: z.int().nullable(),
  bytes: z.int(),
  downloadUrl: z.string().nullable(),
  /** An analytics export's coverage, currencies and freshness. */
  meta: z.record(z.string(), z.unknown()).nullable(),
  error: z.strictObject({ code: z.string(), detail: z.string() }).nullable(),
  createdAt: Instant,
  startedAt: Instant.nullable(),
  completedAt: Instant.nullable(),
  expiresAt: Instant.nullable(),
});
export type ExportAnswer = z.input<typeof ExportAnswer>;

/** A row of `exports` (sql/migrations/0018_exports.sql). */
export interface ExportRow {
  id: string;
  site_id: string;
  request: ExportRequest;
  status: ExportStatus;
  rows_total: string | null;
  rows_done: string;
  bytes: string;
  meta: Record<string, unknown> | null;
  error: { code: string; detail: string } | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  expires_at: Date | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Where a completed export's file is downloaded. */
export function downloadPath(row: Pick<ExportRow, 'id' | 'site_id'>): string {
  return `/api/v1/sites/${row.site_id}/exports/${row.id}/download`;
}

export function presentExport(row: ExportRow): ExportAnswer {
  return {
    id: row.id,
    siteId: row.site_id,
    request: row.request,
    status: row.status,
    rowsDone: Number(row.rows_done),
    rowsTotal: row.rows_total === null ? null : Number(row.rows_total),
    bytes: Number(row.bytes),
    downloadUrl: row.status === 'completed' ? downloadPath(row) : null,
    meta: row.meta,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    startedAt: iso(row.started_at),
    completedAt: iso(row.completed_at),
    expiresAt: iso(row.expires_at),
  };
}
