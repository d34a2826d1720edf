import { z } from 'zod';
import { RESOURCES, type Resource } from '../auth/scopes.ts';
import { formatDigest } from './canonical.ts';

/** Identity of a batch (CONTRACT §3). */
export interface BatchKey {
  siteId: string;
  resource: Resource;
  batchId: string;
}

export const BATCH_STATUSES = ['queued', 'completed', 'rejected'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

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
export const ReceiptSchema = z.object({
  batch_id: z.string(),
  resource: z.enum(RESOURCES),
  status: z.enum(BATCH_STATUSES),
  received: z.int(),
  applied: z.int(),
  unchanged: z.int(),
  digest: z.string(),
  replay: z.boolean(),
  received_at: z.iso.datetime(),
  completed_at: z.iso.datetime().nullable(),
  problem: z
    .object({
      code: z.enum(['revision_conflict', 'revision_stale', 'semantic_invalid', 'batch_unprocessable']),
      detail: z.string(),
      errors: z.array(z.object({ path: z.string(), message: z.string() })),
    })
    .optional()
    .describe('why a rejected batch was refused: the 409/422 problem its sender got'),
});
export type Receipt = z.infer<typeof ReceiptSchema>;
/** Why a batch was rejected: the 409/422 problem its sender got, kept for replays and receipts. */
export type BatchProblem = NonNullable<Receipt['problem']>;

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
