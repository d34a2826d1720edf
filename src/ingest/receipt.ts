import type { Resource } from '../auth/scopes.ts';
import type { FieldError } from '../errors/http-error.ts';
import { formatDigest } from './canonical.ts';

/** Identity of a batch (CONTRACT §3). */
export interface BatchKey {
  siteId: string;
  resource: Resource;
  batchId: string;
}

export type BatchStatus = 'queued' | 'completed' | 'rejected';

/** Why a batch was rejected: the 409/422 problem its sender got, kept for replays and receipts. */
export interface BatchProblem {
  code: 'revision_conflict' | 'revision_stale' | 'semantic_invalid' | 'batch_unprocessable';
  detail: string;
  errors: FieldError[];
}

/** A row of ingest_batches without its payload. */
export interface BatchRow {
  site_id: string;
  resource: Resource;
  batch_id: string;
  digest: Buffer;
  status: BatchStatus;
  received: number;
  applied: number;
  unchanged: number;
  problem: BatchProblem | null;
  received_at: Date;
  completed_at: Date | null;
}

/**
 * The receipt of CONTRACT §3. `applied` and `unchanged` count what has been applied so far
 * (0 while queued and when rejected); a rejected receipt also carries its `problem`.
 */
export interface Receipt {
  batch_id: string;
  resource: Resource;
  status: BatchStatus;
  received: number;
  applied: number;
  unchanged: number;
  digest: string;
  replay: boolean;
  received_at: string;
  completed_at: string | null;
  problem?: BatchProblem;
}

export function presentReceipt(row: BatchRow, replay: boolean): Receipt {
  return {
    batch_id: row.batch_id,
    resource: row.resource,
    status: row.status,
    received: row.received,
    applied: row.applied,
    unchanged: row.unchanged,
    digest: formatDigest(row.digest),
    replay,
    received_at: row.received_at.toISOString(),
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
    ...(row.problem ? { problem: row.problem } : {}),
  };
}

/** Where a batch's receipt can be fetched (the 202's Location). */
export function receiptPath(key: BatchKey): string {
  return `/api/v1/sites/${key.siteId}/ingest/receipts/${encodeURIComponent(key.batchId)}?resource=${key.resource}`;
}
